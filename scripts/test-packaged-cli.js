#!/usr/bin/env node
'use strict';
// The CLI as the VSIX ships it (dist/cli.js, one bundle beside its workers): it must run from the
// installed folder alone and report the bundled example's deliberate mistakes as the clone does.
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const [stage] = process.argv.slice(2);
const cli = path.join(stage, 'dist', 'cli.js');
const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-packaged-cli-'));
const run = (...args) => spawnSync(process.execPath, [cli, ...args], { cwd: os.tmpdir(), encoding: 'utf8' });

try {
  const version = run('--version');
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout.trim(), require(path.join(root, 'package.json')).version);

  const check = run('check', path.join(root, 'examples', 'paper.tex'), '--offline', '--cache', cache, '--format', 'json');
  assert.equal(check.status, 1, check.stderr);
  const codes = new Set(JSON.parse(check.stdout).findings.map((f) => f.code));
  for (const code of ['missing-key', 'duplicate-key', 'bib-parse-error']) assert.ok(codes.has(code), `${code} missing from ${[...codes]}`);
  // The command the package's page gives for a terminal, run as written, against this package
  // installed where VS Code installs it (offline: the example's mistakes need no source).
  const page = fs.readFileSync(path.join(stage, 'readme.md'), 'utf8');
  const documented = [...page.matchAll(/`(node [^`]*dist\/cli\.js check paper\.tex)`/g)].map((m) => m[1]);
  assert.equal(documented.length, 1, `the page should give one terminal command, not ${JSON.stringify(documented)}`);
  const home = path.join(cache, 'home');
  const { name, publisher, version: installed } = JSON.parse(fs.readFileSync(path.join(stage, 'package.json'), 'utf8'));
  fs.mkdirSync(path.join(home, '.vscode', 'extensions'), { recursive: true });
  fs.symlinkSync(stage, path.join(home, '.vscode', 'extensions', `${publisher}.${name}-${installed}-${path.basename(stage)}`), 'dir');
  const manuscripts = path.join(cache, 'paper');
  fs.mkdirSync(manuscripts);
  for (const file of ['paper.tex', 'references.bib']) fs.copyFileSync(path.join(root, 'examples', file), path.join(manuscripts, file));
  const asDocumented = spawnSync('bash', ['-c', `${documented[0]} --offline --cache "$ATTEST_TEST_CACHE"`], {
    cwd: manuscripts,
    encoding: 'utf8',
    env: { ...process.env, HOME: home, ATTEST_TEST_CACHE: path.join(cache, 'lookups') },
  });
  assert.equal(asDocumented.status, 1, `${documented[0]}: ${asDocumented.stderr}`);
  assert.match(asDocumented.stdout, /paper\.tex:\d+:\d+: error: 'smith2023citations' is not in any bibliography/);
  console.log(`packaged CLI ${cli}: --version, check of the example and the page's command (${documented[0]}) as expected`);
} finally {
  fs.rmSync(cache, { recursive: true, force: true });
}

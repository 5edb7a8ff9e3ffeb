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
  console.log(`packaged CLI ${cli}: --version and check of the example as expected`);
} finally {
  fs.rmSync(cache, { recursive: true, force: true });
}

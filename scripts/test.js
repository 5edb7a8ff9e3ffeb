#!/usr/bin/env node
'use strict';
// The whole test suite: the linter (eslint.config.mjs: no import circles, no vscode in core), compile, unit
// tests in Node, the extension's tests inside a real VS Code, then the package users install: built, its CLI
// run, installed into that VS Code, activated and showing a diagnostic.
// The Solr backend's unit tests need a SolrCloud: one is started (scripts/solr.js) while the rest compiles,
// unless one runs already, and stopped at the end if it was started here.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const packageDir = path.join(root, 'build', 'npm-test');
const builtVsix = () =>
  path.join(
    packageDir,
    fs.readdirSync(packageDir).find((f) => f.endsWith('.vsix')),
  );
const builtStage = () => path.join(packageDir, 'build', fs.readdirSync(path.join(packageDir, 'build'))[0]);

const steps = [
  ['lint', [path.join(path.dirname(require.resolve('eslint/package.json')), 'bin/eslint.js'), root]],
  ['compile', [require.resolve('typescript/bin/tsc'), '-p', root]],
  ["the panels' pages", [path.join(root, 'scripts/webviews.js')]],
  ['unit tests', [require.resolve('mocha/bin/mocha.js')], undefined, () => ({ ATTEST_SOLR_REQUIRED: '1' })],
  ['VS Code host tests', [path.join(root, 'test/host/run.js')]],
  ['package for this platform', [path.join(root, 'scripts/package.js'), '--out', packageDir], () => fs.rmSync(packageDir, { recursive: true, force: true })],
  ['the packaged CLI', [path.join(root, 'scripts/test-packaged-cli.js')], undefined, undefined, () => [builtStage()]],
  ['the installed package in VS Code', [path.join(root, 'test/host/run.js'), '--grep', 'host harness|diagnostics'], undefined, () => ({ ATTEST_HOST_VSIX: builtVsix() })],
];

const solrScript = path.join(root, 'scripts/solr.js');
const solrRunning = spawnSync(process.execPath, [solrScript, 'url'], { stdio: 'ignore' }).status === 0;
const solrStarted = solrRunning
  ? Promise.resolve(0)
  : new Promise((resolve) => spawn(process.execPath, [solrScript, 'start'], { stdio: ['ignore', 'ignore', 'inherit'] }).on('exit', (code) => resolve(code ?? 1)));

function stopSolr() {
  if (!solrRunning) spawnSync(process.execPath, [solrScript, 'stop'], { stdio: 'inherit' });
}

async function run() {
  for (const [name, args, before, env, more] of steps) {
    if (name === 'unit tests' && (await solrStarted) !== 0) return fail('starting the SolrCloud for the unit tests', 1);
    console.log(`\n== ${name}`);
    before?.();
    const { status, signal } = spawnSync(process.execPath, [...args, ...(more?.() ?? [])], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env?.() } });
    if (status !== 0) return fail(name, signal ?? `exit ${status}`, status);
    if (name === 'unit tests') stopSolr();
  }
}

async function fail(name, why, status) {
  console.error(`\n${name} failed (${why})`);
  // A cluster still starting would outlive the run.
  await solrStarted;
  stopSolr();
  process.exit(status || 1);
}

run();

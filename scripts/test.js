#!/usr/bin/env node
'use strict';
// The whole test suite: compile, unit tests in Node, the extension's tests inside a real VS Code, then
// the package users install: built, its CLI run, installed into that VS Code, activated and showing a diagnostic.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const packageDir = path.join(root, 'build', 'npm-test');
const builtVsix = () => path.join(packageDir, fs.readdirSync(packageDir).find((f) => f.endsWith('.vsix')));
const builtStage = () => path.join(packageDir, 'build', fs.readdirSync(path.join(packageDir, 'build'))[0]);

const steps = [
  ['compile', [require.resolve('typescript/bin/tsc'), '-p', root]],
  ['unit tests', [require.resolve('mocha/bin/mocha.js')]],
  ['VS Code host tests', [path.join(root, 'test/host/run.js')]],
  ['package for this platform', [path.join(root, 'scripts/package.js'), '--out', packageDir], () => fs.rmSync(packageDir, { recursive: true, force: true })],
  ['the packaged CLI', [path.join(root, 'scripts/test-packaged-cli.js')], undefined, undefined, () => [builtStage()]],
  [
    'the installed package in VS Code',
    [path.join(root, 'test/host/run.js'), '--grep', 'host harness|diagnostics'],
    undefined,
    () => ({ ATTEST_HOST_VSIX: builtVsix() }),
  ],
];

for (const [name, args, before, env, more] of steps) {
  console.log(`\n== ${name}`);
  before?.();
  const { status, signal } = spawnSync(process.execPath, [...args, ...(more?.() ?? [])], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env?.() } });
  if (status !== 0) {
    console.error(`\n${name} failed (${signal ?? `exit ${status}`})`);
    process.exit(status || 1);
  }
}

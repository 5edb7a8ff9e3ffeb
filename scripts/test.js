#!/usr/bin/env node
'use strict';
// The whole test suite: compile, unit tests in Node, then the extension's tests inside a real VS Code.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const steps = [
  ['compile', process.execPath, [require.resolve('typescript/bin/tsc'), '-p', root]],
  ['unit tests', process.execPath, [require.resolve('mocha/bin/mocha.js')]],
  ['VS Code host tests', process.execPath, [path.join(root, 'test/host/run.js')]],
];

for (const [name, command, args] of steps) {
  console.log(`\n== ${name}`);
  const { status, signal } = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (status !== 0) {
    console.error(`\n${name} failed (${signal ?? `exit ${status}`})`);
    process.exit(status || 1);
  }
}

#!/usr/bin/env node
// The `attest` command: bin/attest.js in a clone, dist/cli.js in the VSIX.
import { main } from './main';

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

#!/usr/bin/env node
// The `attest` command: bin/attest.js in a clone, dist/cli.js in the VSIX.
import { EXIT_OK } from './console';
import { main } from './main';

// A reader that closes the pipe early (`attest check … | head`) has all it wants: end quietly, with
// the command's own status when it has finished, rather than an unhandled 'error' and a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? EXIT_OK);
  });
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

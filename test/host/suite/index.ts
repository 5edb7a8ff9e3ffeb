import * as fs from 'fs';
import * as path from 'path';
import * as util from 'util';
import Mocha from 'mocha';
import * as vscode from 'vscode';
import { recordFigure } from './figures';

/**
 * Entry point the extension host calls (extensionTestsPath). Runs inside VS Code's
 * Node extension host, so the suite files can `require('vscode')`.
 *
 * Under run.js the reporter writes to ATTEST_HOST_LOG instead of the console: the
 * workbench re-logs the extension host's console mixed with its own, unformatted
 * (printf arguments unapplied), and sometimes after the run has already ended.
 * Appending synchronously to a file keeps every line, in order, before run() returns.
 */
export async function run(): Promise<void> {
  const logFile = process.env.ATTEST_HOST_LOG;
  if (logFile) {
    Mocha.reporters.Base.consoleLog = (...args: unknown[]): void => {
      fs.appendFileSync(logFile, util.format(...args) + '\n');
    };
  }

  const activationMs = await reportActivation((line) => Mocha.reporters.Base.consoleLog(line));
  if (activationMs !== undefined) recordFigure({ activationMs });

  const mocha = new Mocha({
    ui: 'tdd',
    color: false,
    reporter: 'spec',
    // Tests poll for at most ~10 s each; this only catches a hang.
    timeout: 60_000,
    grep: process.env.ATTEST_HOST_GREP || undefined,
  });

  // The host bench (run.js --bench) runs apart from the tests: `npm test` never measures.
  const suffix = process.env.ATTEST_HOST_BENCH === '1' ? '.bench.js' : '.test.js';
  const files = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith(suffix))
    .sort();
  for (const f of files) {
    mocha.addFile(path.join(__dirname, f));
  }

  const stats = await new Promise<Mocha.Stats>((resolve, reject) => {
    try {
      const runner = mocha.run(() => resolve(runner.stats ?? emptyStats()));
    } catch (err) {
      reject(err);
    }
  });

  const resultFile = process.env.ATTEST_HOST_RESULT;
  if (resultFile) {
    fs.writeFileSync(resultFile, JSON.stringify({ passes: stats.passes, failures: stats.failures, pending: stats.pending, tests: stats.tests }));
  }
  if (stats.failures > 0) {
    throw new Error(`${stats.failures} host test(s) failed`);
  }
}

/**
 * How long Attest takes to load and activate in this extension host, as Running Extensions would
 * show it: printed, never asserted (speed is the benchmarks' business, and this host is shared).
 */
async function reportActivation(log: (line: string) => void): Promise<number | undefined> {
  const extension = vscode.extensions.getExtension('attest.attest');
  if (!extension || extension.isActive) return undefined;
  const start = performance.now();
  await extension.activate();
  const activationMs = performance.now() - start;
  log(`activation: ${activationMs.toFixed(0)} ms (${extension.extensionPath})`);
  return activationMs;
}

function emptyStats(): Mocha.Stats {
  return { suites: 0, tests: 0, passes: 0, pending: 0, failures: 0 };
}

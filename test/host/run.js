#!/usr/bin/env node
// Runs test/host/suite inside a real VS Code, offline: code-server's bundled VS Code
// server + Debian's Chromium driven by playwright-core (see README.md beside this file).
//
//   node test/host/run.js [--grep PATTERN] [--keep] [--verbose] [--bench]
//
// Expects the suite compiled (`npx tsc -p .` -> out/test/host/suite/index.js) and, to test the repository,
// the panels' pages built (`node scripts/webviews.js` -> dist/webview/; `npm run build` does both).
// Exit code: 0 when every test passed, 1 on test failures, 2 on harness errors/timeout.
//
// Environment:
//   ATTEST_HOST_TIMEOUT_MS   limit for the run once installed (default 300000)
//   ATTEST_HOST_SETUP_TIMEOUT_MS  limit for setup.sh (default 900000: a fresh machine installs ~2 min)
//   ATTEST_HOST_GREP         same as --grep (mocha grep inside the extension host)
//   ATTEST_HOST_KEEP=1       same as --keep: leave the temp folder (server logs, workspace copy)
//   ATTEST_HOST_VERBOSE=1    same as --verbose: print every page console line, unfiltered
//   ATTEST_HOST_EXTENSION    the extension folder to test (default the repository, compiled to out/);
//                            build/<target> after `npm run package` tests the package's content
//   ATTEST_HOST_VSIX         a VSIX to install into the server and test as users get it, instead
//   ATTEST_HOST_BENCH=1      same as --bench: run the host bench (suite/*.bench.js) instead of the tests
//   ATTEST_HOST_DATA_DIR     keep VS Code's user and server data (the extension's global storage) in this
//                            folder across runs: a later run opens what an earlier one stored
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const util = require('util');

const HERE = __dirname;
const REPO = path.resolve(HERE, '..', '..');
const VSIX = process.env.ATTEST_HOST_VSIX ? path.resolve(process.env.ATTEST_HOST_VSIX) : undefined;
// VS Code runs extension tests only through an extension under development: with a VSIX installed,
// an empty stand-in takes that place and Attest runs as installed.
const EXTENSION = VSIX ? path.join(HERE, 'runner') : path.resolve(process.env.ATTEST_HOST_EXTENSION || REPO);
const TEST_INDEX = path.join(REPO, 'out', 'test', 'host', 'suite', 'index.js');
const FIXTURE = path.join(HERE, 'fixtures', 'workspace');
const OUTPUT_DIR = path.join(REPO, 'test-output');
const SERVER_MAIN = path.join(HERE, 'node_modules', 'code-server', 'lib', 'vscode', 'out', 'server-main.js');
const CHROMIUM = process.env.ATTEST_HOST_CHROMIUM || '/usr/bin/chromium';

const argv = process.argv.slice(2);
const argValue = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const GREP = argValue('--grep') || process.env.ATTEST_HOST_GREP || '';
const KEEP = argv.includes('--keep') || process.env.ATTEST_HOST_KEEP === '1';
const VERBOSE = argv.includes('--verbose') || process.env.ATTEST_HOST_VERBOSE === '1';
const BENCH = argv.includes('--bench') || process.env.ATTEST_HOST_BENCH === '1';
const DATA_DIR = process.env.ATTEST_HOST_DATA_DIR ? path.resolve(process.env.ATTEST_HOST_DATA_DIR) : undefined;
const TIMEOUT_MS = Number(process.env.ATTEST_HOST_TIMEOUT_MS || 300_000);
const SETUP_TIMEOUT_MS = Number(process.env.ATTEST_HOST_SETUP_TIMEOUT_MS || 900_000);

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const say = (msg) => process.stderr.write(`[host] ${msg}\n`);

/** Everything that must go away however the run ends. */
const state = { setup: null, server: null, browser: null, screenshotServer: null, tmp: null, cleaning: null };

async function cleanup() {
  if (state.cleaning) return state.cleaning;
  state.cleaning = (async () => {
    if (state.setup && state.setup.exitCode === null) killGroup(state.setup.pid);
    if (state.browser) {
      // close() can hang if Chromium is wedged; playwright also kills it when this process exits.
      await Promise.race([state.browser.close().catch(() => {}), sleep(3000)]);
    }
    if (state.screenshotServer) state.screenshotServer.close();
    if (state.server) killGroup(state.server.pid);
    if (state.tmp && !KEEP) {
      fs.rmSync(state.tmp, { recursive: true, force: true, maxRetries: 3 });
    } else if (state.tmp) {
      say(`kept ${state.tmp}`);
    }
  })();
  return state.cleaning;
}

/** The server forks an extension host, file watchers, ptys: only the group kill reaches them all. */
function killGroup(pid) {
  if (!pid) return;
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

let failing = false;
async function fail(code, msg) {
  // Tearing down makes whatever main() was awaiting throw too; the first reason is the real one.
  if (failing) return;
  failing = true;
  say(`ERROR: ${msg}`);
  await cleanup();
  process.exit(code);
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => fail(130, `interrupted by ${sig}`));
}

/** Async, not spawnSync, so that the timeout and signals still work while it installs. */
function runSetup() {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(HERE, 'setup.sh')], { stdio: ['ignore', 'inherit', 'inherit'], detached: true });
    state.setup = child;
    const timer = setTimeout(() => {
      killGroup(child.pid);
      reject(new Error(`test/host/setup.sh took more than ${SETUP_TIMEOUT_MS / 1000}s`));
    }, SETUP_TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`test/host/setup.sh failed (${code ?? sig})`));
    });
  });
}

function makeTempDirs() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-host-'));
  const dirs = {};
  for (const d of ['user', 'server', 'ext', 'home', 'tmp', 'xdg-config', 'xdg-data', 'xdg-cache', 'xdg-runtime']) {
    dirs[d] = DATA_DIR && (d === 'user' || d === 'server') ? path.join(DATA_DIR, d) : path.join(tmp, d);
    fs.mkdirSync(dirs[d], { recursive: true, mode: 0o700 });
  }
  // Tests edit files in it (refs.bib); the fixtures in the repo must stay as committed.
  const workspace = path.join(tmp, 'workspace');
  fs.cpSync(FIXTURE, workspace, { recursive: true });
  return { tmp, dirs, workspace };
}

/**
 * Screenshot channel: the tests run in the extension host (another process) and
 * only playwright here can see the page, so tests POST /screenshot?name=X to this
 * loopback server (URL passed in the env) and get back the PNG's path once written.
 */
function startScreenshotServer(getPage) {
  fs.mkdirSync(OUTPUT_DIR, { recursive: true });
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (req.method !== 'POST' || url.pathname !== '/screenshot') {
      res.writeHead(404).end();
      return;
    }
    const name = (url.searchParams.get('name') || 'screenshot').replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 80);
    const file = path.join(OUTPUT_DIR, `${name}.png`);
    try {
      const page = getPage();
      if (!page) throw new Error('no page yet');
      // Let the workbench paint what the test just changed (panels animate, markers are debounced).
      await sleep(400);
      await page.screenshot({ path: file, timeout: 15_000 });
      say(`screenshot ${path.relative(process.cwd(), file) || file}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: file }));
    } catch (err) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err) }));
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** Installs a VSIX into the server's extensions folder the way `code --install-extension` does. */
function installVsix(vsix, dirs) {
  const { spawnSync } = require('child_process');
  const args = [
    SERVER_MAIN,
    '--install-extension',
    vsix,
    '--extensions-dir',
    dirs.ext,
    '--server-data-dir',
    dirs.server,
    '--user-data-dir',
    dirs.user,
    '--accept-server-license-terms',
  ];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, HOME: dirs.home, TMPDIR: dirs.tmp } });
  if (result.status !== 0) throw new Error(`installing ${vsix} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
}

/** Starts the VS Code server on a port it picks itself, so two runs never collide. */
function startServer({ dirs, workspace }, screenshotUrl) {
  const env = {
    ...process.env,
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    XDG_CONFIG_HOME: dirs['xdg-config'],
    XDG_DATA_HOME: dirs['xdg-data'],
    XDG_CACHE_HOME: dirs['xdg-cache'],
    XDG_RUNTIME_DIR: dirs['xdg-runtime'],
    // Read by the suite (the extension host inherits the server's environment).
    ATTEST_HOST_WORKSPACE: workspace,
    ATTEST_HOST_SCREENSHOT_URL: screenshotUrl,
    ATTEST_HOST_GREP: GREP,
    ATTEST_HOST_BENCH: BENCH ? '1' : '',
    ATTEST_HOST_LOG: path.join(state.tmp, 'mocha.log'),
    ATTEST_HOST_RESULT: path.join(state.tmp, 'result.json'),
    ...(VSIX ? { ATTEST_HOST_EXTENSIONS_DIR: dirs.ext } : { ATTEST_HOST_EXTENSION: EXTENSION }),
  };
  // Not ours to pass on: a parent VS Code's IPC hooks would make the server talk to it.
  for (const k of Object.keys(env)) {
    if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') delete env[k];
  }
  const args = [
    SERVER_MAIN,
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--without-connection-token',
    '--accept-server-license-terms',
    '--enable-smoke-test-driver',
    '--disable-telemetry',
    '--disable-workspace-trust',
    '--user-data-dir',
    dirs.user,
    '--server-data-dir',
    dirs.server,
    '--extensions-dir',
    dirs.ext,
  ];
  const server = spawn(process.execPath, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  state.server = server;
  const logFile = fs.createWriteStream(path.join(state.tmp, 'server.log'));
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (chunk) => {
      logFile.write(chunk);
      if (VERBOSE) process.stderr.write(`[server] ${chunk}`);
      buf += chunk.toString();
      const m = /Extension host agent listening on (\d+)/.exec(buf);
      if (m) {
        buf = '';
        resolve(Number(m[1]));
      }
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.once('exit', (code, sig) => reject(new Error(`server exited early (${code ?? sig}); log:\n${buf.slice(-4000)}`)));
    server.once('error', reject);
  });
}

/**
 * The page console carries the workbench's own chatter (404s for the service worker,
 * the offline marketplace, ...) and, re-logged by the workbench, the extension host's
 * console. Mocha's report does not come this way (see suite/index.ts), so by default
 * only errors are printed, minus the noise every run has; --verbose prints everything.
 */
const CONSOLE_NOISE = [
  /Failed to load resource/,
  /ServiceWorker|Service Worker|bad HTTP response code \(404\)/,
  /ENOTFOUND|ERR_NAME_NOT_RESOLVED|ERR_INTERNET_DISCONNECTED|getaddrinfo/,
  /open-vsx\.org|marketplace|gallery/i,
  /vsda/,
  // index.ts's own rejection: mocha's report above already says which tests failed.
  /host test\(s\) failed/,
];

/** The workbench logs `('%c INFO', 'color: #33f', fmt, ...args)`; apply the printf args the way Node would. */
async function formatConsole(msg) {
  let args;
  try {
    // jsonValue() turns an Error into {}; its stack is what is worth printing.
    args = await Promise.all(msg.args().map((a) => a.evaluate((v) => (v instanceof Error ? v.stack || String(v) : v)).catch(() => a.jsonValue().catch(() => String(a)))));
  } catch {
    args = [msg.text()];
  }
  if (args.length >= 2 && typeof args[0] === 'string' && /^%c\s*\w+/.test(args[0]) && typeof args[1] === 'string') {
    const level = args[0].replace(/%c/g, '').trim();
    const rest = args.slice(2).map((a) => (a !== null && typeof a === 'object' ? JSON.stringify(a) : a));
    return `${level} ${util.format(...rest)}`;
  }
  return args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ') || msg.text();
}

function wantConsole(msg, text) {
  if (VERBOSE) return true;
  if (msg.type() !== 'error' && !/^ERR\b/.test(text)) return false;
  return !CONSOLE_NOISE.some((re) => re.test(text));
}

/** Prints what the suite appends to its log file, as it comes. */
function tailFile(file) {
  let offset = 0;
  const pump = () => {
    let fd;
    try {
      fd = fs.openSync(file, 'r');
    } catch {
      return;
    }
    try {
      const size = fs.fstatSync(fd).size;
      if (size > offset) {
        const buf = Buffer.alloc(size - offset);
        fs.readSync(fd, buf, 0, buf.length, offset);
        offset = size;
        process.stdout.write(buf);
      }
    } finally {
      fs.closeSync(fd);
    }
  };
  const timer = setInterval(pump, 100);
  return () => {
    clearInterval(timer);
    pump();
  };
}

async function main() {
  if (!fs.existsSync(TEST_INDEX)) {
    throw new Error(`${path.relative(REPO, TEST_INDEX)} is missing: compile first (npx tsc -p .)`);
  }
  if (EXTENSION === REPO && !fs.existsSync(path.join(REPO, 'dist', 'webview', 'evidence.js'))) {
    throw new Error("dist/webview/ is missing: build the panels' pages first (node scripts/webviews.js)");
  }
  await runSetup();
  say(`setup done (${elapsed()})`);
  armTimeout();

  // Imported after setup.sh, which is what installs it.
  const { chromium } = require(path.join(HERE, 'node_modules', 'playwright-core'));

  const { tmp, dirs, workspace } = makeTempDirs();
  state.tmp = tmp;

  let page = null;
  state.screenshotServer = await startScreenshotServer(() => page);
  const screenshotUrl = `http://127.0.0.1:${state.screenshotServer.address().port}/screenshot`;

  if (VSIX) {
    installVsix(VSIX, dirs);
    say(`installed ${path.basename(VSIX)} (${elapsed()})`);
  }
  const port = await startServer({ dirs, workspace }, screenshotUrl);
  say(`server on port ${port} (${elapsed()})`);

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  state.browser = browser;
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await context.newPage();

  let resolveExit;
  const exited = new Promise((r) => (resolveExit = r));
  await page.exposeFunction('codeAutomationExit', (code) => resolveExit(Number(code)));
  // The smoke-test driver sends the renderer's log here; the console already has what we print.
  await page.exposeFunction('codeAutomationLog', () => {});

  // jsonValue() is async: chain so lines keep their order.
  let consoleChain = Promise.resolve();
  page.on('console', (msg) => {
    consoleChain = consoleChain.then(async () => {
      const text = await formatConsole(msg);
      if (wantConsole(msg, text)) process.stderr.write(`[console:${msg.type()}] ${text}\n`);
    });
  });
  page.on('pageerror', (err) => {
    if (VERBOSE || /attest/i.test(String(err && err.stack))) say(`page error: ${err && err.stack}`);
  });

  const authority = `127.0.0.1:${port}`;
  const payload = [
    ['extensionDevelopmentPath', `vscode-remote://${authority}${EXTENSION}`],
    ['extensionTestsPath', `vscode-remote://${authority}${TEST_INDEX}`],
  ];
  const url = `http://${authority}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const stopTail = tailFile(path.join(tmp, 'mocha.log'));
  // A machine under load can take minutes to serve the workbench: the run's own limit bounds the wait.
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: TIMEOUT_MS });
  say(`workbench loading, tests start when the extension host is up (${elapsed()})`);

  const serverDied = new Promise((_, reject) =>
    state.server.once('exit', (code, sig) => reject(new Error(`VS Code server exited during the run (${code ?? sig}); see server.log (--keep)`))),
  );
  const code = await Promise.race([exited, serverDied]);
  stopTail();
  // Errors the extension host logged just before exiting are still being formatted.
  await Promise.race([consoleChain, sleep(1000)]);
  return { code, result: readResult(path.join(tmp, 'result.json')) };
}

function readResult(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

let timer = null;
function armTimeout() {
  timer = setTimeout(() => {
    fail(2, `timed out after ${TIMEOUT_MS / 1000}s (set ATTEST_HOST_TIMEOUT_MS to change; --keep --verbose to investigate)`);
  }, TIMEOUT_MS);
}

main().then(
  async ({ code, result }) => {
    clearTimeout(timer);
    await cleanup();
    if (result) {
      // The plain closing line CI reads; mocha's "N passing" is not one it knows.
      const skipped = result.pending ? `, ${result.pending} skipped` : '';
      process.stdout.write(`host: ${result.passes} passed, ${result.failures} failed${skipped}\n`);
    } else {
      say('the suite wrote no result: it did not run (see errors above)');
    }
    const ok = code === 0 && result !== null && result.failures === 0;
    say(`host tests ${ok ? 'passed' : 'FAILED'} in ${elapsed()}`);
    process.exit(ok ? 0 : 1);
  },
  async (err) => {
    clearTimeout(timer);
    await fail(2, err && err.stack ? err.stack : String(err));
  },
);

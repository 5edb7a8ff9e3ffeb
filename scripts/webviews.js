#!/usr/bin/env node
'use strict';
// `node scripts/webviews.js [--out DIR]`: the panels' pages (src/webview/page/), type-checked against the
// protocols with their own tsconfig (the DOM's lib, not Node's), then each bundled into one browser
// script, DIR/evidence.js and DIR/suggest.js (default dist/webview/, where the panels load them from:
// src/extension/panelHost.ts). `npm run build` runs it after tsc; scripts/package.js bundles into the package.
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { parseArgs } = require('node:util');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const PAGES = path.join(root, 'src/webview/page');
/** The panels' pages, by the name the panel gives (PanelKind.page). */
const ENTRY_POINTS = { evidence: path.join(PAGES, 'evidence.ts'), suggest: path.join(PAGES, 'suggest.ts') };

/** Fails, with tsc's messages, when a page does not compile against the protocols. */
function typeCheck() {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', PAGES], { cwd: root, stdio: 'inherit' });
}

/** Type-checks the pages and writes one script for each into `outdir`; esbuild's result, its metafile included. */
async function buildWebviews(outdir) {
  typeCheck();
  return bundleWebviews(outdir, true);
}

/** One script for each page, bundled into `outdir`; with `write` false, kept in esbuild's result (the unit tests run them). */
function bundleWebviews(outdir, write) {
  return esbuild.build({
    entryPoints: ENTRY_POINTS,
    bundle: true,
    platform: 'browser',
    // The webviews of VS Code 1.100, the oldest the manifest allows, run Chromium 132.
    target: 'chrome132',
    // A classic script in an immediately invoked function: the page's CSP lets in its one script, by nonce, and no module it would import.
    format: 'iife',
    outdir,
    write,
    minify: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
}

module.exports = { buildWebviews, bundleWebviews };

if (require.main === module) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  buildWebviews(path.resolve(values.out ?? path.join(root, 'dist/webview'))).catch((error) => {
    console.error(`webviews: ${error.message}`);
    process.exit(1);
  });
}

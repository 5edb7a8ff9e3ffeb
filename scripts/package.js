#!/usr/bin/env node
'use strict';
// `npm run package [-- --target TARGET...] [--out DIR]`: one VSIX per VS Code target, each holding the
// bundled extension, the `attest` CLI (dist/cli.js), model, parser, paper library and PDF workers, the panels' pages (dist/webview/), pdf.js,
// the files the extension reads at run time, and onnxruntime-node with only that target's native library. Without --target, the target of this machine; the VSIX is
// written to DIR (default: the repository's root), the folder it is assembled in to DIR/build.
//
// The package is assembled in build/<target>/ rather than filtered out of the repository with
// .vscodeignore: onnxruntime-node ships every platform's binaries (287 MB) and install-time-only
// dependencies, and a staged folder holds exactly what a user's VS Code runs, nothing else.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const esbuild = require('esbuild');
const { buildWebviews } = require('./webviews');

const root = path.resolve(__dirname, '..');

/** VS Code targets, and where onnxruntime-node keeps each one's native library (none for Intel Macs in 1.30). */
const TARGETS = {
  'linux-x64': 'linux/x64',
  'linux-arm64': 'linux/arm64',
  'win32-x64': 'win32/x64',
  'win32-arm64': 'win32/arm64',
  'darwin-arm64': 'darwin/arm64',
  'darwin-x64': undefined,
};

/** Files of the native folder a target does not load: darwin's versioned copy of the library it loads as libonnxruntime.1.dylib. */
const UNUSED_NATIVE = new Set(['libonnxruntime.1.30.0.dylib']);

/**
 * Modules the extension loads on first use (see their require calls), each bundled into dist/lib/
 * apart from the extension: loading the extension then need not compile them, which measured as the
 * largest part of its activation. Keys are the bundles' names; values what the require names.
 */
const ON_FIRST_USE = {
  openai: 'openai',
  yaml: 'yaml',
  'fast-xml-parser': 'fast-xml-parser',
  htmlparser2: 'htmlparser2',
  'citation-js': path.join(root, 'src/core/bibliography/citationJs.ts'),
  'background-terms': path.join(root, 'src/core/verify/backgroundTable.ts'),
};

/** A require of a module loaded on first use becomes a require of its bundle, relative to the requiring bundle in dist/. */
const loadedApart = {
  name: 'loaded-apart',
  setup(build) {
    const names = new Map(Object.entries(ON_FIRST_USE).map(([name, module]) => [module, name]));
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'require-call') return undefined;
      const module = args.path.startsWith('.') ? `${path.resolve(args.resolveDir, args.path)}.ts` : args.path;
      const name = names.get(module);
      return name && { path: `./lib/${name}.js`, external: true };
    });
  },
};

/**
 * The most a VSIX may weigh: 50 MB as vsce and the Marketplace count them (2^20 bytes). The models and
 * ONNX Runtime are most of it; README.md's package section has the table of what each part costs.
 */
const MAX_VSIX_BYTES = 50 * 1024 * 1024;

/** What the installed extension reads besides its bundles; solr/configset is what the packaged CLI's `attest solr init` uploads. */
const ASSETS = ['package.nls.json', 'LICENSE', 'CHANGELOG.md', 'media', 'syntaxes', 'solr/configset'];
/**
 * The package's own page (the Marketplace's and the Extensions view's): what Attest does and how to
 * start, for someone installing it. The repository's README.md is for contributors.
 */
const MARKETPLACE_README = 'media/marketplace/README.md';
/**
 * Where the page's pictures are. VS Code shows the page under a policy that loads images from https:
 * and data: URLs only (`img-src https: data:`), so a picture named relative to the package never
 * shows, and the package has no repository to link an https one from: each picture goes into the
 * page as a data: URL, and is not in the package beside it.
 */
const MARKETPLACE_PICTURES = 'media/marketplace';

/**
 * The models built into Attest (src/core/models/builtIn.ts finds them at the package's root), each
 * when the repository has it: the NLI model and the evidence reranker, their cards, settings,
 * configuration, tokenizer and int8 graph.
 */
const BUILT_IN_MODELS = {
  'models/attest-nli': ['README.md', 'attest.json', 'config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'],
  'models/attest-rerank': ['README.md', 'rerank.json', 'config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'],
};

function hostTarget() {
  const target = `${process.platform}-${process.arch}`;
  if (!(target in TARGETS)) throw new Error(`no VS Code target for ${target}; name one with --target (${Object.keys(TARGETS).join(', ')})`);
  return target;
}

async function bundle(outdir) {
  const apart = await esbuild.build({
    entryPoints: Object.fromEntries(Object.entries(ON_FIRST_USE).map(([name, module]) => [`lib/${name}`, require.resolve(module)])),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outdir,
    minify: true,
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
  });
  const result = await esbuild.build({
    entryPoints: {
      extension: path.join(root, 'src/extension/extension.ts'),
      cli: path.join(root, 'src/cli/bin.ts'),
      worker: path.join(root, 'src/core/models/worker.ts'),
      parserWorker: path.join(root, 'src/core/parsing/parserWorker.ts'),
      libraryWorker: path.join(root, 'src/core/index/libraryWorker.ts'),
      pdfWorker: path.join(root, 'src/core/fulltext/pdfWorker.ts'),
      dblpIndexWorker: path.join(root, 'src/core/sources/dblpDump/dblpIndexWorker.ts'),
    },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outdir,
    // vscode is the host's; onnxruntime-node loads its native library relative to its own files;
    // pdf.js is an ES module the PDF worker imports at run time, with its fonts beside it.
    external: ['vscode', 'onnxruntime-node', 'pdfjs-dist'],
    // stopword's CommonJS build holds every language's list; its ES module lets the bundle keep English only.
    alias: { stopword: path.join(root, 'node_modules/stopword/src/stopword.js') },
    minify: true,
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [loadedApart],
  });
  const pages = await buildWebviews(path.join(outdir, 'webview'));
  return { outputs: { ...apart.metafile.outputs, ...result.metafile.outputs, ...pages.metafile.outputs } };
}

function copy(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true });
}

/** onnxruntime-node's run-time files and its one run-time dependency, with one target's native library. */
function copyOnnxRuntime(nativeDir, modules) {
  const node = path.join(root, 'node_modules/onnxruntime-node');
  const common = path.join(root, 'node_modules/onnxruntime-common');
  for (const file of ['package.json', 'LICENSE', 'dist']) {
    if (fs.existsSync(path.join(node, file))) copy(path.join(node, file), path.join(modules, 'onnxruntime-node', file));
  }
  const native = path.join(node, 'bin/napi-v6', nativeDir);
  for (const file of fs.readdirSync(native)) {
    if (!UNUSED_NATIVE.has(file)) copy(path.join(native, file), path.join(modules, 'onnxruntime-node/bin/napi-v6', nativeDir, file));
  }
  for (const file of ['package.json', 'LICENSE', 'dist/cjs']) {
    if (fs.existsSync(path.join(common, file))) copy(path.join(common, file), path.join(modules, 'onnxruntime-common', file));
  }
  for (const dir of [path.join(modules, 'onnxruntime-node/dist'), path.join(modules, 'onnxruntime-common/dist')]) removeMatching(dir, /\.(map|d\.ts|d\.mts|d\.cts)$/);
}

/**
 * pdf.js as the PDF worker imports it: the legacy build and its worker, each as pdf.js's own minified
 * copy under the name the other imports (0.17 MB less in the VSIX). Not its standard fonts (0.5 MB):
 * they give glyph outlines for drawing, and the text layer of a PDF in all 14 standard fonts read the
 * same without them.
 */
function copyPdfJs(modules) {
  const pdfjs = path.join(root, 'node_modules/pdfjs-dist');
  const files = {
    'package.json': 'package.json',
    LICENSE: 'LICENSE',
    'legacy/build/pdf.min.mjs': 'legacy/build/pdf.mjs',
    'legacy/build/pdf.worker.min.mjs': 'legacy/build/pdf.worker.mjs',
  };
  for (const [from, to] of Object.entries(files)) copy(path.join(pdfjs, from), path.join(modules, 'pdfjs-dist', to));
}

/** The page at `file` with each PNG picture it names relative to the repository's root put in as a data: URL. */
function withPicturesInline(file) {
  return fs.readFileSync(file, 'utf8').replace(/(!\[[^\]]*\]\()([^)\s]+\.png)\)/g, (_, start, picture) => {
    return `${start}data:image/png;base64,${fs.readFileSync(path.join(root, picture)).toString('base64')})`;
  });
}

function removeMatching(dir, pattern) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && pattern.test(entry.name)) fs.rmSync(path.join(entry.parentPath, entry.name));
  }
}

/** The manifest as the Marketplace and VS Code read it: no scripts, no dependencies to install, the bundle as main. */
function stagedManifest(target, hasRuntime) {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  for (const key of ['scripts', 'dependencies', 'devDependencies', 'allowScripts', 'bin', 'private']) delete manifest[key];
  manifest.main = './dist/extension.js';
  if (!hasRuntime) manifest.description += ` (${target}: without the local NLI and embedding models, which onnxruntime does not ship for it)`;
  return manifest;
}

async function packageTarget(target, outDir) {
  if (!(target in TARGETS)) throw new Error(`unknown target '${target}': one of ${Object.keys(TARGETS).join(', ')}`);
  const stage = path.join(outDir, 'build', target);
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  const metafile = await bundle(path.join(stage, 'dist'));
  for (const asset of ASSETS) copy(path.join(root, asset), path.join(stage, asset));
  fs.rmSync(path.join(stage, MARKETPLACE_PICTURES), { recursive: true });
  fs.writeFileSync(path.join(stage, 'readme.md'), withPicturesInline(path.join(root, MARKETPLACE_README)));
  const nativeDir = TARGETS[target];
  // Without onnxruntime (Intel Macs) the models could not run.
  const models = nativeDir ? Object.keys(BUILT_IN_MODELS).filter((dir) => fs.existsSync(path.join(root, dir))) : [];
  for (const dir of models) for (const file of BUILT_IN_MODELS[dir]) copy(path.join(root, dir, file), path.join(stage, dir, file));
  if (nativeDir) for (const dir of Object.keys(BUILT_IN_MODELS).filter((d) => !models.includes(d))) console.warn(`package: ${dir} is absent, so the package is without it`);
  if (nativeDir) copyOnnxRuntime(nativeDir, path.join(stage, 'dist/node_modules'));
  copyPdfJs(path.join(stage, 'dist/node_modules'));
  const manifest = stagedManifest(target, nativeDir !== undefined);
  fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // The stage holds exactly the package, so nothing in it is to be left out; saying so keeps vsce from warning.
  fs.writeFileSync(path.join(stage, '.vscodeignore'), '.vscodeignore\n');

  const vsix = path.join(outDir, `${manifest.name}-${target}-${manifest.version}.vsix`);
  // The dependencies are already in the stage; --no-dependencies keeps vsce from asking npm about them.
  // The page's pictures are data: URLs, which vsce's rewriting of relative links refuses (it wants https: ones).
  const page = ['--readme-path', 'readme.md', '--no-rewrite-relative-links'];
  execFileSync(process.execPath, [require.resolve('@vscode/vsce/vsce'), 'package', '--no-dependencies', '--allow-missing-repository', ...page, '--target', target, '--out', vsix], {
    cwd: stage,
    stdio: 'inherit',
  });
  const bundled = Object.values(metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);
  const withModel = models.length > 0 ? `, ${models.map((dir) => path.basename(dir)).join(' and ')}` : '';
  const size = fs.statSync(vsix).size;
  console.log(`${vsix}: ${mb(size)} MB (bundles ${mb(bundled)} MB${nativeDir ? `, onnxruntime for ${nativeDir}` : ', no onnxruntime'}${withModel})`);
  if (size > MAX_VSIX_BYTES) throw new Error(`${vsix} is ${mb(size)} MB, over the ${mb(MAX_VSIX_BYTES)} MB a package may weigh`);
}

async function main() {
  const { values } = parseArgs({ options: { target: { type: 'string', multiple: true }, out: { type: 'string' } } });
  const targets = values.target ?? [hostTarget()];
  const outDir = path.resolve(values.out ?? root);
  for (const target of targets) await packageTarget(target, outDir);
}

main().catch((error) => {
  console.error(`package: ${error.message}`);
  process.exit(1);
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import AdmZip from 'adm-zip';
import { attestPackages } from '../../src/core/attestPackage';
import { LibraryThread } from '../../src/core/index/libraryThread';
import { builtInNliFolder, builtInRerankerFolder } from '../../src/core/models/builtIn';
import { REPO_ROOT } from './support/helpers';
import { makeTempDir } from './support/tempDir';

// The packages as users get them, built the way `npm run package` builds them.

const MB = 1024 * 1024;
const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Manifest {
  readonly main: string;
  readonly description: string;
  readonly dependencies?: unknown;
  readonly devDependencies?: unknown;
  readonly scripts?: unknown;
}

describe('npm run package', function () {
  this.timeout(180_000);
  let dir: string;
  let remove: () => Promise<void>;
  const packages = new Map<string, AdmZip>();

  before(async () => {
    ({ dir, remove } = await makeTempDir());
    await promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'scripts/package.js'), '--target', 'linux-x64', '--target', 'darwin-x64', '--out', dir], {
      maxBuffer: 16 * MB,
    });
    for (const target of ['linux-x64', 'darwin-x64']) packages.set(target, new AdmZip(path.join(dir, `attest-${target}-${VERSION}.vsix`)));
  });
  after(() => remove());

  const files = (target: string): string[] => (packages.get(target)?.getEntries() ?? []).filter((e) => !e.isDirectory).map((e) => e.entryName);
  const manifest = (target: string): Manifest => JSON.parse(packages.get(target)?.readAsText('extension/package.json') ?? '{}') as Manifest;

  it('writes a linux-x64 VSIX of at most 50 MB (the built-in NLI model and reranker included) holding onnxruntime for linux-x64 only', () => {
    const zip = packages.get('linux-x64');
    assert.ok(zip);
    const size = zip.getEntries().reduce((n, e) => n + e.header.compressedSize, 0);
    assert.ok(size <= 50 * MB, `${(size / MB).toFixed(1)} MB`);
    const natives = files('linux-x64').filter((f) => /\.(node|so(\.\d+)*|dylib|dll)$/.test(f));
    assert.deepEqual(natives.sort(), [
      'extension/dist/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1',
      'extension/dist/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node',
    ]);
  });

  it('holds the bundles, the files the extension reads, a licence and the README, and no sources, maps, tests or data', () => {
    const all = files('linux-x64');
    for (const wanted of [
      'extension/dist/extension.js',
      'extension/dist/worker.js',
      'extension/dist/parserWorker.js',
      'extension/dist/libraryWorker.js',
      'extension/dist/dblpIndexWorker.js',
      'extension/dist/lib/openai.js',
      'extension/dist/lib/yaml.js',
      'extension/dist/lib/fast-xml-parser.js',
      'extension/LICENSE.txt',
      'extension/readme.md',
      'extension/package.nls.json',
      'extension/dist/webview/evidence.js',
      'extension/dist/webview/suggest.js',
      'extension/media/icon.png',
      'extension/syntaxes/bibtex.tmLanguage.json',
    ]) {
      assert.ok(all.includes(wanted), wanted);
    }
    const unwanted = all.filter(
      (f) => /\.(ts|map|mts|cts)$/.test(f) || /^extension\/(src|test|bench|out|examples|scripts)\//.test(f) || /\/(fixtures|tokenizers|manuscripts)\//.test(f),
    );
    assert.deepEqual(unwanted, []);
    assert.ok(all.length < 110, `${all.length} files`);
  });

  it("opens its page with what Attest does, a picture that shows, and how to start, not with the contributors' commands", async () => {
    const page = packages.get('linux-x64')?.readAsText('extension/readme.md') ?? '';
    assert.match(page, /^# Attest/);
    assert.match(page, /## Getting started/);
    assert.doesNotMatch(page, /npm ci|npm test|npx attest check/);
    // VS Code shows an extension's page under `img-src https: data:`: a picture named relative to the package never loads.
    const pictures = [...page.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]);
    assert.equal(pictures.length, 1, 'one picture');
    const inline = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(pictures[0]);
    assert.ok(inline, `${pictures[0].slice(0, 60)}… is not a data: URL`);
    assert.deepEqual(Buffer.from(inline[1], 'base64'), await readFile(path.join(REPO_ROOT, 'media/marketplace/problems.png')));
  });

  it('runs the paper library’s worker as installed: a store opened, papers imported from BibTeX and found', async () => {
    const installed = path.join(dir, 'installed');
    packages.get('linux-x64')?.extractAllTo(installed);
    const thread = new LibraryThread(path.join(installed, 'extension/dist/libraryWorker.js'));
    try {
      await thread.setUp({ dir: path.join(dir, 'library') });
      const bib = path.join(dir, 'papers.bib');
      await writeFile(bib, '@article{a, title={Aspirin and stroke}, author={Lee, K.}, year=2019, abstract={Daily aspirin reduced the risk of stroke.}}\n');
      assert.deepEqual(await thread.importFile(bib, 'bibtex'), { added: 1, problemCount: 0, problems: [] });
      const found = await thread.find({ text: 'aspirin stroke', limit: 1 });
      assert.equal(found.results[0]?.sentence, 'Daily aspirin reduced the risk of stroke.');
    } finally {
      await thread.dispose();
    }
  });

  it('carries the built-in NLI model and reranker, and finds them from the bundle as installed', async () => {
    const common = ['README.md', 'config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];
    const models = { 'attest-nli': [...common, 'attest.json'], 'attest-rerank': [...common, 'rerank.json'] };
    for (const [name, wanted] of Object.entries(models)) {
      assert.deepEqual(
        files('linux-x64')
          .filter((f) => f.startsWith(`extension/models/${name}/`))
          .sort(),
        wanted.map((f) => `extension/models/${name}/${f}`).sort(),
      );
      assert.deepEqual(
        files('darwin-x64').filter((f) => f.includes(name)),
        [],
        'no model where onnxruntime cannot run it',
      );
    }
    const installed = path.join(dir, 'installed-model');
    packages.get('linux-x64')?.extractAllTo(installed);
    const roots = Array.from(attestPackages(path.join(installed, 'extension/dist')), (p) => p.dir);
    assert.equal(await builtInNliFolder(roots), path.join(installed, 'extension/models/attest-nli'));
    assert.equal(await builtInRerankerFolder(roots), path.join(installed, 'extension/models/attest-rerank'));
  });

  it('runs the bundle: no dependencies to install, no development scripts', () => {
    const linux = manifest('linux-x64');
    assert.equal(linux.main, './dist/extension.js');
    assert.deepEqual([linux.dependencies, linux.devDependencies, linux.scripts], [undefined, undefined, undefined]);
  });

  it('gives Intel Macs, which onnxruntime has no library for, a package without models that says so', () => {
    assert.deepEqual(
      files('darwin-x64').filter((f) => f.includes('onnxruntime')),
      [],
    );
    assert.match(manifest('darwin-x64').description, /without the local NLI and embedding models/);
    assert.ok(files('darwin-x64').includes('extension/dist/extension.js'));
  });
});

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { BibliographicServer } from '../../../bench/support/bibliographicServer';
import { REPO_ROOT } from '../support/helpers';
import { SENTENCE_CHARACTERS } from '../../../src/cli/report';
import { attest, type Run } from '../support/cli';
import { nliConfig, writeModelFolder } from '../support/onnx/folders';
import { nliGraph } from '../support/onnx/graphs';

interface JsonReport {
  file: string;
  bibliographies: string[];
  citations: { key: string; command: string; line: number; column: number; endLine: number; endColumn: number; sentence: string | null }[];
  findings: { code: string; severity: string; key: string | null; file: string; line: number; column: number; message: string }[];
}

const EXAMPLE = path.join(REPO_ROOT, 'examples/paper.tex');

describe('attest check', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-cli-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("reports the example manuscript's mistakes and exits 1", async () => {
    const run = await attest('check', EXAMPLE, '--offline', '--cache', dir);
    assert.equal(run.code, 1);
    assert.match(run.out, /paper\.tex:\d+:\d+: error: 'smith2023citations' is not in any bibliography \(references\.bib\)\. \[missing-key\]/);
    assert.match(run.out, /warning: Duplicate key 'walters2023fabrication'/);
    assert.match(run.out, /\[bib-parse-error\]/);
  });

  it('leaves notes out of the text unless asked, counting them in the summary', async () => {
    const quiet = await attest('check', EXAMPLE, '--offline', '--cache', dir);
    assert.doesNotMatch(quiet.out, /: hint: /);
    const hidden = Number(/ (\d+) below warning not shown \(--min-severity hint shows them\)/.exec(quiet.out)?.[1]);
    const all = await attest('check', EXAMPLE, '--offline', '--cache', dir, '--min-severity', 'hint');
    assert.match(all.out, /hint: 'thakur2021beir' is never cited/);
    assert.equal(all.out.split('\n').filter((l) => / (hint|information): /.test(l)).length, hidden);
    const errorsOnly = await attest('check', EXAMPLE, '--offline', '--cache', dir, '--min-severity', 'error');
    assert.doesNotMatch(errorsOnly.out, /: warning: /);
    assert.equal(errorsOnly.code, 1);
  });

  it('keeps every finding in JSON unless --min-severity is given', async () => {
    const all = JSON.parse((await attest('check', EXAMPLE, '--format', 'json', '--offline', '--cache', dir)).out) as JsonReport;
    assert.ok(all.findings.some((f) => f.severity === 'hint'));
    const errors = JSON.parse((await attest('check', EXAMPLE, '--format', 'json', '--offline', '--cache', dir, '--min-severity', 'error')).out) as JsonReport;
    assert.deepEqual(
      errors.findings,
      all.findings.filter((f) => f.severity === 'error'),
    );
    assert.deepEqual(errors.citations, all.citations);
  });

  it('keeps the JSON report linear in the manuscript: a long sentence is cut, not repeated whole per citation', async () => {
    const sizes: number[] = [];
    for (const citations of [400, 800]) {
      const tex = path.join(dir, `line${citations}.tex`);
      // One "sentence" with no full stop, as a file of one long line gives.
      await fs.writeFile(tex, Array.from({ length: citations }, (_, i) => `word \\cite{k${i}} `).join(''));
      const run = await attest('check', tex, '--format', 'json', '--offline', '--cache', dir);
      const report = JSON.parse(run.out) as JsonReport;
      assert.equal(report.citations.length, citations);
      for (const c of report.citations) {
        assert.ok((c.sentence ?? '').length <= SENTENCE_CHARACTERS);
        assert.match(c.sentence ?? '', /^word word .*…$/s);
      }
      sizes.push(run.out.length);
    }
    assert.ok(sizes[1] < 2.2 * sizes[0], `the report grew from ${sizes[0]} to ${sizes[1]} characters for twice the citations`);
  });

  it('writes the documented JSON report with 1-based positions', async () => {
    const run = await attest('check', EXAMPLE, '--format', 'json', '--offline', '--cache', dir);
    const report = JSON.parse(run.out) as JsonReport;
    assert.equal(report.file, EXAMPLE);
    assert.deepEqual(report.bibliographies, [path.join(REPO_ROOT, 'examples/references.bib')]);
    const missing = report.citations.find((c) => c.key === 'smith2023citations');
    assert.ok(missing);
    const source = (await fs.readFile(EXAMPLE, 'utf8')).split('\n');
    assert.equal(source[missing.line - 1].slice(missing.column - 1, missing.endColumn - 1), 'smith2023citations');
    assert.match(missing.sentence ?? '', /^One widely shared draft even claimed that 94% of citations in arXiv preprints are fabricated\.$/);
    const finding = report.findings.find((f) => f.code === 'missing-key');
    assert.deepEqual(finding && [finding.severity, finding.key, finding.line, finding.column], ['error', 'smith2023citations', missing.line, missing.column]);
    assert.deepEqual(Object.keys(report.findings[0]).slice(0, 7), ['code', 'severity', 'key', 'file', 'line', 'column', 'endLine']);
  });

  it('exits 0 when nothing is wrong, and takes extra bibliographies with --bib', async () => {
    await fs.writeFile(path.join(dir, 'notes.md'), 'Known [@a].\n');
    await fs.writeFile(path.join(dir, 'lib.bib'), '@article{a, title={A}, year={2020}}\n');
    const run = await attest('check', path.join(dir, 'notes.md'), '--bib', path.join(dir, 'lib.bib'), '--offline', '--cache', dir);
    assert.equal(run.code, 0, run.out + run.err);
  });

  it('sums missing abstracts up in one line, and lists them per citation only when asked', async () => {
    const tex = path.join(dir, 'm.tex');
    await fs.writeFile(tex, 'Statistics is done in R \\cite{r}. Trees grow \\cite{trees}. Trees grow again \\cite{trees}.\n\\bibliography{refs}\n');
    await fs.writeFile(
      path.join(dir, 'refs.bib'),
      '@manual{r, title={R: A Language and Environment for Statistical Computing}, abstract={R Foundation for Statistical Computing, Vienna, Austria.}}\n' +
        '@article{trees, title={Trees}, year={2020}}\n',
    );
    const quiet = await attest('check', tex, '--offline', '--cache', dir);
    assert.doesNotMatch(quiet.out, /unverifiable/);
    // Offline, no abstract was looked for: that is not "no abstract".
    assert.doesNotMatch(quiet.out, /have no abstract/);
    assert.match(
      quiet.out,
      /^support: the abstracts of 2 of 2 cited works could not be looked up \(a source did not answer, or the reference was not checked\); the support check had nothing to read for them\.$/m,
    );
    const report = JSON.parse((await attest('check', tex, '--offline', '--cache', dir, '--format', 'json')).out) as { missingAbstracts: unknown };
    assert.deepEqual(report.missingAbstracts, { cited: 2, withoutAbstract: 2, notLookedUp: 2 });
    await fs.writeFile(path.join(dir, 'config.json'), '{"attest.support.reportMissingAbstracts": true}');
    const detailed = await attest('check', tex, '--offline', '--cache', dir, '--config', path.join(dir, 'config.json'), '--min-severity', 'hint');
    assert.equal(detailed.out.match(/\[unverifiable\]/g)?.length, 3);
  });

  it('says which NLI model judged, in the text summary and the JSON report', async () => {
    const tex = path.join(dir, 'm.tex');
    await fs.writeFile(tex, 'Daily aspirin lowers the risk of stroke \\cite{a}.\n\\bibliography{refs}\n');
    await fs.writeFile(
      path.join(dir, 'refs.bib'),
      '@article{a, title={Aspirin}, year={2020}, abstract={We followed 2,000 patients for five years. Daily aspirin reduced stroke risk by 20% in every group we studied.}}\n',
    );
    const model = await writeModelFolder(path.join(dir, 'judge'), { model: nliGraph(), config: nliConfig() });
    const text = await attest('check', tex, '--offline', '--cache', dir, '--nli-model', model);
    assert.match(text.out, /^support: judged by the NLI model judge\.$/m);
    const report = JSON.parse((await attest('check', tex, '--offline', '--cache', dir, '--nli-model', model, '--format', 'json')).out) as {
      supportModel: unknown;
      support: { model: unknown }[];
    };
    assert.equal(report.supportModel, 'judge');
    assert.equal(report.support[0].model, 'judge');
    const none = JSON.parse((await attest('check', tex, '--offline', '--cache', dir, '--nli-model', 'none', '--format', 'json')).out) as { supportModel: unknown };
    assert.equal(none.supportModel, null);
  });

  it('makes no model session for a check with nothing to judge, and judges when there is something', async () => {
    // A graph ONNX Runtime cannot read: the check fails the moment it makes a session, and only then.
    const broken = await writeModelFolder(path.join(dir, 'broken'), { model: new TextEncoder().encode('not an ONNX graph'), config: nliConfig() });
    const tex = path.join(dir, 'm.tex');
    await fs.writeFile(tex, 'Daily aspirin lowers the risk of stroke \\cite{a}.\n\\bibliography{refs}\n');
    await fs.writeFile(path.join(dir, 'refs.bib'), '@article{a, title={Aspirin}, year={2020}}\n');
    const nothing = await attest('check', tex, '--offline', '--cache', dir, '--nli-model', broken);
    assert.equal(nothing.code, 0, nothing.err);
    assert.doesNotMatch(nothing.err, /could not load/);
    await fs.writeFile(
      path.join(dir, 'refs.bib'),
      '@article{a, title={Aspirin}, year={2020}, abstract={We followed 2,000 patients for five years. Daily aspirin reduced stroke risk by 20% in every group we studied.}}\n',
    );
    const something = await attest('check', tex, '--offline', '--cache', dir, '--nli-model', broken);
    assert.equal(something.code, 2);
    assert.match(something.err, /ONNX Runtime could not load .*broken/);
  });

  it('never takes the cached judgements of another model in a folder of the same name', async () => {
    const tex = path.join(dir, 'm.tex');
    await fs.writeFile(tex, 'Daily aspirin lowers the risk of stroke \\cite{a}.\n\\bibliography{refs}\n');
    await fs.writeFile(
      path.join(dir, 'refs.bib'),
      '@article{a, title={Aspirin}, year={2020}, abstract={We followed 2,000 patients for five years. Daily aspirin reduced stroke risk by 20% in every group we studied.}}\n',
    );
    const cache = path.join(dir, 'cache');
    const entailment = async (model: string, lookups = cache): Promise<unknown> => {
      const run = await attest('check', tex, '--offline', '--cache', lookups, '--nli-model', model, '--format', 'json');
      return (JSON.parse(run.out) as { support: { entailment: unknown }[] }).support[0].entailment;
    };
    const first = await writeModelFolder(path.join(dir, 'one', 'judge'), { model: nliGraph(), config: nliConfig() });
    // The same graph, its outputs labelled in another order: another model.
    const second = await writeModelFolder(path.join(dir, 'two', 'judge'), { model: nliGraph(), config: nliConfig({ 0: 'contradiction', 1: 'entailment', 2: 'neutral' }) });
    const own = await entailment(second, path.join(dir, 'fresh'));
    assert.notEqual(await entailment(first), own);
    assert.equal(await entailment(second), own);
    // The first model's folder given the second's files, as a model retrained in place is.
    await fs.cp(second, first, { recursive: true });
    assert.equal(await entailment(first), own);
  });

  it('checks a chapter without a magic comment from the file beside it that includes it', async () => {
    await fs.mkdir(path.join(dir, 'chapters'));
    await fs.writeFile(path.join(dir, 'main.tex'), '\\documentclass{article}\\begin{document}\\input{chapters/one}\\bibliography{refs}\\end{document}\n');
    await fs.writeFile(path.join(dir, 'chapters', 'one.tex'), 'Known \\cite{a}.\n');
    await fs.writeFile(path.join(dir, 'refs.bib'), '@article{a, title={A}, year={2020}}\n');
    const run = await attest('check', path.join(dir, 'chapters', 'one.tex'), '--offline', '--cache', dir);
    assert.equal(run.code, 0, run.out + run.err);
    assert.match(run.out, /\/main\.tex: 1 citation of 1 key, 1 bibliography entry; 0 errors/);
  });

  it('exits 2 with a message on usage and I/O errors', async () => {
    for (const args of [[], ['check'], ['check', 'a.tex', 'b.tex'], ['check', EXAMPLE, '--format', 'xml'], ['check', EXAMPLE, '--nope'], ['frobnicate']]) {
      const run = await attest(...args);
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.err, /Usage|for usage/);
    }
    const absent = await attest('check', path.join(dir, 'absent.tex'));
    assert.equal(absent.code, 2);
    assert.match(absent.err, /cannot read .*absent\.tex/);
  });

  it('refuses a binary manuscript with a clear message', async () => {
    const file = path.join(dir, 'paper.tex');
    await fs.writeFile(file, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    const run = await attest('check', file, '--offline', '--cache', dir);
    assert.equal(run.code, 2);
    assert.match(run.err, /binary file/);
  });

  it('reads Latin-1 files without mangling accents', async () => {
    await fs.writeFile(path.join(dir, 'paper.tex'), Buffer.from('Sch\xf6n \\cite{k}.\\bibliography{r}', 'latin1'));
    await fs.writeFile(path.join(dir, 'r.bib'), Buffer.from('@article{k, title={Gr\xfcn}}', 'latin1'));
    const report = JSON.parse((await attest('check', path.join(dir, 'paper.tex'), '--format', 'json', '--offline', '--cache', dir)).out) as JsonReport;
    assert.equal(report.citations[0].sentence, 'Schön.');
  });

  for (const [name, damaged] of [
    ['cut short', '{'],
    ['null', 'null'],
    ['of another version', '{"version":2}'],
  ]) {
    it(`exits 2 naming a damaged ignore list (${name}) and leaves it as it is`, async () => {
      await fs.writeFile(path.join(dir, 'paper.tex'), 'Deep nets work \\cite{k}.\\bibliography{r}');
      await fs.writeFile(path.join(dir, 'r.bib'), '@article{k, title={Deep nets}, abstract={Deep nets work well.}}');
      const ignoreFile = path.join(dir, '.attest', 'ignore.json');
      await fs.mkdir(path.dirname(ignoreFile));
      await fs.writeFile(ignoreFile, damaged);
      const run = await attest('check', path.join(dir, 'paper.tex'), '--offline', '--cache', dir);
      assert.equal(run.code, 2);
      assert.match(run.err, /^attest check: .*\.attest\/ignore\.json (is not valid JSON|is not an Attest ignore list).*fix or delete it/m);
      assert.equal(await fs.readFile(ignoreFile, 'utf8'), damaged);
    });
  }

  it('refuses a % !TEX root or a YAML bibliography naming an endless /proc file, with a reason', async () => {
    await fs.writeFile(path.join(dir, 'chapter.tex'), '% !TEX root = /proc/self/pagemap\nText.');
    const rooted = await attest('check', path.join(dir, 'chapter.tex'), '--offline', '--cache', dir);
    assert.equal(rooted.code, 2);
    assert.match(rooted.err, /\/proc\/self\/pagemap is over the 50\.0 MB limit for files Attest reads/);
    await fs.writeFile(path.join(dir, 'notes.md'), '---\nbibliography: /proc/self/pagemap\n---\nText [@k].');
    const report = JSON.parse((await attest('check', path.join(dir, 'notes.md'), '--format', 'json', '--offline', '--cache', dir)).out) as JsonReport;
    assert.match(report.findings.find((f) => f.code === 'bib-parse-error')?.message ?? '', /pagemap is over the 50\.0 MB limit/);
  });

  it('never modifies the files it checks', async () => {
    const tex = path.join(dir, 'paper.tex');
    const bib = path.join(dir, 'refs.bib');
    await fs.writeFile(tex, 'A \\cite{x}. \\cite{{{\n\\bibliography{refs}');
    await fs.writeFile(bib, '@article{x, title={Unclosed}\n@@@ junk {{{');
    const before = await Promise.all([fs.readFile(tex), fs.readFile(bib)]);
    await attest('check', tex, '--offline', '--cache', dir);
    assert.deepEqual(await Promise.all([fs.readFile(tex), fs.readFile(bib)]), before);
  });

  it('runs as the attest command from bin/', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      path.join(REPO_ROOT, 'bin/attest.js'),
      'check',
      EXAMPLE,
      '--format',
      'json',
      '--offline',
      '--cache',
      dir,
    ]).catch((error: { stdout: string; code: number }) => {
      assert.equal(error.code, 1);
      return error;
    });
    assert.equal((JSON.parse(stdout) as JsonReport).file, EXAMPLE);
  });

  describe('outside text on a terminal', () => {
    // The tester's inputs: clear screen, colours, window title (OSC 0), clipboard write (OSC 52), BEL, RTL override.
    const ESC = '\x1b';
    const bib = [
      `@article{good, title={T ${ESC}[2J${ESC}[31mRED}, author={Doe${ESC}]0;PWNED-TITLE${ESC}\\, Jane${ESC}]52;c;ZWNobyBwd25lZA==\x07}, year={2020}, journal={J ${ESC}[5mblink}, doi={10.1/${ESC}[2J${ESC}[31mX}}`,
      `@article{esc${ESC}[31mkey, title={T}, author={Smith, A}, year={20${ESC}[1m19}}`,
      '@article{k\u202eevil, title={RTL}, author={Roe, B}, year={2019}}',
      `@misc{bad${ESC}, title={T}, author={Moe, C}}`,
      `@article{x, title={Unbalanced}, author={Z, Q}, note = {a}} junk ${ESC}[2J \b\x85 }`,
    ].join('\n');
    const tex = `\\documentclass{article}\\begin{document}\nWe show a result \\cite{good}. Another \\cite{missing${ESC}[2J${ESC}]0;OWNED\x07}. RTL \\cite{k\u202eevil} \\cite{gone\u202eevil}.\n\\bibliography{refs}\\end{document}\n`;
    /** Any control character a terminal acts on, or that reorders the text after it; a line break is the report's own. */
    const RAW = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

    it('shows the control characters of keys, .bib values and parse errors as escapes', async () => {
      await fs.writeFile(path.join(dir, 'refs.bib'), bib);
      await fs.writeFile(path.join(dir, 'paper.tex'), tex);
      const run = await attest('check', path.join(dir, 'paper.tex'), '--offline', '--cache', dir, '--min-severity', 'hint');
      assert.doesNotMatch(run.out, RAW);
      assert.match(run.out, /'missing\\x1b\[2J\\x1b\]0;OWNED\\x07' is not in any bibliography/);
      assert.match(run.out, /'gone\\u202eevil' is not in any bibliography/);
      assert.match(run.out, /"10\.1\/\\x1b\[2J\\x1b\[31mX" is not a DOI/);
      assert.match(run.out, /found character U\+001B in entry 'esc'/);
    });

    it('shows a line break in a file name as an escape, so it cannot start a line of its own', async () => {
      const weird = path.join(dir, `we"ird\n$(touch PWNED)\`id\`${ESC}[31m.tex`);
      await fs.writeFile(path.join(dir, 'refs.bib'), '@article{good, title={T}, author={Doe, J}, year={2020}}\n');
      await fs.writeFile(weird, '\\documentclass{article}\\begin{document}\nA claim \\cite{nokey}.\n\\bibliography{refs}\\end{document}\n');
      const run = await attest('check', weird, '--offline', '--cache', dir);
      assert.doesNotMatch(run.out, RAW);
      const lines = run.out.split('\n');
      assert.ok(!lines.some((line) => line.startsWith('$(touch')), run.out);
      assert.match(lines[0], /we"ird\\x0a\$\(touch PWNED\)`id`\\x1b\[31m\.tex:2:\d+: error: 'nokey' is not in any bibliography/);
    });

    it('escapes what it says on standard error too', async () => {
      const missing = path.join(dir, `gone${ESC}]0;OWNED\x07${ESC}[2J.tex`);
      const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/attest.js'), 'check', missing, '--offline', '--cache', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const [code] = (await once(child, 'close')) as [number | null];
      assert.equal(code, 2);
      assert.doesNotMatch(err, RAW);
      assert.match(err, /gone\\x1b\]0;OWNED\\x07\\x1b\[2J\.tex: no such file/);
    });
  });

  it('ends quietly when its reader closes the pipe early (attest check … | head)', async () => {
    const bib = path.join(dir, 'same.bib');
    // 5,000 duplicate-key warnings: far more text than a pipe holds, all warnings, so the check itself exits 0.
    await fs.writeFile(bib, Array.from({ length: 5000 }, () => '@misc{same, title={A title}, year={2020}}\n').join(''));
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/attest.js'), 'check', bib, '--offline', '--cache', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    const [code] = (await once(child, 'close')) as [number | null];
    assert.equal(err, '');
    assert.equal(code, 0);
  });
});

describe('attest check looking references up', () => {
  const records = [
    {
      source: 'crossref' as const,
      id: 'lstm',
      title: 'Long Short-Term Memory',
      authors: [
        { family: 'Hochreiter', given: 'Sepp' },
        { family: 'Schmidhuber', given: 'Jürgen' },
      ],
      year: 1997,
      venue: 'Neural Computation',
      doi: '10.1162/neco.1997.9.8.1735',
      abstract:
        'Learning to store information over extended time intervals by recurrent backpropagation takes a very long time. We introduce a novel, efficient, gradient-based method called long short-term memory.',
    },
    {
      source: 'crossref' as const,
      id: 'resnet',
      title: 'Deep Residual Learning for Image Recognition',
      authors: [
        { family: 'He', given: 'Kaiming' },
        { family: 'Zhang', given: 'Xiangyu' },
        { family: 'Ren', given: 'Shaoqing' },
        { family: 'Sun', given: 'Jian' },
      ],
      year: 2016,
      venue: 'IEEE Conference on Computer Vision and Pattern Recognition',
      doi: '10.1109/cvpr.2016.90',
    },
  ];
  const bib = [
    '@article{lstm, author={Hochreiter, Sepp and Schmidhuber, J{\\"u}rgen}, title={Long Short-Term Memory}, journal={Neural Computation}, year={1997}, doi={10.1162/neco.1997.9.8.1735}}',
    '@inproceedings{resnet, author={He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian}, title={Deep Residual Learning for Image Recognition}, booktitle={CVPR}, year={2012}}',
    '@article{invented, author={Smith, Alex}, title={Recurrent Residual Gates Are All You Need}, journal={Nature}, year={2023}}',
  ].join('\n');
  let dir: string;
  let server: BibliographicServer;
  let config: string;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-refs-'));
    server = new BibliographicServer(records);
    const base = await server.start();
    config = path.join(dir, 'attest.json');
    await fs.writeFile(
      config,
      JSON.stringify({
        'attest.sources.enabled': ['crossref', 'openalex'],
        'attest.sources.email': 'test@example.org',
        'attest.sources.crossref.baseUrl': `${base}/crossref`,
        'attest.sources.openalex.baseUrl': `${base}/openalex`,
      }),
    );
    await fs.writeFile(path.join(dir, 'paper.tex'), 'LSTMs \\cite{lstm}. ResNets \\cite{resnet}. Both \\cite{invented}.\n\\bibliography{refs}');
    await fs.writeFile(path.join(dir, 'refs.bib'), bib);
  });
  afterEach(async () => {
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const check = (...flags: string[]): Promise<Run> => attest('check', path.join(dir, 'paper.tex'), '--format', 'json', '--cache', path.join(dir, 'cache'), ...flags);

  it('reports a fabricated reference as an error and wrong metadata as a warning, with the evidence', async () => {
    const run = await check('--config', config);
    assert.equal(run.code, 1, run.err);
    const report = JSON.parse(run.out) as JsonReport & { references: { key: string; status: string; abstract?: { text: string; from: string } }[] };
    assert.deepEqual(
      report.references.map((r) => [r.key, r.status]),
      [
        ['lstm', 'found'],
        ['resnet', 'metadata-mismatch'],
        ['invented', 'not-found'],
      ],
    );
    assert.match(report.references[0].abstract?.text ?? '', /^Learning to store information/);
    const notFound = report.findings.filter((f) => f.code === 'not-found');
    assert.deepEqual(
      notFound.map((f) => [path.basename(f.file), f.severity]),
      [
        ['paper.tex', 'error'],
        ['refs.bib', 'error'],
      ],
    );
    const mismatch = report.findings.find((f) => f.code === 'metadata-mismatch') as unknown as {
      evidence: { source: string; differences: { field: string; expected: string; found: string }[] };
    };
    assert.equal(mismatch.evidence.source, 'Crossref');
    assert.deepEqual(mismatch.evidence.differences, [{ field: 'year', expected: '2012', found: '2016' }]);
  });

  it('answers from its cache after a restart, offline, sending nothing', async () => {
    await check('--config', config);
    const sent = server.requests;
    const run = await check('--config', config, '--offline');
    assert.equal(server.requests, sent);
    const report = JSON.parse(run.out) as { references: { status: string }[] };
    assert.deepEqual(
      report.references.map((r) => r.status),
      ['found', 'metadata-mismatch', 'not-found'],
    );
  });

  it('never calls a reference fabricated when it could not ask, and says so when asked to', async () => {
    const offline = await check('--config', config, '--offline');
    assert.equal(server.requests, 0);
    assert.equal(offline.code, 0, offline.out);
    const shown = JSON.parse((await check('--config', config, '--offline', '--show-unchecked')).out) as JsonReport;
    assert.deepEqual(
      shown.findings.filter((f) => f.code === 'unchecked').map((f) => [f.key, f.severity]),
      [
        ['lstm', 'hint'],
        ['resnet', 'hint'],
        ['invented', 'hint'],
      ],
    );
    const text = await attest('check', path.join(dir, 'paper.tex'), '--cache', path.join(dir, 'cache'), '--config', config, '--offline');
    const summary = text.out.split('\n').filter((line) => /not checked/.test(line) && !line.startsWith('support:'));
    assert.deepEqual(summary, ['Offline: 3 references with no answer saved from an earlier check were not checked; none is marked wrong.'], text.out);
  });

  it('lists the references it could not check when --show-unchecked alone asks, whatever the least severity shown', async () => {
    const text = await attest('check', path.join(dir, 'paper.tex'), '--cache', path.join(dir, 'cache'), '--config', config, '--offline', '--show-unchecked');
    const listed = text.out.split('\n').filter((line) => /\[unchecked\]$/.test(line));
    assert.deepEqual(
      listed.map((line) => /'(\w+)' could not be checked/.exec(line)?.[1]),
      ['lstm', 'resnet', 'invented'],
      text.out,
    );
    assert.match(
      listed[0],
      /refs\.bib:1:10: hint: 'lstm' could not be checked: No source could answer\. Crossref and OpenAlex had no answer saved from an earlier check \(offline\)\. \[unchecked\]$/,
    );
  });

  it('says a book the sources answered for has no abstract, not that no source answered', async () => {
    await fs.appendFile(path.join(dir, 'refs.bib'), '\n@book{manual, author={Knuth, Donald}, title={The Art of Unwritten Programs}, publisher={Nowhere Press}, year={1999}}\n');
    await fs.appendFile(path.join(dir, 'paper.tex'), '\nAs the manual says \\cite{manual}.\n');
    const text = await attest('check', path.join(dir, 'paper.tex'), '--cache', path.join(dir, 'cache'), '--config', config);
    assert.match(text.out, /^support: 3 of 4 cited works have no abstract to check against\.$/m, text.out);
    assert.doesNotMatch(text.out, /no source answered|not looked up|could not be looked up/, text.out);
  });

  it('looks up every entry of a .bib file given alone, cited or not', async () => {
    await fs.appendFile(path.join(dir, 'refs.bib'), '\n@article{uncited, author={Moreau, Hélène}, title={A Study Nobody Wrote}, journal={Science}, year={2021}}\n');
    const run = await attest('check', path.join(dir, 'refs.bib'), '--format', 'json', '--config', config, '--cache', path.join(dir, 'cache'));
    assert.equal(run.code, 1, run.err);
    const report = JSON.parse(run.out) as JsonReport & { references: { key: string; status: string }[] };
    assert.deepEqual(
      report.references.map((r) => [r.key, r.status]),
      [
        ['lstm', 'found'],
        ['resnet', 'metadata-mismatch'],
        ['invented', 'not-found'],
        ['uncited', 'not-found'],
      ],
    );
    assert.deepEqual(report.citations, []);
    assert.deepEqual(
      report.findings.filter((f) => f.code === 'not-found').map((f) => [path.basename(f.file), f.key]),
      [
        ['refs.bib', 'invented'],
        ['refs.bib', 'uncited'],
      ],
    );
    const text = await attest('check', path.join(dir, 'refs.bib'), '--config', config, '--cache', path.join(dir, 'cache'));
    assert.match(text.out, /refs\.bib: 4 entries; 2 errors, 1 warning,/);
  });

  it('exits 2 on a config file it cannot use', async () => {
    await fs.writeFile(config, '{ not json');
    const run = await check('--config', config);
    assert.equal(run.code, 2);
    assert.match(run.err, /not valid JSON/);
  });
});

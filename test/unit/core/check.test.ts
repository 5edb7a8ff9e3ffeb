import assert from 'node:assert/strict';
import * as path from 'node:path';
import { checkManuscript, CheckSession, type CheckResult } from '../../../src/core/check';
import { FsWorkspace } from '../../../src/core/fsWorkspace';
import type { FindingCode } from '../../../src/core/findings';
import { mergeFindings } from '../../../src/core/mergeFindings';
import { manuscriptRootOf } from '../../../src/core/manuscript/project';
import { IN_THREAD, type Parsers } from '../../../src/core/parsing/parsers';
import { ParserThread } from '../../../src/core/parsing/thread';
import { FIXTURES, MemoryWorkspace } from '../support/helpers';

async function checkReal(relative: string): Promise<CheckResult> {
  const result = await checkManuscript(path.join(FIXTURES, 'manuscripts', relative), new FsWorkspace(), new CheckSession());
  assert.ok(result);
  return result;
}

function count(result: CheckResult, code: FindingCode): number {
  return result.findings.filter((f) => f.code === code).length;
}

/** Parses as the CLI does, a turn of the event loop later, as the parser thread answers; counts each file it is asked to parse. */
class CountingParsers implements Parsers {
  readonly asked: string[] = [];
  /** Files whose next parse fails once. */
  readonly failNext = new Set<string>();

  async source(file: string, text: string, macros?: ReadonlyMap<string, string>): ReturnType<Parsers['source']> {
    await this.turn(file);
    return IN_THREAD.source(file, text, macros);
  }

  async bibliography(file: string, text: string): ReturnType<Parsers['bibliography']> {
    await this.turn(file);
    return IN_THREAD.bibliography(file, text);
  }

  times(file: string): number {
    return this.asked.filter((f) => f === file).length;
  }

  private async turn(file: string): Promise<void> {
    this.asked.push(file);
    await new Promise((resolve) => setImmediate(resolve));
    if (this.failNext.delete(file)) throw new Error(`The parser thread stopped while reading ${file}.`);
  }
}

function distinctKeys(result: CheckResult): number {
  return new Set(result.citations.map((c) => c.key)).size;
}

describe('checking the real manuscripts', () => {
  it('astro_celerite: 181 citations of 105 keys, 125 entries, 20 unused, none missing', async () => {
    const result = await checkReal('astro_celerite/paper/ms.tex');
    assert.equal(result.citations.length, 181);
    assert.equal(distinctKeys(result), 105);
    assert.equal(
      result.bibliographies.reduce((n, b) => n + b.entries.length, 0),
      125,
    );
    assert.equal(count(result, 'unused-entry'), 20);
    assert.equal(count(result, 'missing-key'), 0);
    // It \input's generated files that are not in the repository: each is a warning, not a failure.
    const missing = result.findings.filter((f) => f.code === 'missing-file');
    assert.ok(missing.some((f) => f.message.includes('figures/simulated/correct-params')));
    assert.ok(missing.every((f) => f.severity === 'warning' && f.file.endsWith('ms.tex')));
  });

  it("astro_celerite: the numbers its \\include'd figures/examples-macros.tex defines print in the claims of ms.tex", async () => {
    const result = await checkReal('astro_celerite/paper/ms.tex');
    const claims = result.citations.filter((c) => c.key === 'Sokal:1989').map((c) => c.claim?.text);
    assert.ok(
      claims.includes(
        'To assess convergence, we estimate the integrated autocorrelation time of the chain averaged across parameters and find that the chain results in 1737 effective samples.',
      ),
      claims.join('\n'),
    );
  });

  it('control_dynonet: 27 citations of 20 keys, 23 distinct entries, 3 unused, the duplicate reported', async () => {
    const result = await checkReal('control_dynonet/doc/paper/ms.tex');
    assert.equal(result.citations.length, 27);
    assert.equal(distinctKeys(result), 20);
    const entries = result.bibliographies.flatMap((b) => b.entries);
    assert.equal(new Set(entries.map((e) => e.key)).size, 23);
    assert.equal(count(result, 'unused-entry'), 3);
    assert.equal(count(result, 'missing-key'), 0);
    const duplicate = result.findings.filter((f) => f.code === 'duplicate-key');
    assert.deepEqual(
      duplicate.map((f) => [f.key, f.range.start.line + 1]),
      [['ogata1995discrete', 214]],
    );
  });

  it('md_joss_gmr: 8 citations of 8 keys, all resolved', async () => {
    const result = await checkReal('md_joss_gmr/paper/paper.md');
    assert.equal(result.citations.length, 8);
    assert.equal(distinctKeys(result), 8);
    assert.equal(count(result, 'missing-key'), 0);
    assert.equal(count(result, 'unused-entry'), 0);
  });
});

describe('checking a project', () => {
  const bib = '@article{known, title={Known}, author={Dunn, J.}, year={2020}}\n@article{spare, title={Spare}, year={2021}}\n';

  it('reports a cited key that no bibliography defines, at the key', async () => {
    const ws = new MemoryWorkspace({ '/p/main.tex': 'It holds \\cite{known,unknown}.\n\\bibliography{refs}', '/p/refs.bib': bib });
    const result = await checkManuscript('/p/main.tex', ws, new CheckSession());
    const missing = result?.findings.filter((f) => f.code === 'missing-key');
    assert.deepEqual(
      missing?.map((f) => [f.key, f.severity, f.range.start.character]),
      [['unknown', 'error', 21]],
    );
    assert.match(missing?.[0].message ?? '', /'unknown' is not in any bibliography \(refs\.bib\)/);
  });

  it('suggests the key that differs only in case', async () => {
    const ws = new MemoryWorkspace({ '/p/main.tex': '\\cite{Known}\\bibliography{refs}', '/p/refs.bib': bib });
    const result = await checkManuscript('/p/main.tex', ws, new CheckSession());
    assert.match(result?.findings.find((f) => f.code === 'missing-key')?.message ?? '', /Did you mean 'known'\?/);
  });

  it('offers the keys a mistyped key may have meant, closest first, and no guess for short keys', async () => {
    const entries = '@article{hochreiter1997long, title={L}}\n@article{hochreiter1997lung, title={M}}\n@article{abc, title={A}}\n';
    const ws = new MemoryWorkspace({ '/p/main.tex': '\\cite{hochreiter1997lnog,hochreiter1997lon,abd}\\bibliography{refs}', '/p/refs.bib': entries });
    const result = await checkManuscript('/p/main.tex', ws, new CheckSession());
    const replacements = result?.findings.filter((f) => f.code === 'missing-key').map((f) => [f.key, f.replacements]);
    assert.deepEqual(replacements, [
      ['hochreiter1997lnog', ['hochreiter1997long', 'hochreiter1997lung']],
      ['hochreiter1997lon', ['hochreiter1997long', 'hochreiter1997lung']],
      ['abd', []],
    ]);
  });

  it('follows \\input from the root and reports missing files as warnings at the command', async () => {
    const ws = new MemoryWorkspace({
      '/p/main.tex': '\\input{sec/intro}\n\\input{sec/absent}\n\\bibliography{refs}',
      '/p/sec/intro.tex': 'Intro \\cite{known}. \\input{sec/nested}',
      '/p/sec/nested.tex': 'Nested \\cite{spare}.',
      '/p/refs.bib': bib,
    });
    const result = await checkManuscript('/p/main.tex', ws, new CheckSession());
    assert.deepEqual(
      result?.citations.map((c) => [c.key, path.basename(c.file)]),
      [
        ['known', 'intro.tex'],
        ['spare', 'nested.tex'],
      ],
    );
    const missing = result?.findings.filter((f) => f.code === 'missing-file');
    assert.deepEqual(
      missing?.map((f) => [f.severity, f.file, f.range.start.line]),
      [['warning', '/p/main.tex', 1]],
    );
    assert.equal(result?.findings.filter((f) => f.code === 'unused-entry').length, 0);
  });

  for (const where of ['in this thread', 'in the parser thread']) {
    it(`expands a preamble's macros in the claims of every included file, parsed ${where} (control_dynonet)`, async () => {
      const ws = new MemoryWorkspace({
        '/p/ms.tex': '\\documentclass{article}\n\\input{macros}\n\\begin{document}\n\\input{sec/intro}\n\\end{document}',
        '/p/macros.tex': '\\newcommand{\\Name}{\\emph{dynoNet}} % the architecture\n\\newcommand{\\mat}[1]{\\bm{#1}}',
        '/p/sec/intro.tex':
          'Moreover, \\Name \\ networks can be trained \\emph{end-to-end} by plain \\emph{back-propagation} \\cite{baydin2017automatic}.\nThe {\\Name} model has $\\mat{x}$ states \\cite{giri2010block}.',
      });
      const thread = where === 'in the parser thread' ? new ParserThread() : undefined;
      try {
        const result = await checkManuscript('/p/ms.tex', ws, new CheckSession(thread));
        assert.deepEqual(
          result?.citations.map((c) => c.claim?.text),
          ['Moreover, dynoNet networks can be trained end-to-end by plain back-propagation.', 'The dynoNet model has x states.'],
        );
      } finally {
        await thread?.dispose();
      }
    });
  }

  it('does not loop on files that include each other', async () => {
    const ws = new MemoryWorkspace({ '/p/a.tex': '\\input{b}\\cite{x}', '/p/b.tex': '\\input{a}' });
    const result = await checkManuscript('/p/a.tex', ws, new CheckSession());
    assert.deepEqual(
      result?.manuscript.sources.map((s) => path.basename(s.file)),
      ['a.tex', 'b.tex'],
    );
  });

  it('checks from the root named by % !TEX root', async () => {
    const ws = new MemoryWorkspace({ '/p/ch/one.tex': '% !TEX root = ../main.tex\nText.', '/p/main.tex': '\\input{ch/one}' });
    assert.equal(await manuscriptRootOf('/p/ch/one.tex', ws, new CheckSession().manuscripts), '/p/main.tex');
  });

  it('checks a file without a magic comment from the workspace file that includes it', async () => {
    const files = {
      '/p/main.tex': '\\documentclass{article}\\begin{document}\\include{chapters/one}\\end{document}',
      '/p/chapters/one.tex': 'One \\input{chapters/two}',
      '/p/chapters/two.tex': 'Two \\cite{x}.',
      '/p/other.tex': '\\documentclass{article}\\begin{document}Alone.\\end{document}',
      '/p/notes.tex': 'Nobody includes these notes.',
    };
    const ws = new MemoryWorkspace(files);
    const cache = new CheckSession().manuscripts;
    const candidates = async (): Promise<string[]> => Object.keys(files);
    assert.equal(await manuscriptRootOf('/p/chapters/one.tex', ws, cache, candidates), '/p/main.tex');
    assert.equal(await manuscriptRootOf('/p/chapters/two.tex', ws, cache, candidates), '/p/main.tex');
    assert.equal(await manuscriptRootOf('/p/other.tex', ws, cache, candidates), '/p/other.tex');
    assert.equal(await manuscriptRootOf('/p/notes.tex', ws, cache, candidates), '/p/notes.tex');
  });

  describe('a chapter in a folder of its own', () => {
    const files = {
      '/p/main.tex': '\\documentclass{article}\\begin{document}\\include{chapters/one}\\end{document}',
      '/p/chapters/one.tex': 'One \\cite{known}.\n\\input{chapters/two}\n\\input{chapters/absent}\n\\bibliography{refs}',
      '/p/chapters/two.tex': 'Two \\cite{spare}.',
      '/p/refs.bib': bib,
    };
    const candidates = async (): Promise<string[]> => Object.keys(files);

    it("is parsed once while its root is looked for and the root is checked, its names resolved in the root's folder", async () => {
      const parsers = new CountingParsers();
      const session = new CheckSession(parsers);
      const ws = new MemoryWorkspace(files);
      assert.equal(await manuscriptRootOf('/p/chapters/one.tex', ws, session.manuscripts, candidates), '/p/main.tex');
      const result = await checkManuscript('/p/main.tex', ws, session);
      assert.deepEqual(
        result?.citations.map((c) => [c.key, c.file, c.range.start]),
        [
          ['known', '/p/chapters/one.tex', { line: 0, character: 10 }],
          ['spare', '/p/chapters/two.tex', { line: 0, character: 10 }],
        ],
      );
      assert.deepEqual(result?.bibliographyFiles, ['/p/refs.bib']);
      assert.deepEqual(
        result?.findings.map((f) => [f.code, f.file, f.range.start.line, f.message]),
        [['missing-file', '/p/chapters/one.tex', 2, "File 'chapters/absent' not found (looked for /p/chapters/absent.tex)."]],
      );
      assert.deepEqual([parsers.times('/p/main.tex'), parsers.times('/p/chapters/one.tex'), parsers.times('/p/chapters/two.tex')], [1, 1, 1]);
    });

    it('read as its own root resolves its names in its own folder', async () => {
      const result = await checkManuscript('/p/chapters/one.tex', new MemoryWorkspace(files), new CheckSession());
      assert.deepEqual(
        result?.manuscript.missingIncludes.map((m) => m.reference.path),
        ['/p/chapters/chapters/two.tex', '/p/chapters/chapters/absent.tex'],
      );
      // Without the .bib, LaTeX reads the root's compiled .bbl, looked for beside the chapter too.
      assert.deepEqual(result?.bibliographyFiles, ['/p/chapters/refs.bib', '/p/chapters/one.bbl']);
    });
  });

  it('parses each file once for checks that ask at the same time', async () => {
    const parsers = new CountingParsers();
    const session = new CheckSession(parsers);
    const ws = new MemoryWorkspace({ '/p/main.tex': '\\input{sec/intro}\\cite{known}\\bibliography{refs}', '/p/sec/intro.tex': 'Intro \\cite{spare}.', '/p/refs.bib': bib });
    const [first, second] = await Promise.all([checkManuscript('/p/main.tex', ws, session), checkManuscript('/p/main.tex', ws, session)]);
    assert.deepEqual(first?.findings, []);
    assert.deepEqual(second?.findings, []);
    assert.deepEqual(parsers.asked.sort(), ['/p/main.tex', '/p/refs.bib', '/p/sec/intro.tex']);
  });

  it('parses a file again after its parse failed, rather than keeping the failure', async () => {
    const parsers = new CountingParsers();
    const session = new CheckSession(parsers);
    const ws = new MemoryWorkspace({ '/p/main.tex': '\\cite{known,spare}\\bibliography{refs}', '/p/refs.bib': bib });
    parsers.failNext.add('/p/main.tex');
    parsers.failNext.add('/p/refs.bib');
    await assert.rejects(checkManuscript('/p/main.tex', ws, session), /stopped while reading \/p\/main.tex/);
    await assert.rejects(checkManuscript('/p/main.tex', ws, session), /stopped while reading \/p\/refs.bib/);
    const result = await checkManuscript('/p/main.tex', ws, session);
    assert.deepEqual(result?.findings, []);
    assert.deepEqual([parsers.times('/p/main.tex'), parsers.times('/p/refs.bib')], [2, 2]);
  });

  it('reports a named bibliography that does not exist, and every key as unresolvable', async () => {
    const ws = new MemoryWorkspace({ '/p/main.tex': '\\cite{a}\n\\bibliography{nothere}' });
    const result = await checkManuscript('/p/main.tex', ws, new CheckSession());
    assert.deepEqual(
      result?.findings.map((f) => [f.code, f.severity]),
      [
        ['missing-key', 'error'],
        ['missing-file', 'warning'],
      ],
    );
    assert.match(result?.findings[0].message ?? '', /names no bibliography file that exists/);
  });

  it('treats @mentions in a Markdown file without a bibliography as mentions, not citations', async () => {
    const ws = new MemoryWorkspace({ '/p/README.md': 'Thanks to @octocat for the fix.' });
    const result = await checkManuscript('/p/README.md', ws, new CheckSession());
    assert.deepEqual(result?.findings, []);
  });

  it("says what the manuscript's own tool does with a key defined twice", async () => {
    const twice = `${bib}@article{known, title={Again}}\n`;
    const tex = await checkManuscript('/p/main.tex', new MemoryWorkspace({ '/p/main.tex': '\\cite{known}\\bibliography{refs}', '/p/refs.bib': twice }), new CheckSession());
    const md = await checkManuscript('/p/paper.md', new MemoryWorkspace({ '/p/paper.md': '---\nbibliography: refs.bib\n---\n[@known]', '/p/refs.bib': twice }), new CheckSession());
    assert.match(tex?.findings.find((f) => f.code === 'duplicate-key')?.message ?? '', /BibTeX and biber use the first definition/);
    assert.match(md?.findings.find((f) => f.code === 'duplicate-key')?.message ?? '', /pandoc's citeproc may use either definition/);
  });

  it('uses extra bibliographies given by option', async () => {
    const ws = new MemoryWorkspace({ '/p/notes.md': 'As shown [@known].', '/lib/refs.bib': bib });
    const result = await checkManuscript('/p/notes.md', ws, new CheckSession(), { extraBibliographies: ['/lib/refs.bib'] });
    assert.equal(result?.findings.filter((f) => f.code === 'missing-key').length, 0);
  });

  it('counts \\nocite{*} as citing every entry', async () => {
    const ws = new MemoryWorkspace({ '/p/main.tex': '\\nocite{*}\\bibliography{refs}', '/p/refs.bib': bib });
    const result = await checkManuscript('/p/main.tex', ws, new CheckSession());
    assert.equal(result?.findings.length, 0);
  });

  it('reports bibliography parse errors and still resolves the entries around them', async () => {
    const broken = '@article{first, title={A}}\n@article{broken, title={B}\n@article{last, title={C}}\n';
    const ws = new MemoryWorkspace({ '/p/main.tex': '\\cite{first,last}\\bibliography{refs}', '/p/refs.bib': broken });
    const result = await checkManuscript('/p/main.tex', ws, new CheckSession());
    assert.deepEqual(
      result?.findings.map((f) => [f.code, f.range.start.line]),
      [['bib-parse-error', 1]],
    );
  });

  it('re-uses parsed files that did not change, and sees a change', async () => {
    const ws = new MemoryWorkspace({ '/p/main.tex': '\\cite{known}\\bibliography{refs}', '/p/refs.bib': bib });
    const session = new CheckSession();
    const first = await checkManuscript('/p/main.tex', ws, session);
    const second = await checkManuscript('/p/main.tex', ws, session);
    assert.equal(first?.bibliographies[0], second?.bibliographies[0]);
    ws.files.set('/p/main.tex', '\\cite{gone}\\bibliography{refs}');
    const third = await checkManuscript('/p/main.tex', ws, session);
    assert.deepEqual(
      third?.findings.filter((f) => f.code === 'missing-key').map((f) => f.key),
      ['gone'],
    );
  });
});

describe('merging the findings of several manuscripts', () => {
  it('reports an entry unused only when no manuscript reading its bibliography cites it', async () => {
    const bib = '@article{a, title={A}}\n@article{b, title={B}}\n';
    const ws = new MemoryWorkspace({ '/p/one.tex': '\\cite{a}\\bibliography{refs}', '/p/two.tex': '\\cite{a,b}\\bibliography{refs}', '/p/refs.bib': bib });
    const session = new CheckSession();
    const one = await checkManuscript('/p/one.tex', ws, session);
    const two = await checkManuscript('/p/two.tex', ws, session);
    assert.ok(one && two);
    assert.equal(one.findings.filter((f) => f.code === 'unused-entry').length, 1);
    assert.deepEqual(mergeFindings([one, two]).get('/p/refs.bib') ?? [], []);
    assert.deepEqual(
      mergeFindings([one])
        .get('/p/refs.bib')
        ?.map((f) => f.key),
      ['b'],
    );
  });
});

describe('front matter Attest cannot read', () => {
  async function frontMatterFindings(yaml: string): Promise<string[]> {
    const result = await checkManuscript(
      '/p/paper.md',
      new MemoryWorkspace({ '/p/paper.md': `---\n${yaml}\n---\nText [@a].`, '/p/refs.bib': '@article{a, title={A}}' }),
      new CheckSession(),
    );
    return (result?.findings ?? [])
      .filter((f) => f.code === 'front-matter-unread')
      .map((f) => `${f.severity} ${f.range.start.line}:${f.range.start.character}-${f.range.end.character} ${f.message}`);
  }

  it('warns at the opening line that a front matter too large, too deep or not YAML was skipped, naming why', async () => {
    const missed = 'the bibliographies and nocite it names may be missed.';
    assert.deepEqual(await frontMatterFindings(`bibliography: refs.bib\nabstract: "${'x'.repeat(70_000)}"`), [
      `warning 0:0-3 The YAML front matter is larger than 64 KB, so it was not read: ${missed}`,
    ]);
    assert.deepEqual(await frontMatterFindings(`bibliography: refs.bib\nx: ${'['.repeat(200)}${']'.repeat(200)}`), [
      `warning 0:0-3 The YAML front matter is nested more than 128 levels deep, so it was not read: ${missed}`,
    ]);
    const [malformed] = await frontMatterFindings('bibliography: refs.bib\ntitle: "unclosed');
    assert.match(malformed, /^warning 0:0-3 The YAML front matter is not valid YAML \(.*\), which pandoc refuses: the bibliographies/);
  });

  it('says nothing of a front matter it reads', async () => {
    assert.deepEqual(await frontMatterFindings('title: "A [draft] {x}"\nbibliography: refs.bib'), []);
  });
});

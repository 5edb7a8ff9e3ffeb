import assert from 'node:assert/strict';
import { formatJson } from '../../../../src/cli/report';
import { checkManuscript, CheckSession } from '../../../../src/core/check';
import type { FullTextResult, Passage, FullTextProvider } from '../../../../src/core/fulltext/types';
import * as analyzer from '../../../../src/core/index/analyzer';
import { LookupCache } from '../../../../src/core/sources/cache';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import { parseEuropePmcResult } from '../../../../src/core/sources/europepmc';
import { checkSupport, idsOf, supportFindings, withSupportFindings } from '../../../../src/core/verify/claims';
import { judgeSupport } from '../../../../src/core/verify/support';
import { MemoryWorkspace } from '../../support/helpers';
import { overlap, RuleNli } from '../../support/ruleNli';
import { makeTempDir } from '../../support/tempDir';

const nli = (): { model: RuleNli; id: string } => ({ model: new RuleNli(), id: 'rules' });
const ABSTRACT = ['We built a cache for web servers.', 'It was deployed at three sites.'];
const RESULTS: Passage = { section: 'Results', page: 6, text: 'Across all sites the cache increases speed by a factor of two.' };
const METHODS: Passage = { section: 'Methods', page: 3, text: 'Speed was measured as requests served per second.' };

describe('judging a claim against the passages of a full text', () => {
  it('finds support in the full text that the abstract lacks, and says where it is', async () => {
    const abstractOnly = await judgeSupport('The cache increases speed.', ABSTRACT, { relevance: overlap, nli: nli() });
    assert.equal(abstractOnly.label, 'unsupported');
    assert.deepEqual(abstractOnly.evidence, { from: 'abstract' });
    const withText = await judgeSupport('The cache increases speed.', ABSTRACT, { relevance: overlap, nli: nli() }, [METHODS, RESULTS]);
    assert.equal(withText.label, 'supported');
    assert.equal(withText.sentence, RESULTS.text);
    assert.deepEqual(withText.evidence, { from: 'full text', section: 'Results', page: 6 });
  });

  it('finds a contradiction that only the body shows', async () => {
    const body: Passage = { section: 'Discussion', text: 'Unexpectedly, under load the cache decreases speed.' };
    const j = await judgeSupport('The cache increases speed under load.', ABSTRACT, { relevance: overlap, nli: nli() }, [body]);
    assert.equal(j.label, 'contradicted');
    assert.deepEqual(j.evidence, { from: 'full text', section: 'Discussion' });
  });

  it('judges against the full text when there is no abstract', async () => {
    const j = await judgeSupport('The cache increases speed.', undefined, { relevance: overlap, nli: nli() }, [RESULTS]);
    assert.equal(j.label, 'supported');
  });
});

describe('checking a manuscript with full texts', () => {
  const bib =
    '@article{cache, title={A cache}, abstract={We built a cache for web servers that keeps pages near the readers who ask for them. It was deployed at three sites.}}\n@article{other, title={Other}, abstract={The cache needs little memory. Its footprint stayed small on every one of the servers that were measured.}}';
  const tex = 'The cache increases speed \\cite{cache}. The cache saves memory \\cite{other}.\n\\bibliography{refs}';

  async function check(fullTexts: FullTextProvider, cache?: LookupCache, more = '') {
    const ws = new MemoryWorkspace({ '/p/m.tex': `${more}${tex}`, '/p/refs.bib': bib });
    const result = await checkManuscript('/p/m.tex', ws, new CheckSession());
    assert.ok(result);
    return { result, supports: await checkSupport(result, { relevance: overlap, nli: nli() }, cache, fullTexts) };
  }

  const texts: Record<string, FullTextResult> = {
    cache: { fullText: { source: 'europepmc', location: 'PMC7000001', passages: [METHODS, RESULTS] } },
    other: { reason: 'the JATS full text has no body (only the front matter is open)' },
  };
  const provider: FullTextProvider = async (entry) => texts[entry.key];

  it('reports what each judgement read, and where the evidence is, in the JSON report', async () => {
    const { result, supports } = await check(provider);
    const report = JSON.parse(formatJson(withSupportFindings(result, supports))) as { support: Record<string, unknown>[] };
    assert.deepEqual(report.support[0].evidence, { from: 'full text', section: 'Results', page: 6, place: 'Results, p. 6', text: RESULTS.text });
    assert.deepEqual(report.support[0].fullText, { source: 'europepmc', location: 'PMC7000001' });
    assert.equal(report.support[0].label, 'supported');
    assert.deepEqual(report.support[1].evidence, { from: 'abstract', text: 'The cache needs little memory.' });
    assert.deepEqual(report.support[1].fullText, { reason: 'the JATS full text has no body (only the front matter is open)' });
  });

  it("asks for a full text by the entry's ids, and by those of the record it was found as where the entry has none", () => {
    const [entry] = parseBibliography('@article{a, title={Cytokines}, pmid={33000002}}', '/p/refs.bib').entries;
    const record = parseEuropePmcResult({ id: '33000009', source: 'MED', pmid: '33000009', pmcid: 'PMC7000002', doi: '10.1000/cytokines', title: 'Cytokines' });
    assert.deepEqual(idsOf(entry, { status: 'found', record, via: 'doi' }), { doi: '10.1000/cytokines', arxivId: undefined, pmid: '33000002', pmcid: 'PMC7000002' });
    assert.deepEqual(idsOf(entry, undefined), { doi: undefined, arxivId: undefined, pmid: '33000002', pmcid: undefined });
  });

  it("indexes a cited paper's passages once however many claims cite it", async () => {
    const passages: Passage[] = Array.from({ length: 40 }, (_, i) => ({ section: 'Results', text: `Measurement ${i} of the cache shows speed at site ${i}.` }));
    // As the store does, each run reads the full text afresh.
    const fromStore: FullTextProvider = async () => ({ fullText: { source: 'pdf', location: '/p/cache.pdf', passages: passages.map((p) => ({ ...p })) } });
    const claims = Array.from({ length: 12 }, (_, i) => `The cache increases speed at site ${i} \\cite{cache}.`).join(' ');
    const ws = new MemoryWorkspace({ '/p/m.tex': `${claims}\n\\bibliography{refs}`, '/p/refs.bib': bib });
    const result = await checkManuscript('/p/m.tex', ws, new CheckSession());
    assert.ok(result);
    const analysed = new Map<string, number>();
    const writable = analyzer as { analyze: typeof analyzer.analyze };
    const original = writable.analyze;
    writable.analyze = (text) => {
      analysed.set(text, (analysed.get(text) ?? 0) + 1);
      return original(text);
    };
    try {
      const supports = await checkSupport(result, { relevance: overlap, nli: nli() }, undefined, fromStore);
      assert.equal(supports.length, 12);
      assert.equal(supports.filter((s) => s.judgement.evidence?.from === 'full text').length, 12);
    } finally {
      writable.analyze = original;
    }
    assert.deepEqual(
      passages.map((p) => analysed.get(p.text)),
      passages.map(() => 1),
    );
  });

  it('names the passage in the finding when the full text contradicts', async () => {
    const contradicting: FullTextProvider = async () => ({
      fullText: { source: 'pdf', location: '/p/cache.pdf', passages: [{ section: 'Results', page: 6, text: 'The cache decreases speed in every test.' }] },
    });
    const { supports } = await check(contradicting);
    const [finding] = supportFindings(supports);
    assert.equal(finding.code, 'contradicted');
    assert.equal(finding.message, `The full text of 'cache' (Results, p. 6) contradicts this sentence: "The cache decreases speed in every test."`);
    assert.deepEqual([finding.evidence?.from, finding.evidence?.place], ['full text', 'Results, p. 6']);
  });

  it('reads the full texts of several works at once', async () => {
    let inFlight = 0;
    let most = 0;
    const slow: FullTextProvider = async (entry) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight--;
      return texts[entry.key];
    };
    const { supports } = await check(slow);
    assert.equal(most, 2);
    assert.equal(supports[0].judgement.label, 'supported');
  });

  it('reads each full text once per check, and caches judgements apart from abstract-only ones', async () => {
    const { dir, remove } = await makeTempDir();
    try {
      const cache = new LookupCache(dir);
      let reads = 0;
      const counting: FullTextProvider = async (entry) => {
        reads++;
        return texts[entry.key];
      };
      const first = await check(counting, cache, 'Speed doubles with a cache \\cite{cache}. ');
      assert.equal(first.supports.length, 3);
      assert.equal(reads, 2);
      const abstractOnly = await check(async () => undefined, cache);
      assert.equal(abstractOnly.supports[0].judgement.label, 'unsupported');
      assert.equal(first.supports[1].judgement.label, 'supported');
      assert.equal(abstractOnly.supports[0].fullText, undefined);
    } finally {
      await remove();
    }
  });
});

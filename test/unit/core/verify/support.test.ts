import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import { checkManuscript, CheckSession } from '../../../../src/core/check';
import type { JudgingParameters } from '../../../../src/core/models/judging';
import { LookupCache } from '../../../../src/core/sources/cache';
import { isAbstract } from '../../../../src/core/verify/abstracts';
import { abstractSentences, checkSupport, missingAbstracts, supportFindings } from '../../../../src/core/verify/claims';
import { analyze } from '../../../../src/core/index/analyzer';
import { BackgroundFrequencies } from '../../../../src/core/verify/background';
import { TermStatistics, tfidfRelevance } from '../../../../src/core/verify/relevance';
import type { ExistenceVerdict } from '../../../../src/core/verify/existence';
import type { Verdicts } from '../../../../src/core/verify/results';
import { DEFAULT_THRESHOLDS, judgeSupport, type RelevanceScorer, type SupportThresholds } from '../../../../src/core/verify/support';
import { MemoryWorkspace } from '../../support/helpers';
import { overlap, RuleNli } from '../../support/ruleNli';
import { makeTempDir } from '../../support/tempDir';

const ABSTRACT = ['Caching reduces latency.', 'We find that caching increases throughput by 40%.', 'Costs stay flat.'];

describe('judging whether a cited abstract supports a claim', () => {
  it('says which sentence supports the claim, and with what probability', async () => {
    const j = await judgeSupport('Caching increases throughput.', ABSTRACT, { relevance: overlap, nli: { model: new RuleNli(), id: 'rules' } });
    assert.equal(j.label, 'supported');
    assert.equal(j.sentence, 'We find that caching increases throughput by 40%.');
    assert.equal(j.entailment, 0.9);
    assert.equal(j.model, 'rules');
  });

  it('reports the contradicting sentence over a weaker entailment', async () => {
    const j = await judgeSupport('Caching increases latency.', ['Caching decreases latency sharply.', 'Latency was measured.'], {
      relevance: overlap,
      nli: { model: new RuleNli(), id: 'rules' },
    });
    assert.equal(j.label, 'contradicted');
    assert.equal(j.sentence, 'Caching decreases latency sharply.');
  });

  it('calls a related abstract that entails nothing unsupported, showing the closest sentence', async () => {
    const j = await judgeSupport('Caching improves memory use.', ABSTRACT, { relevance: overlap, nli: { model: new RuleNli(), id: 'rules' } });
    assert.equal(j.label, 'unsupported');
    assert.equal(j.sentence, 'Caching reduces latency.');
  });

  it('without a model, catches an unrelated abstract and leaves a related one unjudged', async () => {
    const unrelated = await judgeSupport('Glaciers retreat faster in warm summers.', ABSTRACT, { relevance: overlap });
    assert.deepEqual([unrelated.label, unrelated.reason], ['unsupported', "the abstract shares none of the sentence's key terms"]);
    const related = await judgeSupport('Caching increases throughput.', ABSTRACT, { relevance: overlap });
    assert.deepEqual([related.label, related.reason], ['unverifiable', 'no NLI model']);
  });

  it('cannot judge without an abstract', async () => {
    assert.equal((await judgeSupport('Anything.', undefined, { relevance: overlap })).label, 'unverifiable');
  });

  it('splits abstracts into sentences without breaking at abbreviations', () => {
    assert.deepEqual(abstractSentences('Smith et al. showed it. Fig. 2 shows a 3.5-fold\n rise. Done.'), ['Smith et al. showed it.', 'Fig. 2 shows a 3.5-fold rise.', 'Done.']);
  });
});

describe('relevance on a bibliography about one topic', () => {
  // A manuscript on open-access publishing: every cited abstract speaks of open access and publishing.
  const fields = [
    'physics',
    'chemistry',
    'medicine',
    'biology',
    'ecology',
    'economics',
    'history',
    'linguistics',
    'mathematics',
    'astronomy',
    'geology',
    'nursing',
    'law',
    'philosophy',
    'psychology',
    'sociology',
    'engineering',
    'agriculture',
    'veterinary',
    'dentistry',
  ];
  const careers =
    'Researchers who share preprints, data and code gain citations, media attention, collaborators, jobs and funding. ' +
    'We review the evidence that open access and open science advance scientific careers.';
  const bibliography = [
    ...fields.map((f) => `Open access publishing in ${f} grows every year. We count open access articles of ${f} journals and what their authors pay.`),
    'Article processing charges fund open access journals. We survey what publishers charge authors for open access.',
    'Open access mandates of funders shape publishing. We study how authors comply with open access policies.',
    'Open access citation advantage studies disagree. We review open access articles and their citations.',
    careers,
  ];
  const claim = "Open access (OA) publishing can also benefit an article's authors.";
  const blended = tfidfRelevance(analyze, TermStatistics.of(bibliography, analyze, BackgroundFrequencies.english()));

  it("takes a cited abstract on the sentence's own topic for related, without a model", async () => {
    const judgement = await judgeSupport(claim, abstractSentences(careers), { relevance: blended });
    assert.deepEqual([judgement.label, judgement.reason], ['unverifiable', 'no NLI model']);
    // Weighed by the bibliography alone, the topic's words count for nothing and the same abstract was flagged.
    const own = tfidfRelevance(analyze, TermStatistics.of(bibliography, analyze));
    const ownOnly: RelevanceScorer = (c, p) => ({ score: own(c, p).score, best: own(c, p).best });
    assert.equal((await judgeSupport(claim, abstractSentences(careers), { relevance: ownOnly })).label, 'unsupported');
  });

  it("still flags an abstract that shares none of the sentence's key terms", async () => {
    const glaciers = 'Glaciers in the Alps retreat faster in warm summers. We measure the ice lost since 1990 with satellites.';
    const judgement = await judgeSupport(claim, abstractSentences(glaciers), { relevance: blended });
    assert.deepEqual([judgement.label, judgement.reason], ['unsupported', "the abstract shares none of the sentence's key terms"]);
  });
});

describe('checking the citations of a manuscript for support', () => {
  const bib = [
    '@article{fast, title={Speed}, abstract={Our cache increases speed considerably. It was tested on servers of three sizes, under loads from light to heavy.}}',
    '@article{mem, title={Memory}, abstract={The cache needs little memory. Nothing else changes in the servers it runs on, whatever their size or load.}}',
    '@article{slow, title={Slow}, abstract={The cache decreases speed. We regret it, and report the servers and the loads on which we measured it.}}',
    '@article{none, title={No abstract}}',
    '@article{note, title={A note for an abstract}, abstract={R Foundation for Statistical Computing, Vienna, Austria.}}',
  ].join('\n');

  async function supports(tex: string, nli: RuleNli, cache?: LookupCache, thresholds?: Partial<SupportThresholds>): Promise<Awaited<ReturnType<typeof checkSupport>>> {
    const ws = new MemoryWorkspace({ '/p/m.tex': `${tex}\n\\bibliography{refs}`, '/p/refs.bib': bib });
    const result = await checkManuscript('/p/m.tex', ws, new CheckSession());
    assert.ok(result);
    return checkSupport(result, { relevance: overlap, nli: { model: nli, id: 'rules' }, thresholds }, cache);
  }

  it('gives each citation its own verdict and finding', async () => {
    const judged = await supports('The cache increases speed \\cite{fast}. The cache increases speed \\cite{slow}. It uses memory \\cite{none}.', new RuleNli());
    const found = supportFindings(judged);
    assert.deepEqual(
      found.map((f) => [f.key, f.code, f.severity]),
      [['slow', 'contradicted', 'warning']],
    );
    assert.equal(found[0].evidence?.sentence, 'The cache decreases speed.');
    const detailed = supportFindings(judged, undefined, { reportMissingAbstracts: true });
    assert.deepEqual(
      detailed.map((f) => [f.key, f.code, f.severity]),
      [
        ['slow', 'contradicted', 'warning'],
        ['none', 'unverifiable', 'hint'],
      ],
    );
    // No source was asked for `none`: its abstract was not looked up.
    assert.deepEqual(missingAbstracts(judged, undefined), { cited: 3, withoutAbstract: 1, notLookedUp: 1 });
    const [entry] = parseBibliography('@article{none, title={None}}', '/p/refs.bib').entries;
    const record = { source: 'crossref' as const, id: 'x', title: 'None', authors: [] };
    const foundRecord: ExistenceVerdict = { status: 'found', record, via: 'title' };
    const answered: Verdicts = new Map([['none', { entry, verdict: foundRecord }]]);
    assert.deepEqual(missingAbstracts(judged, answered), { cited: 3, withoutAbstract: 1, notLookedUp: 0 }, 'a record without an abstract is an answer');
    const failed: Verdicts = new Map([['none', { entry, verdict: { status: 'unchecked', reason: 'No source could answer.' } }]]);
    assert.deepEqual(missingAbstracts(judged, failed), { cited: 3, withoutAbstract: 1, notLookedUp: 1 });
    const timedOut: Verdicts = new Map([['none', { entry, verdict: foundRecord, abstractUnanswered: true }]]);
    assert.deepEqual(missingAbstracts(judged, timedOut), { cited: 3, withoutAbstract: 1, notLookedUp: 1 });
  });

  it('takes an abstract field too short to be an abstract for none', async () => {
    const [judged] = await supports('The cache increases speed \\cite{note}.', new RuleNli());
    assert.deepEqual([judged.judgement.label, judged.judgement.reason], ['unverifiable', 'no abstract']);
    assert.equal(isAbstract('Update Jan.'), false);
    assert.equal(isAbstract('A single sentence that goes on and on about its topic without ever stopping, long as it is, for a page.'), false);
    assert.equal(isAbstract('We measure caches. They make servers faster under every load we tried, from the lightest to the heaviest.'), true);
  });

  it('counts a sentence as supported when its citations support it together', async () => {
    const alone = supportFindings(await supports('The cache increases speed and saves memory \\cite{mem}.', new RuleNli()));
    assert.deepEqual(
      alone.map((f) => [f.key, f.code]),
      [['mem', 'unsupported']],
    );
    const together = supportFindings(await supports('The cache increases speed and saves memory \\cite{fast,mem}.', new RuleNli()));
    assert.deepEqual(together, []);
  });

  it('judges a sentence citing 60,000 works in one \\cite, and finds it supported by two of them together', async () => {
    const ws = new MemoryWorkspace({ '/p/m.tex': 'The cache increases speed and saves memory \\cite{fast,mem}.\n\\bibliography{refs}', '/p/refs.bib': bib });
    const small = await checkManuscript('/p/m.tex', ws, new CheckSession());
    assert.ok(small);
    // Made from the small check's own citation and entries: a 60,000-key manuscript would be parsed for a minute.
    const [citation] = small.citations;
    const [library] = small.bibliographies;
    const none = library.entries.find((e) => e.key === 'none');
    assert.ok(none);
    const keys = Array.from({ length: 60_000 }, (_, i) => `w${i}`);
    const many = {
      ...small,
      bibliographies: [{ ...library, entries: [...library.entries, ...keys.map((key) => ({ ...none, key }))] }],
      citations: [...keys, 'fast', 'mem'].map((key) => ({ key, command: citation.command, file: citation.file, range: citation.range, claim: citation.claim })),
    };
    const judged = await checkSupport(many, { relevance: overlap, nli: { model: new RuleNli(), id: 'rules' } });
    assert.equal(judged.length, 60_002);
    assert.ok(judged.every((j) => j.supportedTogether));
    assert.deepEqual(supportFindings(judged), []);
  });

  it('judges each pair once: a second check is answered from the disk cache', async () => {
    const temp = await makeTempDir();
    try {
      const cache = new LookupCache(temp.dir);
      const first = new RuleNli();
      await supports('The cache increases speed \\cite{fast}.', first, cache);
      const second = new RuleNli();
      const again = await supports('The cache increases speed \\cite{fast}.', second, cache);
      assert.ok(first.calls > 0);
      assert.equal(second.calls, 0);
      assert.equal(again[0].judgement.label, 'supported');
    } finally {
      await temp.remove();
    }
  });

  it('judges again under thresholds the user changed, rather than answer from the cache what the old ones decided', async () => {
    const temp = await makeTempDir();
    try {
      const cache = new LookupCache(temp.dir);
      const claim = 'The cache increases speed \\cite{fast}.';
      assert.equal((await supports(claim, new RuleNli(), cache))[0].judgement.label, 'supported');
      // No entailment reaches 1: under that threshold the same pair is unsupported, whatever was judged before.
      const stricter = await supports(claim, new RuleNli(), cache, { entailment: 1, contradiction: 1 });
      assert.equal(stricter[0].judgement.label, 'unsupported');
      const back = new RuleNli();
      assert.equal((await supports(claim, back, cache))[0].judgement.label, 'supported');
      assert.equal(back.calls, 0, 'the judgement under the first thresholds is still kept');
    } finally {
      await temp.remove();
    }
  });

  it('judges afresh a pair a model trained on whole abstracts was judged on before its premises were built as its training built them', async () => {
    class WholeAbstractNli extends RuleNli {
      readonly judging: JudgingParameters = { premise: 'abstract', thresholds: { entailment: 0.5, contradiction: 0.5 } };
    }
    const temp = await makeTempDir();
    try {
      const cache = new LookupCache(temp.dir);
      const claim = 'The cache increases speed.';
      const abstract = 'Our cache increases speed considerably. It was tested on servers of three sizes, under loads from light to heavy.';
      // What an earlier Attest cached for this pair, keyed without the premise's rules, and judged otherwise.
      const sha = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 32);
      const thresholds = { ...DEFAULT_THRESHOLDS, entailment: 0.5, contradiction: 0.5 };
      await cache.set(`support:rules:${sha(JSON.stringify(thresholds))}:${sha(claim)}:${sha(abstract)}`, {
        status: 200,
        body: JSON.stringify({ label: 'unsupported', relevance: 0.5 }),
      });
      const model = new WholeAbstractNli();
      const judged = await supports('The cache increases speed \\cite{fast}.', model, cache);
      assert.equal(judged[0].judgement.label, 'supported');
      assert.ok(model.calls > 0);
      const again = new WholeAbstractNli();
      await supports('The cache increases speed \\cite{fast}.', again, cache);
      assert.equal(again.calls, 0, 'a judgement under the current rules is kept');
    } finally {
      await temp.remove();
    }
  });

  it('leaves out verdicts the user chose to ignore', async () => {
    const all = await supports('The cache increases speed \\cite{slow}.', new RuleNli());
    assert.deepEqual(
      supportFindings(all, (c) => c.key === 'slow'),
      [],
    );
  });
});

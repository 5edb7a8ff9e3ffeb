import assert from 'node:assert/strict';
import { checkManuscript, CheckSession } from '../../src/core/check';
import { LookupCache } from '../../src/core/sources/cache';
import { abstractSentences, checkSupport, supportFindings } from '../../src/core/verify/claims';
import { judgeSupport } from '../../src/core/verify/support';
import { MemoryWorkspace } from './helpers';
import { overlap, RuleNli } from './support/ruleNli';
import { makeTempDir } from './support/tempDir';

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
    const j = await judgeSupport('Caching increases latency.', ['Caching decreases latency sharply.', 'Latency was measured.'], { relevance: overlap, nli: { model: new RuleNli(), id: 'rules' } });
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
    assert.deepEqual([unrelated.label, unrelated.reason], ['unsupported', 'the abstract is about something else']);
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

describe('checking the citations of a manuscript for support', () => {
  const bib = [
    '@article{fast, title={Speed}, abstract={Our cache increases speed considerably. It was tested on servers.}}',
    '@article{mem, title={Memory}, abstract={The cache needs little memory. Nothing else changes.}}',
    '@article{slow, title={Slow}, abstract={The cache decreases speed. We regret it.}}',
    '@article{none, title={No abstract}}',
  ].join('\n');

  async function supports(tex: string, nli: RuleNli, cache?: LookupCache): Promise<Awaited<ReturnType<typeof checkSupport>>> {
    const ws = new MemoryWorkspace({ '/p/m.tex': `${tex}\n\\bibliography{refs}`, '/p/refs.bib': bib });
    const result = await checkManuscript('/p/m.tex', ws, new CheckSession());
    assert.ok(result);
    return checkSupport(result, { relevance: overlap, nli: { model: nli, id: 'rules' } }, cache);
  }

  it('gives each citation its own verdict and finding', async () => {
    const found = supportFindings(await supports('The cache increases speed \\cite{fast}. The cache increases speed \\cite{slow}. It uses memory \\cite{none}.', new RuleNli()));
    assert.deepEqual(found.map((f) => [f.key, f.code, f.severity]), [['slow', 'contradicted', 'warning'], ['none', 'unverifiable', 'hint']]);
    assert.equal(found[0].evidence?.sentence, 'The cache decreases speed.');
  });

  it('counts a sentence as supported when its citations support it together', async () => {
    const alone = supportFindings(await supports('The cache increases speed and saves memory \\cite{mem}.', new RuleNli()));
    assert.deepEqual(alone.map((f) => [f.key, f.code]), [['mem', 'unsupported']]);
    const together = supportFindings(await supports('The cache increases speed and saves memory \\cite{fast,mem}.', new RuleNli()));
    assert.deepEqual(together, []);
  });

  it('judges each pair once: a second check is answered from the disk cache', async () => {
    const cache = new LookupCache((await makeTempDir()).dir);
    const first = new RuleNli();
    await supports('The cache increases speed \\cite{fast}.', first, cache);
    const second = new RuleNli();
    const again = await supports('The cache increases speed \\cite{fast}.', second, cache);
    assert.ok(first.calls > 0);
    assert.equal(second.calls, 0);
    assert.equal(again[0].judgement.label, 'supported');
  });

  it('leaves out verdicts the user chose to ignore', async () => {
    const all = await supports('The cache increases speed \\cite{slow}.', new RuleNli());
    assert.deepEqual(supportFindings(all, (c) => c.key === 'slow'), []);
  });
});

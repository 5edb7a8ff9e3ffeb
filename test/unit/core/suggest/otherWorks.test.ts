import assert from 'node:assert/strict';
import type { EvidenceFinder, EvidenceQuery, EvidenceResults } from '../../../../src/core/evidence';
import type { Paper } from '../../../../src/core/papers/paper';
import { acceptedSentences } from '../../../../src/core/suggest/insertion';
import { OpenAiLlm } from '../../../../src/core/suggest/llm';
import type { SentenceJudge } from '../../../../src/core/suggest/recheck';
import { suggest } from '../../../../src/core/suggest/suggest';
import { ChatServer } from '../../support/chatServer';

/**
 * Sentences of a draft that point at other works in plain words — a numbered source in words, a
 * person named as the author of the claim, a work in preparation, a PubMed number — through the
 * real `openai` client and the suggest pipeline's parsing. The one source is by Writer and Lee.
 */

const SOURCE: Paper = {
  id: 'doi:10.1000/vitd',
  title: 'Vitamin D and fracture risk in older adults',
  year: 2020,
  authors: [
    { family: 'Writer', given: 'Ann' },
    { family: 'Lee', given: 'Kim' },
  ],
  abstract:
    'Vitamin D supplementation reduced fractures by a third in older adults. Western blot analysis showed reduced expression of bone resorption markers. Treatment was well tolerated.',
};

class OneSource implements EvidenceFinder {
  async find(_query: EvidenceQuery): Promise<EvidenceResults> {
    return { mode: 'lexical', results: [{ paper: SOURCE, score: 1 }], notes: [] };
  }
}

/** The worst case: every sentence the check sees is supported, so only the parsing keeps a sentence out of Accept. */
const supportsAll: SentenceJudge = async (_, passages) => ({ label: 'supported', relevance: 1, entailment: 0.99, sentence: passages[0] });

/** Each points at a work other than the one source, and the reason it is taken out. */
const POINTERS: readonly [string, RegExp][] = [
  ['Fractures fell by a third, as reported in source 7 [1].', /it cites source 7, but there is 1 source/],
  ['Fractures fell by a third (Smith, in prep.) [1].', /in preparation/],
  ['Fractures fell by a third, said Smith in 2019 [1].', /attributes the claim to Smith, who is not an author/],
  ['Smith and Jones showed that fractures fell by a third [1].', /attributes the claim to Smith, who is not an author/],
  ['Fractures fell by a third (PubMed 31234567) [1].', /identifier of a publication/],
  ['Smith showed that fractures fell by a third [1].', /attributes the claim to Smith/],
  ['According to Smith, fractures fell by a third [1].', /attributes the claim to Smith/],
  ['Later, Garcia found that fractures fell by a third [1].', /attributes the claim to Garcia/],
  ['Writer and Jones showed that fractures fell by a third [1].', /attributes the claim to Jones/],
  ['Smith et al. found that fractures fell by a third [1].', /et al/],
  ['As Smith notes, fractures fell by a third [1].', /attributes the claim to Smith/],
  ["Smith's group showed that fractures fell by a third [1].", /attributes the claim to Smith/],
  ['The Smith lab found that fractures fell by a third [1].', /attributes the claim to Smith/],
];

/** Ordinary sentences: capitalised first words, scientific terms and eponyms are no one cited; the source's own authors may be named. */
const PROSE: readonly string[] = [
  'Vitamin D supplementation reduced fractures [1].',
  'Western blot analysis showed reduced expression of bone resorption markers [1].',
  "Parkinson's disease did not change the effect on fractures [1].",
  "Alzheimer's disease patients had the same benefit [1].",
  'Kaplan–Meier curves of fracture-free survival diverged after one year [1].',
  "Student's t-test showed a difference in fracture rates [1].",
  'Treatment showed a benefit in older adults [1].',
  'Supplementation was well tolerated, as reported by Writer and Lee [1].',
];

describe('suggested sentences that point at other works in plain words (openai against a local server)', () => {
  let server: ChatServer;
  before(async () => {
    server = await ChatServer.start((request) => {
      const prompt = request.body.messages.map((m) => m.content).join('\n');
      if (!prompt.includes('Sources:')) return { text: '["vitamin D fractures"]' };
      return { text: [...PROSE, ...POINTERS.map(([sentence]) => sentence)].join(' ') };
    });
  });
  after(() => server.close());

  it('takes each one out with its reason, keeps ordinary prose, and Accept inserts only the prose', async () => {
    const llm = new OpenAiLlm({ baseUrl: server.baseUrl, model: 'scripted', temperature: 0, maxTokens: 400, timeoutMs: 5000, maxRetries: 0 });
    const suggestion = await suggest({
      selection: 'Vitamin D prevents fractures.',
      finder: new OneSource(),
      llm,
      judge: supportsAll,
      limits: { maxSentences: 20, maxCharacters: 10_000 },
    });
    assert.equal(suggestion.outcome, 'drafted', suggestion.notes.join(' '));
    assert.deepEqual(suggestion.sources, [SOURCE]);
    const kept = acceptedSentences(suggestion.sentences, 'all').map((s) => s.text);
    assert.deepEqual(
      kept,
      PROSE.map((sentence) => sentence.replace(' [1]', '')),
    );
    for (const [sentence, reason] of POINTERS) {
      const bare = sentence.replace(' [1]', '');
      const taken = suggestion.removed.find((r) => r.text === sentence || r.text === bare);
      assert.ok(taken, `not taken out: ${sentence}\ntaken out: ${JSON.stringify(suggestion.removed, null, 1)}`);
      assert.match(taken.reason, reason);
    }
    assert.equal(suggestion.removed.length, POINTERS.length);
  });
});

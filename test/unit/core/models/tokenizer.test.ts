import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { TextTokenizer } from '../../../../src/core/models/tokenizer';
import { MINILM_TOKENIZER } from '../../support/onnx/folders';

// Ids from the vocabulary of all-MiniLM-L6-v2's tokenizer.json: WordPiece splits "aspirin" into
// as ##pi ##rin and "hallucinated" into hall ##uc ##inated; the normalizer lower-cases and drops
// the accent of "Café".
const CLS = 101;
const SEP = 102;
const PREMISE = 'Aspirin reduces the risk of stroke.';
const PREMISE_IDS = [2004, 8197, 6657, 13416, 1996, 3891, 1997, 6909, 1012]; // as ##pi ##rin reduces the risk of stroke .
const HYPOTHESIS = 'Café owners hallucinated citations.';
const HYPOTHESIS_IDS = [7668, 5608, 2534, 14194, 15833, 22921, 1012]; // cafe owners hall ##uc ##inated citations .

const TOKENIZER_JSON = JSON.parse(readFileSync(MINILM_TOKENIZER, 'utf8')) as object;

function minilm(maxLength = 512): TextTokenizer {
  return new TextTokenizer(TOKENIZER_JSON, {}, maxLength, 0);
}

function zeros(n: number): number[] {
  return new Array<number>(n).fill(0);
}

function ones(n: number): number[] {
  return new Array<number>(n).fill(1);
}

describe('the tokenizer, on the real all-MiniLM-L6-v2 tokenizer.json', () => {
  const tokenizer = minilm();

  it('encodes one text between [CLS] and [SEP]', () => {
    assert.deepEqual(tokenizer.encode(PREMISE), { ids: [CLS, ...PREMISE_IDS, SEP], typeIds: zeros(11) });
  });

  it('encodes a premise and hypothesis as [CLS] premise [SEP] hypothesis [SEP], with segment ids 0 then 1', () => {
    assert.deepEqual(tokenizer.encodePair(PREMISE, HYPOTHESIS), {
      ids: [CLS, ...PREMISE_IDS, SEP, ...HYPOTHESIS_IDS, SEP],
      typeIds: [...zeros(11), ...ones(8)],
    });
  });

  it('cuts a pair that is too long from the longer text first, keeping the special tokens', () => {
    // 12 leaves room for 9 tokens: the shorter hypothesis keeps half (4), the premise the other 5.
    assert.deepEqual(minilm(12).encodePair(PREMISE, HYPOTHESIS), {
      ids: [CLS, ...PREMISE_IDS.slice(0, 5), SEP, ...HYPOTHESIS_IDS.slice(0, 4), SEP],
      typeIds: [...zeros(7), ...ones(5)],
    });
  });

  it('keeps a short premise whole and cuts a long hypothesis', () => {
    const encoding = minilm(12).encodePair('Stroke.', HYPOTHESIS);
    assert.deepEqual(encoding.ids, [CLS, 6909, 1012, SEP, ...HYPOTHESIS_IDS.slice(0, 7), SEP]);
    assert.equal(minilm(11).encodePair('Stroke.', HYPOTHESIS).ids.length, 11);
  });

  it('gives a pair that fits exactly every token', () => {
    assert.deepEqual(minilm(19).encodePair(PREMISE, HYPOTHESIS).ids, [CLS, ...PREMISE_IDS, SEP, ...HYPOTHESIS_IDS, SEP]);
  });

  it('cuts one long text to the maximum length, ending in [SEP]', () => {
    assert.deepEqual(minilm(5).encode(PREMISE).ids, [CLS, 2004, 8197, 6657, SEP]);
  });

  it('pads a batch to its longest encoding, with attention 0 on the padding', () => {
    const batch = tokenizer.batch([tokenizer.encode('Stroke.'), tokenizer.encodePair('Stroke.', 'Risk.')]);
    assert.equal(batch.size, 2);
    assert.equal(batch.length, 7);
    assert.deepEqual(Array.from(batch.inputIds, Number), [CLS, 6909, 1012, SEP, 0, 0, 0, CLS, 6909, 1012, SEP, 3891, 1012, SEP]);
    assert.deepEqual(Array.from(batch.attentionMask, Number), [...ones(4), ...zeros(3), ...ones(7)]);
    assert.deepEqual(Array.from(batch.tokenTypeIds, Number), [...zeros(7), ...zeros(4), ...ones(3)]);
  });

  describe('a ranked premise (an abstract fitted to the length by relevance)', () => {
    const early = 'Patients were recruited in twelve hospitals.';
    const filler = 'The weather was mild during the whole of the study period in every one of the cities we visited.';
    const abstract = { sentences: [early, filler, filler, PREMISE], priority: [3, 0, 1, 2] };
    const count = (text: string): number => tokenizer.encode(text).ids.length - 2;

    it('is the whole abstract when abstract and claim fit', () => {
      assert.deepEqual(tokenizer.encodePair(abstract, HYPOTHESIS), tokenizer.encodePair(abstract.sentences.join(' '), HYPOTHESIS));
    });

    it('keeps the most relevant sentences that fit, a late one included, in their own order', () => {
      // Room for the claim and the two sentences ranked first, not for the long ones between them.
      const fitting = minilm(3 + count(HYPOTHESIS) + count(PREMISE) + count(early));
      assert.deepEqual(fitting.encodePair(abstract, HYPOTHESIS), fitting.encodePair(`${early} ${PREMISE}`, HYPOTHESIS));
    });

    it('passes over a sentence too long for the room left for a later, shorter one', () => {
      const fitting = minilm(3 + count(HYPOTHESIS) + count(PREMISE) + count(early));
      const longSecond = { sentences: abstract.sentences, priority: [3, 1, 2, 0] };
      assert.deepEqual(fitting.encodePair(longSecond, HYPOTHESIS), fitting.encodePair(`${early} ${PREMISE}`, HYPOTHESIS));
    });

    it('keeps the most relevant sentence, cut, when it alone is over the room, as training does, not a less relevant one that fits', () => {
      const tight = minilm(3 + count(HYPOTHESIS) + count(early) + 1);
      assert.ok(count(filler) > count(early) + 1);
      const cut = tight.encodePair({ sentences: [early, filler], priority: [1, 0] }, HYPOTHESIS);
      assert.deepEqual(cut, tight.encodePair(filler, HYPOTHESIS));
    });

    it('leaves the premise at least 16 tokens beside a long claim, as training does', () => {
      const longClaim = `${HYPOTHESIS} ${filler} ${filler}`;
      const fitting = minilm(3 + count(longClaim) + 16);
      const ranked = { sentences: [early, filler, PREMISE], priority: [2, 0, 1] };
      assert.ok(count(PREMISE) + count(early) <= 16 && count(PREMISE) + count(early) + count(filler) > 16, 'the case needs two short sentences and a long one');
      assert.deepEqual(fitting.encodePair(ranked, longClaim), fitting.encodePair(`${early} ${PREMISE}`, longClaim));
    });

    it('cuts the most relevant sentence when not even it fits', () => {
      const tight = minilm(3 + count(HYPOTHESIS) + 4);
      const cut = tight.encodePair({ sentences: [early, filler], priority: [1, 0] }, HYPOTHESIS);
      assert.deepEqual(cut, tight.encodePair(filler, HYPOTHESIS));
      assert.equal(cut.ids.length, tight.maxLength);
    });
  });
});

import assert from 'node:assert/strict';
import { Bm25Index, Bm25Searcher, type Bm25Settings } from '../../../../src/core/index/bm25';

const SETTINGS: Bm25Settings = { k1: 1.2, b: 0.7, fieldWeights: [1] };

function query(...terms: string[]): Map<string, number> {
  return new Map(terms.map((term) => [term, 1]));
}

function ids(index: Bm25Index, terms: string[], limit: number): string[] {
  return index.search(query(...terms), limit).map((hit) => hit.id);
}

/** Documents a, b, c, … of `texts`, each text a list of words, added in that order. */
function indexOf(...texts: string[]): Bm25Index {
  const index = new Bm25Index(SETTINGS);
  texts.forEach((text, i) => index.add(String.fromCharCode(97 + i), [text.split(' ')]));
  return index;
}

describe('BM25 ranking of the best documents', () => {
  it('ranks documents of equal score in the order they were added, however many the limit cuts off', () => {
    // Twelve documents with the same text score the same; one with the term twice ranks above them all.
    const index = indexOf(...Array.from({ length: 12 }, () => 'aspirin stroke trial'), 'aspirin aspirin stroke');
    const tied = 'abcdefghijkl'.split('');
    assert.deepEqual(ids(index, ['aspirin'], 100), ['m', ...tied]);
    for (let limit = 1; limit <= 13; limit++) assert.deepEqual(ids(index, ['aspirin'], limit), ['m', ...tied].slice(0, limit), `limit ${limit}`);
  });

  it('ranks a document added again after the documents it tied with, as one added last', () => {
    const index = indexOf('aspirin trial', 'aspirin trial', 'aspirin trial', 'aspirin trial');
    index.add('b', [['aspirin', 'trial']]);
    assert.deepEqual(ids(index, ['aspirin'], 10), ['a', 'c', 'd', 'b']);
    assert.deepEqual(ids(index, ['aspirin'], 3), ['a', 'c', 'd']);
  });

  it('gives every match, best first, when asked for more than match, and none when asked for none', () => {
    const index = indexOf('aspirin', 'stroke', 'aspirin stroke', 'statins');
    const hits = index.search(query('aspirin', 'stroke'), 50);
    assert.deepEqual(
      hits.map((hit) => hit.id),
      ['c', 'a', 'b'],
    );
    assert.ok(hits[0].score > hits[1].score && hits[1].score === hits[2].score);
    assert.deepEqual(ids(index, ['aspirin', 'stroke'], Infinity), ['c', 'a', 'b']);
    assert.deepEqual(ids(index, ['aspirin', 'stroke'], 0), []);
    assert.deepEqual(ids(index, ['absent'], 10), []);
  });

  it('ranks every limit as the first documents of the full ranking, search after search', () => {
    // Scores spread by term frequency and length, many of them tied.
    const words = ['aspirin', 'stroke', 'trial', 'cohort'];
    const texts = Array.from({ length: 200 }, (_, i) => Array.from({ length: 1 + ((i * 7) % 5) }, (_, k) => words[(i * 13 + k * (i % 3)) % 4]).join(' '));
    const index = indexOf(...texts);
    for (const terms of [['aspirin'], ['stroke', 'cohort'], ['trial', 'aspirin', 'stroke']]) {
      const full = index.search(query(...terms), Infinity);
      for (let i = 1; i < full.length; i++) assert.ok(full[i - 1].score >= full[i].score, `${terms} at ${i}`);
      for (const limit of [1, 2, 7, 10, 33, full.length - 1, full.length, full.length + 5]) {
        assert.deepEqual(index.search(query(...terms), limit), full.slice(0, limit), `${terms}, limit ${limit}`);
      }
    }
  });

  it('ranks documents tied across parts in the order of the parts', () => {
    const first = indexOf('aspirin', 'aspirin trial');
    const second = indexOf('aspirin', 'stroke');
    const hits = new Bm25Searcher(SETTINGS).search([first.asPart(), second.asPart()], query('aspirin'), 10);
    assert.deepEqual(
      hits.map(({ part, doc }) => `${part}:${doc}`),
      ['0:0', '1:0', '0:1'],
    );
  });
});

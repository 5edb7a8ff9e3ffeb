import assert from 'node:assert/strict';
import { analyze, termFrequencies } from '../../../../src/core/index/analyzer';

/** Whether two texts have a term in common, which is what lets one find the other. */
function meet(a: string, b: string): boolean {
  const terms = new Set(analyze(a));
  return analyze(b).some((term) => terms.has(term));
}

describe('text analysis for retrieval', () => {
  it('reduces inflections of a word to one term', () => {
    assert.deepEqual(analyze('inhibits inhibition inhibiting inhibited'), ['inhibit', 'inhibit', 'inhibit', 'inhibit']);
    assert.deepEqual(analyze('Proteins'), analyze('protein'));
  });

  it('drops English stopwords and ignores case', () => {
    assert.deepEqual(analyze('The effect of a drug on the patients'), ['effect', 'drug', 'patient']);
    assert.deepEqual(analyze('THE'), []);
  });

  it('gives a hyphenated name its parts and the parts joined, so every spelling meets every other', () => {
    assert.deepEqual(analyze('IL-6'), ['il', '6', 'il6']);
    assert.ok(meet('IL-6', 'IL6'));
    assert.ok(meet('COVID-19', 'covid19'));
    assert.ok(meet('COVID-19 vaccines', 'COVID vaccination'));
    assert.ok(meet('NF-κB', 'NF-kappaB'));
  });

  it('keeps letter-digit names and numbers as they are', () => {
    assert.deepEqual(analyze('p53 and HIV-1 in 2019'), ['p53', 'hiv', '1', 'hiv1', '2019']);
    assert.deepEqual(analyze('p < 0.05'), ['0.05']);
  });

  it('does not join a range of numbers into a new number', () => {
    assert.deepEqual(analyze('20-40% of mice'), ['20', '40', 'mice']);
  });

  it('spells out Greek letters and drops accents', () => {
    assert.ok(meet('TNF-α', 'TNF-alpha'));
    assert.deepEqual(analyze('β-catenin'), analyze('beta-catenin'));
    assert.deepEqual(analyze('naïve'), analyze('naive'));
  });

  it('reads a possessive as the word itself', () => {
    assert.deepEqual(analyze('Alzheimer’s disease'), analyze("Alzheimer's disease"));
    assert.deepEqual(analyze("Alzheimer's"), analyze('Alzheimer'));
  });

  it('drops single letters, which are initials and labels rather than words', () => {
    assert.deepEqual(analyze('J. Smith found a T cell subset (i)'), ['smith', 'found', 'cell', 'subset']);
  });

  it('counts terms', () => {
    assert.deepEqual([...termFrequencies(analyze('cells and more cells'))], [['cell', 2]]);
  });
});

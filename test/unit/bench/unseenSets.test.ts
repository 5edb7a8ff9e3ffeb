import * as assert from 'node:assert/strict';
import { readCovidFact, readHealthVer } from '../../../bench/unseenSets';

// Rows written here in each file's layout (the sets themselves are not in the repository).
describe('the claim sets nothing is trained on, read as their files lay them out', () => {
  it('reads HealthVer CSV rows whose quoted evidence holds commas, quotes and line breaks, with their labels', () => {
    const csv = [
      'id,evidence,claim,label,topic_ip,question',
      '7,"Masks, worn indoors, cut ""droplet"" spread.\nTransmission fell by half.",Masks reduce transmission ,Supports,3,Do masks work?',
      '8,Vitamin C had no effect on recovery.,Vitamin C speeds recovery,Refutes,4,Does vitamin C help?',
      '9,Trials are ongoing.,Zinc prevents infection,Neutral,5,Does zinc help?',
    ].join('\n');
    const data = readHealthVer(csv);
    assert.deepEqual(
      data.claims.map((c) => [c.claim, c.labels.get(c.cited[0])]),
      [
        ['Masks reduce transmission', 'SUPPORT'],
        ['Vitamin C speeds recovery', 'REFUTE'],
        ['Zinc prevents infection', 'NOTENOUGHINFO'],
      ],
    );
    assert.deepEqual(data.abstracts.get(data.claims[0].cited[0]), ['Masks, worn indoors, cut "droplet" spread.', 'Transmission fell by half.']);
  });

  it('reads COVID-Fact tab-separated rows as given, a quote in a claim being text', () => {
    const tsv = [
      'index\tsentence1\tSentence2\tentailment',
      '0\tThe vaccine was 95% effective.\tThe "new" vaccine was 95% effective\tentailment',
      '1\tThe vaccine was 95% effective.\tThe vaccine was 5% effective\tnot_entailment',
    ].join('\n');
    const data = readCovidFact(tsv);
    assert.deepEqual(
      data.claims.map((c) => [c.claim, c.labels.get(c.cited[0]), data.abstracts.get(c.cited[0])]),
      [
        ['The "new" vaccine was 95% effective', 'SUPPORT', ['The vaccine was 95% effective.']],
        ['The vaccine was 5% effective', 'REFUTE', ['The vaccine was 95% effective.']],
      ],
    );
  });

  it('refuses a row whose label the set does not have, naming it, rather than guessing', () => {
    const csv = 'id,evidence,claim,label\n7,Some evidence.,A claim,Maybe';
    assert.throws(() => readHealthVer(csv), /row 1 \(id 7\) has the label "Maybe", which the set does not have/);
    // A name every object has is no label either.
    assert.throws(() => readCovidFact('index\tsentence1\tSentence2\tentailment\n0\tEvidence.\tA claim\ttoString'), /has the label "toString"/);
  });
});

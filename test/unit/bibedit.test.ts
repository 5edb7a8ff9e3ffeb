import assert from 'node:assert/strict';
import { applyEdits, escapeBibtex, setFields } from '../../src/core/bibliography/edit';
import { parseBibliography } from '../../src/core/bibliography/parse';

const BIB = `% my library
@article{smith2020,
    title = "Old {GP} title",
    author = {Smith, J.} # { and Doe, A.},
    year = 2021,
    journal = jgr
}
@misc{other, title={Untouched}}
`;

function update(values: Record<string, string>): string {
  return applyEdits(BIB, setFields(BIB, BIB.indexOf('@article'), new Map(Object.entries(values))));
}

describe('editing .bib entries', () => {
  it('replaces existing values in place, whatever their delimiters, and keeps the rest', () => {
    const updated = update({ title: 'Fast GPs & Kernels', year: '2019', author: 'Smith, John and Doe, Anna', journal: 'The Astronomical Journal' });
    const entry = parseBibliography(updated, '/x.bib').entries[0];
    assert.equal(entry.title, 'Fast GPs & Kernels');
    assert.equal(entry.year, 2019);
    assert.deepEqual(entry.authors.map((a) => a.family), ['Smith', 'Doe']);
    assert.equal(entry.venue, 'The Astronomical Journal');
    assert.ok(updated.startsWith('% my library\n@article{smith2020,\n    title = {Fast {GPs} \\& Kernels},'));
    assert.ok(updated.endsWith('@misc{other, title={Untouched}}\n'));
  });

  it('adds missing fields before the closing brace, in the entry\'s indentation', () => {
    const updated = update({ doi: '10.3847/1538-3881/aa9332' });
    assert.match(updated, /journal = jgr,\n {4}doi = \{10\.3847\/1538-3881\/aa9332\}\n\}/);
    assert.equal(parseBibliography(updated, '/x.bib').entries[0].doi, '10.3847/1538-3881/aa9332');
  });

  it('changes nothing in an entry it cannot read', () => {
    const broken = '@article{x, title = {unclosed\n';
    assert.deepEqual(setFields(broken, 0, new Map([['year', '2020']])), []);
  });

  it('escapes BibTeX specials and keeps acronyms capitalised', () => {
    assert.equal(escapeBibtex('50% of R&D_costs in {BERT} #1'), '50\\% of R\\&D\\_costs in {BERT} \\#1');
  });
});

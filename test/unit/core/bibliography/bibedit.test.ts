import assert from 'node:assert/strict';
import { applyEdits, escapeBibtex, setFields } from '../../../../src/core/bibliography/edit';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import { fieldsFromRecord } from '../../../../src/core/verify/fixes';

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
    assert.deepEqual(
      entry.authors.map((a) => a.family),
      ['Smith', 'Doe'],
    );
    assert.equal(entry.venue, 'The Astronomical Journal');
    assert.ok(updated.startsWith('% my library\n@article{smith2020,\n    title = {Fast {GPs} \\& Kernels},'));
    assert.ok(updated.endsWith('@misc{other, title={Untouched}}\n'));
  });

  it("adds missing fields before the closing brace, in the entry's indentation", () => {
    const updated = update({ doi: '10.3847/1538-3881/aa9332' });
    assert.match(updated, /journal = jgr,\n {4}doi = \{10\.3847\/1538-3881\/aa9332\}\n\}/);
    assert.equal(parseBibliography(updated, '/x.bib').entries[0].doi, '10.3847/1538-3881/aa9332');
  });

  it('changes nothing in an entry it cannot read', () => {
    const broken = '@article{x, title = {unclosed\n';
    assert.deepEqual(setFields(broken, 0, new Map([['year', '2020']])), []);
  });

  it('escapes BibTeX specials and keeps acronyms capitalised', () => {
    assert.equal(escapeBibtex('50% of R&D_costs in BERT #1'), '50\\% of R\\&D\\_costs in {BERT} \\#1');
  });

  // A record's text is data: whatever it holds, the .bib prints it and runs nothing.
  const hostile = ['A\\B', '^^5cinput^^7b/etc/passwd^^7d', '~user', 'x}\\input{/etc/passwd}{', '50% & $5 #1 _a_', 'Braces {kept} as text', 'Line\n@misc{x, title = {y}}'];
  for (const title of hostile) {
    it(`writes the title ${JSON.stringify(title)} so that it reads back the same, with no command in it`, () => {
      const updated = update({ title });
      const written = /title = \{(.*)\},\n/.exec(updated)?.[1] ?? '';
      assert.doesNotMatch(written.replace(/\\text(?:backslash|braceleft|braceright|asciitilde|asciicircum)\{\}|\\[&%$#_]/g, ''), /[\\^~]/);
      const bib = parseBibliography(updated, '/x.bib');
      assert.deepEqual(
        bib.entries.map((e) => e.key),
        ['smith2020', 'other'],
      );
      // A line break is written as a space: a value is one line.
      assert.equal(bib.entries[0].title, title.replace(/\n/g, ' '));
    });
  }
});

describe("using a matched record's metadata", () => {
  it('rewrites the differing fields so that the entry matches the record', () => {
    const bib = '@inproceedings{he2016,\n  title = {Deep residual learning},\n  author = {He, K. and Smith, J.},\n  year = {2019},\n  booktitle = {CVPR}\n}\n';
    const [entry] = parseBibliography(bib, '/x.bib').entries;
    const record = {
      source: 'crossref' as const,
      id: 'x',
      title: 'Deep Residual Learning for Image Recognition',
      authors: [{ family: 'He', given: 'Kaiming' }, { family: 'van der Berg', given: 'Anna' }, { literal: 'Research and Development Group' }],
      year: 2016,
      venue: 'IEEE Conference on Computer Vision and Pattern Recognition',
      doi: '10.1109/cvpr.2016.90',
    };
    const fields = fieldsFromRecord(entry, record, [
      { field: 'title', status: 'differ', expected: '', found: '' },
      { field: 'authors', status: 'differ', expected: '', found: '' },
      { field: 'year', status: 'differ', expected: '', found: '' },
      { field: 'doi', status: 'differ', expected: '', found: '' },
    ]);
    const updated = applyEdits(bib, setFields(bib, 0, fields));
    const [after] = parseBibliography(updated, '/x.bib').entries;
    assert.equal(after.title, record.title);
    assert.deepEqual(after.authors, [{ family: 'He', given: 'Kaiming' }, { family: 'van der Berg', given: 'Anna' }, { literal: 'Research and Development Group' }]);
    assert.equal(after.year, 2016);
    assert.equal(after.doi, '10.1109/cvpr.2016.90');
    assert.equal(after.venue, 'CVPR', 'fields that did not differ stay as written');
  });

  it("adds the record's DOI to an entry without one, and keeps a DOI the entry has", () => {
    const record = { source: 'crossref' as const, id: 'x', title: 'Sleep and memory', authors: [], year: 2020, doi: '10.1000/sleep.1' };
    const titleDiffers = [{ field: 'title' as const, status: 'differ' as const, expected: '', found: '' }];
    const without = '@article{kim2020,\n  title = {Sleep},\n  year = {2020}\n}\n';
    const [after] = parseBibliography(
      applyEdits(without, setFields(without, 0, fieldsFromRecord(parseBibliography(without, '/x.bib').entries[0], record, titleDiffers))),
      '/x.bib',
    ).entries;
    assert.equal(after.title, 'Sleep and memory');
    assert.equal(after.doi, '10.1000/sleep.1');
    const withDoi = '@article{kim2020,\n  title = {Sleep},\n  doi = {10.1000/mine}\n}\n';
    assert.equal(fieldsFromRecord(parseBibliography(withDoi, '/x.bib').entries[0], record, titleDiffers).has('doi'), false);
  });

  it('writes authors whose names hold a comma, "and" in any case or `=` so that each reads back whole', () => {
    const bib = '@article{x,\n  title = {T},\n  author = {Someone, A.}\n}\n';
    const authors = [{ family: 'Smith, Jr.', given: 'John' }, { family: 'Doe', given: 'Jane AND Joan' }, { family: 'Le=Roux' }, { literal: 'Research, Development and Others' }];
    const record = { source: 'crossref' as const, id: 'x', title: 'T', authors };
    const fields = fieldsFromRecord(parseBibliography(bib, '/x.bib').entries[0], record, [{ field: 'authors', status: 'differ', expected: '', found: '' }]);
    const after = parseBibliography(applyEdits(bib, setFields(bib, 0, fields)), '/x.bib');
    assert.deepEqual(after.problems, []);
    assert.deepEqual(after.entries[0].authors, [
      { family: 'Smith, Jr.', given: 'John' },
      { family: 'Doe', given: 'Jane AND Joan' },
      { family: 'Le=Roux' },
      { literal: 'Research, Development and Others' },
    ]);
  });

  it('writes a DOI and a URL as they are, underscores and all, and reads them back the same', () => {
    const bib = '@article{kim2020,\n  title = {Sleep},\n  doi = {10.1000/wrong},\n  year = {2020}\n}\n';
    const [entry] = parseBibliography(bib, '/x.bib').entries;
    const doi = '10.1016/S0140-6736(20)30183-5_a%b~c';
    const url = 'https://example.org/a_b?q=1&r=%20#top';
    const fields = fieldsFromRecord(entry, { source: 'crossref', id: 'x', title: 'Sleep', authors: [], doi }, [{ field: 'doi', status: 'differ', expected: '', found: '' }]);
    fields.set('url', url);
    const updated = applyEdits(bib, setFields(bib, 0, fields));
    assert.match(updated, /doi = \{10\.1016\/S0140-6736\(20\)30183-5_a%b~c\}/);
    assert.ok(updated.includes(`url = {${url}}`), updated);
    const [after] = parseBibliography(updated, '/x.bib').entries;
    assert.equal(after.doi, doi);
    assert.equal(after.url, url);
  });

  it('leaves out a DOI or URL that could not stay inside its braces as it is', () => {
    const bib = '@article{x,\n  title = {T}\n}\n';
    for (const doi of ['10.1234/x}}@preamble{"\\input{/etc/passwd}"}@misc{zz,note={},', '10.1234/a\\_b', '10.1234/a\nb']) {
      assert.deepEqual(setFields(bib, 0, new Map([['doi', doi]])), [], JSON.stringify(doi));
    }
  });
});

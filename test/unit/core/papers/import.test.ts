import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import { formatOf, importPapers, paperFromBibEntry, papersFromBibliography } from '../../../../src/core/papers/import';
import { REPO_ROOT } from '../../support/helpers';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/papers');

function fixture(name: string) {
  const file = path.join(FIXTURES, name);
  const format = formatOf(file);
  assert.ok(format, `no format for ${name}`);
  return importPapers(readFileSync(file, 'utf8'), format, file);
}

describe('importing papers', () => {
  it('tells formats by extension', () => {
    assert.deepEqual(['a.jsonl', 'b.NDJSON', 'c.bib', 'd.ris', 'e.json', 'f'].map(formatOf), ['jsonl', 'jsonl', 'bibtex', 'ris', undefined, undefined]);
  });

  describe('from JSON Lines', () => {
    it('reads BEIR corpus lines and optional metadata, reporting bad lines by number and importing the rest', () => {
      const { papers, problems, leftOut } = fixture('corpus.jsonl');
      assert.deepEqual(
        papers.map((p) => p.id),
        ['aspirin-stroke', 'statins-liver', 'glacier-retreat', 'coffee-sleep', 'exercise-memory', 'aspirin-bleeding'],
      );
      assert.deepEqual(problems, [
        { line: 5, message: 'not JSON' },
        { line: 7, message: 'has no "id" or "_id", nor a DOI or arXiv id to name it by' },
      ]);
      assert.equal(leftOut, 0);
      assert.deepEqual(papers[0], {
        id: 'aspirin-stroke',
        title: 'Daily aspirin and the risk of stroke',
        abstract: 'We followed 2,000 adults for five years. Daily low-dose aspirin reduced the risk of ischaemic stroke by a fifth. Bleeding events rose slightly.',
        authors: [],
      });
      assert.deepEqual(papers[4], {
        id: 'exercise-memory',
        title: 'Aerobic exercise and memory in older adults',
        abstract: 'A year of walking enlarged the hippocampus and improved spatial memory.',
        authors: [{ family: 'Erickson', given: 'Kirk' }],
        year: 2011,
        doi: '10.1073/pnas.1015950108',
        openAccessUrl: 'https://www.pnas.org/doi/10.1073/pnas.1015950108',
      });
      assert.equal(papers[5].year, 2019);
    });

    it('names a paper without an id by its DOI or arXiv id, and rejects fields of the wrong type', () => {
      const lines = [
        '{"doi": "https://doi.org/10.1000/ABC", "title": "By DOI"}',
        '{"arxivId": "2101.00001", "abstract": "Only an abstract."}',
        '{"id": 7, "title": "Numeric id", "authors": "Doe, Jane; John Smith"}',
        '{"id": "x", "title": "Bad year", "year": "soon"}',
        '{"id": "y", "title": "Bad authors", "authors": [3]}',
        '{"id": "z", "title": 5}',
        '{"id": "w"}',
        '["not", "an", "object"]',
      ];
      const { papers, problems } = importPapers(lines.join('\n'), 'jsonl', 'inline.jsonl');
      assert.deepEqual(papers, [
        { id: 'doi:10.1000/abc', title: 'By DOI', authors: [], doi: '10.1000/abc' },
        { id: 'arxiv:2101.00001', title: '', abstract: 'Only an abstract.', authors: [], arxivId: '2101.00001', openAccessUrl: 'https://arxiv.org/abs/2101.00001' },
        {
          id: '7',
          title: 'Numeric id',
          authors: [
            { family: 'Doe', given: 'Jane' },
            { family: 'Smith', given: 'John' },
          ],
        },
      ]);
      assert.deepEqual(problems, [
        { line: 4, message: '"year" must be a year, such as 2019' },
        { line: 5, message: '"authors" must be a list of names, as strings or {family, given} objects' },
        { line: 6, message: '"title" must be a string' },
        { line: 7, message: 'has neither "title" nor "abstract" (or "text")' },
        { line: 8, message: 'not a JSON object' },
      ]);
    });

    it('names a paper by its identifiers only when they are ones, the arXiv id without its version', () => {
      const lines = [
        '{"doi": "not a DOI", "arxivId": "arXiv:2101.00001v2", "title": "Preprint"}',
        '{"id": "kept", "doi": "10.12/too-short", "arxivId": "2113.00001", "title": "Neither"}',
      ];
      assert.deepEqual(importPapers(lines.join('\n'), 'jsonl', 'inline.jsonl').papers, [
        { id: 'arxiv:2101.00001', title: 'Preprint', authors: [], arxivId: '2101.00001', openAccessUrl: 'https://arxiv.org/abs/2101.00001' },
        { id: 'kept', title: 'Neither', authors: [] },
      ]);
    });
  });

  describe('from BibTeX', () => {
    it('imports the entries with an abstract, named by DOI, arXiv id or key, and reports entries that do not parse', () => {
      const { papers, problems, leftOut } = fixture('references.bib');
      assert.deepEqual(
        papers.map((p) => p.id),
        ['doi:10.1073/pnas.1015950108', 'arxiv:1706.03762', 'bib:localonly'],
      );
      assert.equal(leftOut, 2);
      assert.equal(problems.length, 1);
      assert.equal(problems[0].line, 19);
      assert.match(problems[0].message, /Missing ',' after field 'title' in entry 'broken2019'/);
      assert.deepEqual(papers[0], {
        id: 'doi:10.1073/pnas.1015950108',
        title: 'Exercise training increases size of hippocampus and improves memory',
        abstract: 'The hippocampus shrinks in late adulthood. Aerobic exercise training increased hippocampal volume by 2%.',
        authors: [
          { family: 'Erickson', given: 'Kirk I.' },
          { family: 'Voss', given: 'Michelle W.' },
        ],
        year: 2011,
        venue: 'Proceedings of the National Academy of Sciences',
        doi: '10.1073/pnas.1015950108',
      });
      assert.equal(papers[1].openAccessUrl, 'https://arxiv.org/abs/1706.03762');
    });

    it('turns a workspace bibliography into papers the same way', () => {
      const bibliography = parseBibliography('@article{k, title={T}, doi={10.5555/XY}, abstract={A.}}', '/w/refs.bib');
      assert.deepEqual(papersFromBibliography(bibliography).papers, [paperFromBibEntry(bibliography.entries[0])]);
      assert.equal(paperFromBibEntry(bibliography.entries[0]).id, 'doi:10.5555/xy');
    });
  });

  describe('from RIS', () => {
    it('maps records through citation-js, reporting stray lines and records without a title by line', () => {
      const { papers, problems, leftOut } = fixture('references.ris');
      assert.deepEqual(problems, [
        { line: 12, message: 'not part of a record (TY … ER)' },
        { line: 13, message: 'the record has no title (TI or T1)' },
      ]);
      assert.equal(leftOut, 1);
      assert.deepEqual(papers, [
        {
          id: 'doi:10.1016/s0140-6736(19)30001-1',
          title: 'Daily aspirin and the risk of stroke',
          abstract: 'We followed 2,000 adults for five years. Daily aspirin reduced the risk of stroke.',
          authors: [
            { family: 'Smith', given: 'John' },
            { family: 'Doe', given: 'Jane' },
          ],
          year: 2019,
          venue: 'The Lancet',
          doi: '10.1016/s0140-6736(19)30001-1',
        },
        { id: 'ris:roehrs2008', title: 'Sleep and caffeine', abstract: 'Caffeine before bed disturbs sleep.', authors: [{ family: 'Roehrs', given: 'Timothy' }], year: 2008 },
      ]);
    });

    it('reports a record that never ends, and still imports it', () => {
      const { papers, problems } = importPapers('TY  - JOUR\nTI  - Open ended\nAB  - Text.\n', 'ris', 'open.ris');
      assert.deepEqual(problems, [{ line: 1, message: 'the record has no ER line' }]);
      assert.equal(papers.length, 1);
      assert.match(papers[0].id, /^ris:[0-9a-f]{16}$/);
      assert.equal(importPapers('TY  - JOUR\nTI  - Open ended\nAB  - Other.\nER  -\n', 'ris', 'again.ris').papers[0].id, papers[0].id);
    });
  });
});

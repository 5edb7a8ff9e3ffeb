import assert from 'node:assert/strict';
import { parseBibliography } from '../../../src/core/bibliography/parse';
import {
  arxivIdAsWritten,
  arxivIdOf,
  arxivPartOfDoi,
  isValidDoi,
  normalizeArxivId,
  normalizeDoi,
  normalizeIsbn,
  normalizePmcid,
  normalizePmid,
  parseArxivId,
  stripDoiPrefix,
  type ArxivId,
} from '../../../src/core/identifiers';

/** Each row: what is written, and what it reads as (undefined: not such an identifier). */
type Rows<T> = readonly (readonly [string | undefined, T | undefined])[];

function eachRow<T>(rows: Rows<T>, read: (value: string | undefined) => T | undefined): void {
  for (const [written, expected] of rows) assert.deepEqual(read(written), expected, JSON.stringify(written));
}

describe('identifiers', () => {
  describe('DOIs', () => {
    const dois: Rows<string> = [
      ['10.1000/x', '10.1000/x'],
      ['10.1109/CVPR.2016.90', '10.1109/cvpr.2016.90'],
      ['https://doi.org/10.1109/CVPR.2016.90', '10.1109/cvpr.2016.90'],
      ['http://doi.org/10.1000/x', '10.1000/x'],
      ['http://dx.doi.org/10.7717/peerj.4375', '10.7717/peerj.4375'],
      ['https://dx.doi.org/10.7717/PeerJ.4375', '10.7717/peerj.4375'],
      // sources/normalize kept the resolver on this one and refused it; verify/normalize read it.
      ['https://www.doi.org/10.1000/x', '10.1000/x'],
      ['doi.org/10.1000/x', '10.1000/x'],
      ['HTTPS://DOI.ORG/10.1000/X', '10.1000/x'],
      ['doi:10.1000/ABC', '10.1000/abc'],
      ['DOI: 10.1000/abc', '10.1000/abc'],
      [' doi:10.7717/peerj.4375 ', '10.7717/peerj.4375'],
      ['https://doi.org/10.1000%2Fabc', '10.1000/abc'],
      ['https://doi.org/10.1002/%28SICI%291097-4636', '10.1002/(sici)1097-4636'],
      ['https://doi.org/10.1000/50%off', '10.1000/50%off'],
      ['10.1000.10/abc', '10.1000.10/abc'],
      ['10.123456789/x', '10.123456789/x'],
      ['10.1002/(SICI)1097-4636(199706)35:4<437::AID-JBM4>3.0.CO;2-K', '10.1002/(sici)1097-4636(199706)35:4<437::aid-jbm4>3.0.co;2-k'],
      ['10.48550/arXiv.2104.09425', '10.48550/arxiv.2104.09425'],
      // A registrant of fewer than four digits: sources/normalize and papers/import took these.
      ['10.1/x', undefined],
      ['10.12/x', undefined],
      ['10.123/abc', undefined],
      ['10.1234567890/x', undefined],
      ['10.1000/', undefined],
      ['10.1000', undefined],
      ['10./x', undefined],
      ['11.1000/x', undefined],
      ['10.1000/has space', undefined],
      ['10.1000/x\n<script>', undefined],
      ['peerj.4375', undefined],
      ['https://example.org/10.1000/x', undefined],
      ['https://doi.org/', undefined],
      ['doi:', undefined],
      ['', undefined],
      ['   ', undefined],
      [`10.1000/${'x'.repeat(300)}`, undefined],
      [undefined, undefined],
    ];

    it('reads every way a DOI is written as the one lower-case form, and refuses what is none', () => {
      eachRow(dois, normalizeDoi);
    });

    it('tells a DOI by the same rule whether it is normalised or only validated', () => {
      for (const [written, expected] of dois) {
        if (written !== undefined) assert.equal(isValidDoi(written), expected !== undefined, JSON.stringify(written));
      }
    });

    it('strips the prefix but keeps the case and the mistakes, for messages', () => {
      eachRow<string>(
        [
          ['https://www.doi.org/10.1000/ABC', '10.1000/ABC'],
          ['http://dx.doi.org/10.1000/ABC', '10.1000/ABC'],
          ['doi: 10.123/Abc ', '10.123/Abc'],
          ['10.1000%2FABC', '10.1000/ABC'],
          ['10.1000/100%', '10.1000/100%'],
          ['not a DOI', 'not a DOI'],
        ],
        (value) => stripDoiPrefix(value ?? ''),
      );
    });

    it('finds the arXiv id inside an arXiv DOI, as written', () => {
      eachRow<string>(
        [
          ['10.48550/arXiv.2104.09425', '2104.09425'],
          ['https://doi.org/10.48550/ARXIV.2104.09425v2', '2104.09425v2'],
          ['doi:10.48550/arxiv.junk', 'junk'],
          ['10.1000/arxiv.2104.09425', undefined],
          ['https://arxiv.org/abs/2104.09425', undefined],
        ],
        (value) => arxivPartOfDoi(value ?? ''),
      );
    });
  });

  describe('arXiv ids', () => {
    const arxiv = (id: string, year: number, month: number, version?: number): ArxivId => ({ id, ...(version === undefined ? {} : { version }), year, month });
    const ids: Rows<ArxivId> = [
      ['2305.18248', arxiv('2305.18248', 2023, 5)],
      ['2305.18248v2', arxiv('2305.18248', 2023, 5, 2)],
      ['2101.00001V12', arxiv('2101.00001', 2021, 1, 12)],
      ['arXiv:2305.18248v2', arxiv('2305.18248', 2023, 5, 2)],
      ['ARXIV: 2305.18248', arxiv('2305.18248', 2023, 5)],
      ['1706.03762 [cs.CL]', arxiv('1706.03762', 2017, 6)],
      ['arXiv:1706.03762v5 [cs.CL]', arxiv('1706.03762', 2017, 6, 5)],
      ['0704.0001', arxiv('0704.0001', 2007, 4)],
      ['1412.9999', arxiv('1412.9999', 2014, 12)],
      ['1501.00001', arxiv('1501.00001', 2015, 1)],
      ['hep-th/9901001', arxiv('hep-th/9901001', 1999, 1)],
      ['HEP-TH/9901001v2', arxiv('hep-th/9901001', 1999, 1, 2)],
      ['astro-ph/0601001 [astro-ph]', arxiv('astro-ph/0601001', 2006, 1)],
      ['cond-mat/0703001', arxiv('cond-mat/0703001', 2007, 3)],
      ['math.AG/0309136', arxiv('math.AG/0309136', 2003, 9)],
      // sources/normalize kept the subject class as written; verify/normalize wrote it in capitals.
      ['math.ag/0309136', arxiv('math.AG/0309136', 2003, 9)],
      ['https://arxiv.org/abs/2305.18248v2', arxiv('2305.18248', 2023, 5, 2)],
      ['http://arxiv.org/pdf/1706.03762.pdf', arxiv('1706.03762', 2017, 6)],
      ['https://arxiv.org/pdf/1706.03762v1', arxiv('1706.03762', 2017, 6, 1)],
      ['https://www.arxiv.org/abs/2305.18248/', arxiv('2305.18248', 2023, 5)],
      ['https://export.arxiv.org/abs/hep-th/9901001v1', arxiv('hep-th/9901001', 1999, 1, 1)],
      ['https://arxiv.org/abs/2305.18248?context=cs', arxiv('2305.18248', 2023, 5)],
      ['10.48550/arXiv.2104.09425', arxiv('2104.09425', 2021, 4)],
      ['https://doi.org/10.48550/arXiv.2104.09425', arxiv('2104.09425', 2021, 4)],
      // Before April 2007, or the wrong number of digits for the month: sources/normalize took these.
      ['0703.0001', undefined],
      ['0701.1234', undefined],
      ['1412.12345', undefined],
      ['1501.1234', undefined],
      ['2313.12345', undefined],
      ['2300.12345', undefined],
      ['hep-th/0801001', undefined],
      ['hep-th/9913001', undefined],
      ['hep-th/9001001', undefined],
      ['hep-th/990100', undefined],
      ['-th/9901001', undefined],
      ['2305.XXXX', undefined],
      ['2305.18248.1', undefined],
      ['2305.18248v', undefined],
      ['10.7717/peerj.4375', undefined],
      ['10.48550/arXiv.junk', undefined],
      ['https://example.org/abs/2305.18248', undefined],
      ['not an id', undefined],
      ['', undefined],
      [undefined, undefined],
    ];

    it('reads arXiv ids in every spelling and checks that they could have been assigned', () => {
      eachRow(ids, (value) => (value === undefined ? undefined : parseArxivId(value)));
    });

    it('normalises to the versionless id', () => {
      eachRow(
        ids.map(([written, parsed]) => [written, parsed?.id] as const),
        normalizeArxivId,
      );
    });

    it('keeps an id shaped like arXiv as written, its date unchecked, so that it can be reported', () => {
      eachRow<string>(
        [
          ['arXiv:0703.0001v2', '0703.0001'],
          ['HEP-TH/9901001', 'HEP-TH/9901001'],
          ['https://arxiv.org/abs/2313.12345v1', '2313.12345'],
          ['10.48550/arXiv.1501.1234', '1501.1234'],
          ['2305.18248 [cs.CL]', '2305.18248'],
          ['junk', undefined],
          ['2305.182', undefined],
        ],
        (value) => arxivIdAsWritten(value ?? ''),
      );
    });

    it('takes a record’s arXiv id from its id or else its arXiv DOI', () => {
      const rows: readonly (readonly [string | undefined, string | undefined, string | undefined])[] = [
        [undefined, '10.48550/arXiv.2104.09425', '2104.09425'],
        ['2305.18248v1', '10.1000/x', '2305.18248'],
        ['junk', '10.48550/arXiv.2104.09425', '2104.09425'],
        [undefined, '10.1000/x', undefined],
        [undefined, 'https://arxiv.org/abs/2305.18248', undefined],
        [undefined, undefined, undefined],
      ];
      for (const [id, doi, expected] of rows) assert.equal(arxivIdOf(id, doi), expected, `${id} ${doi}`);
    });
  });

  describe('PubMed ids', () => {
    it('reads PMIDs', () => {
      eachRow<string>(
        [
          ['12345678', '12345678'],
          [' PMID: 12345678 ', '12345678'],
          ['pmid12345678', '12345678'],
          ['https://pubmed.ncbi.nlm.nih.gov/12345678/', '12345678'],
          ['https://www.ncbi.nlm.nih.gov/pubmed/123', '123'],
          ['1234567890', undefined],
          ['PMC123', undefined],
          ['12a', undefined],
          ['-1', undefined],
          ['1.5', undefined],
          ['https://example.org/12345678', undefined],
          ['', undefined],
          [undefined, undefined],
        ],
        normalizePmid,
      );
    });

    it('reads PMCIDs as PMC and digits', () => {
      eachRow<string>(
        [
          ['PMC1234567', 'PMC1234567'],
          ['pmc1234567', 'PMC1234567'],
          ['1234567', 'PMC1234567'],
          ['https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1234567/', 'PMC1234567'],
          ['https://pmc.ncbi.nlm.nih.gov/articles/PMC1234567/', 'PMC1234567'],
          ['PMC', undefined],
          ['PMC1234567890', undefined],
          ['PMID 123', undefined],
          ['PMC12a', undefined],
          ['PMC../../admin', undefined],
          [undefined, undefined],
        ],
        normalizePmcid,
      );
    });
  });

  describe('ISBNs', () => {
    it('checks the check digit and writes every ISBN as its ISBN-13', () => {
      eachRow<string>(
        [
          ['978-3-16-148410-0', '9783161484100'],
          ['9783161484100', '9783161484100'],
          ['978 3 16 148410 0', '9783161484100'],
          ['ISBN 978-3-16-148410-0', '9783161484100'],
          ['ISBN-13: 978-3-16-148410-0', '9783161484100'],
          ['979-10-90636-07-1', '9791090636071'],
          ['0-306-40615-2', '9780306406157'],
          ['0306406152', '9780306406157'],
          ['ISBN-10: 0 306 40615 2', '9780306406157'],
          ['0-8044-2957-X', '9780804429573'],
          ['080442957x', '9780804429573'],
          ['978-3-16-148410-1', undefined],
          ['0-306-40615-3', undefined],
          ['3161484100', undefined],
          ['X306406152', undefined],
          ['08044X2957', undefined],
          ['977-3-16-148410-0', undefined],
          ['123456789', undefined],
          ['97831614841000', undefined],
          ['978-3-16-148410-0-', undefined],
          ['ISBN', undefined],
          ['', undefined],
          ['9'.repeat(10_000), undefined],
          [undefined, undefined],
        ],
        normalizeIsbn,
      );
    });
  });

  it('a .bib DOI written with www.doi.org reaches the check as the DOI the sources are asked about', () => {
    const entry = parseBibliography('@article{k, title={T}, doi={https://www.doi.org/10.1000/ABC}}', '/w/refs.bib').entries[0];
    assert.equal(entry.doi, '10.1000/ABC');
    assert.equal(normalizeDoi(entry.doi), '10.1000/abc');
  });
});

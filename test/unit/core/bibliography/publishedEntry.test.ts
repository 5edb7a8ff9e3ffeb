import assert from 'node:assert/strict';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import { entryAsPublished } from '../../../../src/core/bibliography/publishedEntry';
import type { BibEntry } from '../../../../src/core/bibliography/types';
import { parseCrossrefWorkResponse } from '../../../../src/core/sources/crossref';
import type { SourceId } from '../../../../src/core/sources/ids';
import type { BibliographicQuery, PaperSource, SourceRecord } from '../../../../src/core/sources/types';
import { resolveEntry } from '../../../../src/core/verify/existence';
import { referenceFindings } from '../../../../src/core/verify/references';

const AUTHORS = [
  { family: 'He', given: 'Kaiming' },
  { family: 'Zhang', given: 'Xiangyu' },
  { family: 'Ren', given: 'Shaoqing' },
  { family: 'Sun', given: 'Jian' },
];
const TITLE = 'Deep Residual Learning for Image Recognition';
const PUBLISHED: SourceRecord = {
  source: 'crossref',
  id: '10.1109/cvpr.2016.90',
  title: TITLE,
  authors: AUTHORS,
  year: 2016,
  venue: '2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)',
  doi: '10.1109/cvpr.2016.90',
};

/** Crossref's answer for a bioRxiv preprint, `posted-content` with `relation.is-preprint-of`, as its API documents it. */
const POSTED = {
  status: 'ok',
  'message-type': 'work',
  message: {
    DOI: '10.1101/2020.01.22.914952',
    type: 'posted-content',
    subtype: 'preprint',
    title: ['Discovery of a novel coronavirus associated with the recent pneumonia outbreak in humans and its potential bat origin'],
    author: [
      { given: 'Peng', family: 'Zhou', sequence: 'first' },
      { given: 'Zheng-Li', family: 'Shi', sequence: 'additional' },
    ],
    issued: { 'date-parts': [[2020, 1, 23]] },
    institution: [{ name: 'bioRxiv' }],
    relation: { 'is-preprint-of': [{ 'id-type': 'doi', id: '10.1038/s41586-020-2012-7', 'asserted-by': 'subject' }] },
  },
};
const NATURE: SourceRecord = {
  source: 'openalex',
  id: 'W3001118548',
  title: 'A pneumonia outbreak associated with a new coronavirus of probable bat origin',
  authors: [
    { family: 'Zhou', given: 'Peng' },
    { family: 'Shi', given: 'Zheng-Li' },
  ],
  year: 2020,
  venue: 'Nature',
  doi: '10.1038/s41586-020-2012-7',
};

/** A source that answers by DOI, arXiv id and title from the records it knows. */
function source(id: SourceId, records: readonly SourceRecord[]): PaperSource {
  return {
    id,
    name: id,
    byDoi: async (doi: string) => records.find((r) => r.doi === doi.toLowerCase()),
    byArxivId: async (arxivId: string) => records.find((r) => r.arxivId === arxivId),
    search: async (query: BibliographicQuery) => records.filter((r) => r.title.toLowerCase() === query.title.toLowerCase()),
  };
}

function entry(bibtex: string): BibEntry {
  const [parsed] = parseBibliography(bibtex, '/p/refs.bib').entries;
  return parsed;
}

const ARXIV_ENTRY = `@article{he2015,
  title = {Deep Residual Learning for Image Recognition},
  author = {He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian},
  journal = {arXiv preprint arXiv:1512.03385},
  eprint = {1512.03385},
  archivePrefix = {arXiv},
  year = {2015},
  note = {arXiv preprint},
  keywords = {resnet, vision},
  abstract = {Deeper neural networks are more difficult to train.}
}`;

describe('grown-up preprints', () => {
  it('says a cited arXiv preprint was published, when a source holds both versions in one record', async () => {
    const both: SourceRecord = { ...PUBLISHED, source: 'semanticscholar', id: '2c03df8b48bf3fa39054345bafabfeff15bfd11d', arxivId: '1512.03385' };
    const cited = entry(ARXIV_ENTRY);
    const verdict = await resolveEntry(cited, [source('semanticscholar', [both])]);
    assert.equal(verdict.status === 'found' && verdict.publishedVersion?.doi, '10.1109/cvpr.2016.90');
    const [finding] = referenceFindings(new Map([['he2015', { entry: cited, verdict }]]), [], false);
    assert.deepEqual([finding.code, finding.severity, finding.evidence?.record?.doi], ['preprint-published', 'information', '10.1109/cvpr.2016.90']);
    assert.match(finding.message, /cites a preprint that has since been published in 2016 IEEE Conference .*\(CVPR\), 2016/);
  });

  it("follows Crossref's is-preprint-of from a bioRxiv preprint to its journal version", async () => {
    const preprint = parseCrossrefWorkResponse(POSTED);
    const cited = entry(
      '@article{zhou2020, title={Discovery of a novel coronavirus associated with the recent pneumonia outbreak in humans and its potential bat origin}, author={Zhou, Peng and Shi, Zheng-Li}, journal={bioRxiv}, year={2020}, doi={10.1101/2020.01.22.914952}}',
    );
    const verdict = await resolveEntry(cited, [source('crossref', [preprint]), source('openalex', [NATURE])]);
    assert.equal(verdict.status, 'found');
    assert.equal(verdict.status === 'found' && verdict.publishedVersion?.venue, 'Nature');
  });

  it('says nothing of an entry that cites the published version, or a preprint no source knows published', async () => {
    const published = await resolveEntry(
      entry(
        `@inproceedings{he2016, title={${TITLE}}, author={He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian}, booktitle={CVPR}, year={2016}, doi={10.1109/CVPR.2016.90}}`,
      ),
      [source('crossref', [PUBLISHED])],
    );
    assert.equal(published.status === 'found' && published.publishedVersion, undefined);
    const arxivOnly: SourceRecord = { source: 'arxiv', id: '1512.03385', title: TITLE, authors: AUTHORS, year: 2015, arxivId: '1512.03385' };
    const only = await resolveEntry(entry(ARXIV_ENTRY), [source('arxiv', [arxivOnly])]);
    assert.equal(only.status, 'found');
    assert.equal(only.status === 'found' && only.publishedVersion, undefined);
  });

  it("rewrites the entry as the published version, keeping its key and the writer's own fields", () => {
    parseBibliography('', '/p/load.bib');
    const rewritten = entryAsPublished(ARXIV_ENTRY, PUBLISHED);
    assert.ok(rewritten);
    const [read] = parseBibliography(rewritten, '/p/refs.bib').entries;
    assert.deepEqual([read.key, read.type, read.doi, read.year, read.arxivId], ['he2015', 'inproceedings', '10.1109/cvpr.2016.90', 2016, undefined]);
    assert.equal(read.abstract, 'Deeper neural networks are more difficult to train.');
    assert.match(rewritten, /keywords = \{resnet, vision\}/);
    assert.doesNotMatch(rewritten, /note|eprint|arXiv preprint/i);
    assert.equal(entryAsPublished('not an entry', PUBLISHED), undefined);
  });
});

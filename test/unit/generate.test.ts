import assert from 'node:assert/strict';
import { textToAppend } from '../../src/core/bibliography/append';
import { bibtexFor, citationKeyFor, findExisting } from '../../src/core/bibliography/generate';
import { parseBibliography } from '../../src/core/bibliography/parse';
import type { BibEntry } from '../../src/core/bibliography/types';
import type { SourceRecord } from '../../src/core/sources/types';

function record(fields: Partial<SourceRecord> & Pick<SourceRecord, 'title'>): SourceRecord {
  return { source: 'openalex', id: 'W1', authors: [], ...fields };
}

/** The one entry `bibtex` holds, as our own reader sees it; fails on any problem. */
function readBack(bibtex: string): BibEntry {
  const bib = parseBibliography(bibtex, '/refs.bib');
  assert.deepEqual(bib.problems, []);
  assert.equal(bib.entries.length, 1);
  return bib.entries[0];
}

const LECUN = record({
  title: 'Deep learning',
  authors: [
    { family: 'LeCun', given: 'Yann' },
    { family: 'Bengio', given: 'Yoshua' },
    { family: 'Hinton', given: 'Geoffrey' },
  ],
  year: 2015,
  venue: 'Nature',
  doi: '10.1038/nature14539',
});

describe('generating BibTeX entries', () => {
  it('writes a journal article that reads back with the same title, authors, year, venue and DOI', () => {
    const entry = readBack(bibtexFor(LECUN, 'lecun2015deep'));
    assert.equal(entry.key, 'lecun2015deep');
    assert.equal(entry.type, 'article');
    assert.equal(entry.title, 'Deep learning');
    assert.deepEqual(entry.authors, LECUN.authors);
    assert.equal(entry.year, 2015);
    assert.equal(entry.venue, 'Nature');
    assert.equal(entry.doi, '10.1038/nature14539');
  });

  it('escapes accents and LaTeX specials so that they read back as written', () => {
    const tricky = record({
      title: 'Zürich & Łódź: 50% of $x_1$ models, {braces} ~ ^ \\ and α-divergence',
      authors: [
        { family: 'Müller', given: 'Jürgen' },
        { family: 'van der Berg', given: 'Jan' },
        { literal: 'AT&T Labs' },
        { family: "O'Brien", given: 'Seán' },
      ],
      year: 2021,
      venue: 'Journal of Statistical Software',
    });
    const bibtex = bibtexFor(tricky, 'muller2021zurich');
    const entry = readBack(bibtex);
    assert.equal(entry.title, tricky.title);
    assert.deepEqual(entry.authors, tricky.authors);
    assert.match(bibtex, /50\\%/);
    assert.match(bibtex, /\{AT\\&T Labs\}/);
    // Accented Latin letters are written as ASCII escapes, which every BibTeX reads.
    assert.match(bibtex, /^[\x00-\x7f]*$/);
  });

  it('keeps scripts citation-js has no escape for, instead of dropping them, and still escapes specials', () => {
    const russian = record({
      title: 'Функциональный анализ: 50% & ≤ ∞',
      authors: [{ family: 'Колмогоров', given: 'Андрей' }],
      year: 1950,
    });
    const bibtex = bibtexFor(russian, 'kolmogorov1950');
    const entry = readBack(bibtex);
    assert.equal(entry.title, russian.title);
    assert.deepEqual(entry.authors, russian.authors);
    assert.match(bibtex, /50\\% \\& ≤ ∞/);
  });

  it('types conference papers as @inproceedings and keeps journals called "Proceedings" as @article', () => {
    const conference = readBack(bibtexFor({ ...LECUN, venue: 'International Conference on Machine Learning' }, 'k'));
    assert.equal(conference.type, 'inproceedings');
    assert.equal(conference.venue, 'International Conference on Machine Learning');
    assert.equal(readBack(bibtexFor({ ...LECUN, venue: 'NeurIPS' }, 'k')).type, 'inproceedings');
    assert.equal(readBack(bibtexFor({ ...LECUN, venue: 'Proceedings of the National Academy of Sciences' }, 'k')).type, 'article');
    assert.equal(readBack(bibtexFor({ ...LECUN, venue: 'IEEE Transactions on Pattern Analysis and Machine Intelligence' }, 'k')).type, 'article');
  });

  it('writes an arXiv preprint as @misc with eprint and archiveprefix, and no journal', () => {
    const preprint = record({
      source: 'arxiv',
      title: 'Attention Is All You Need',
      authors: [{ family: 'Vaswani', given: 'Ashish' }],
      year: 2017,
      venue: 'arXiv (Cornell University)',
      arxivId: '1706.03762',
    });
    const bibtex = bibtexFor(preprint, 'vaswani2017attention');
    const entry = readBack(bibtex);
    assert.equal(entry.type, 'misc');
    assert.equal(entry.arxivId, '1706.03762');
    assert.equal(entry.url, 'https://arxiv.org/abs/1706.03762');
    assert.equal(entry.venue, undefined);
    assert.match(bibtex, /eprint = \{1706\.03762\}/);
    assert.match(bibtex, /archiveprefix = \{arXiv\}/);
  });

  it('keeps the venue type of a published paper that is also on arXiv, with its eprint', () => {
    const bert = record({
      title: 'BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding',
      authors: [{ family: 'Devlin', given: 'Jacob' }],
      year: 2019,
      venue: 'Proceedings of the 2019 Conference of the North American Chapter of the Association for Computational Linguistics',
      doi: '10.18653/v1/N19-1423',
      arxivId: '1810.04805',
    });
    const bibtex = bibtexFor(bert, 'devlin2019bert');
    const entry = readBack(bibtex);
    assert.equal(entry.type, 'inproceedings');
    assert.equal(entry.arxivId, '1810.04805');
    assert.equal(entry.doi, '10.18653/v1/N19-1423');
    // Sentence-case styles would print "Bert:" were the leading acronym not braced.
    assert.match(bibtex, /title = \{\{BERT\}: /);
  });

  it('links a paper without DOI or arXiv id to its open-access copy, and repeats no URL as howpublished', () => {
    const bibtex = bibtexFor(record({ title: 'A report', url: 'https://openalex.org/W1', openAccessUrl: 'https://example.org/report_1.pdf' }), 'report');
    assert.equal(readBack(bibtex).url, 'https://example.org/report_1.pdf');
    assert.doesNotMatch(bibtex, /howpublished/);
    assert.doesNotMatch(bibtexFor(LECUN, 'k'), /url =/);
  });

  it('keeps the key it is given, even one citation-js would replace', () => {
    assert.equal(readBack(bibtexFor(LECUN, 'LeCun:2015-deep')).key, 'LeCun:2015-deep');
    assert.throws(() => bibtexFor(LECUN, 'two words'), /cannot be a BibTeX key/);
  });
});

describe('citation keys', () => {
  const none = new Set<string>();

  it('joins the first author, the year and the first significant title word', () => {
    assert.equal(citationKeyFor(LECUN, none), 'lecun2015deep');
    const darwin = record({ title: 'On the Origin of Species', authors: [{ family: 'Darwin', given: 'Charles' }], year: 1859 });
    assert.equal(citationKeyFor(darwin, none), 'darwin1859origin');
    const bert = record({ title: 'Pre-training of deep transformers', authors: [{ family: 'Devlin', given: 'J.' }], year: 2019 });
    assert.equal(citationKeyFor(bert, none), 'devlin2019pretraining');
  });

  it('folds accents and special letters to ASCII and keeps name particles', () => {
    const key = (family: string) => citationKeyFor(record({ title: 'Deep nets', authors: [{ family, given: 'A.' }], year: 2020 }), none);
    assert.equal(key('Müller'), 'muller2020deep');
    assert.equal(key('Ørsted'), 'orsted2020deep');
    assert.equal(key('Łukasiewicz'), 'lukasiewicz2020deep');
    assert.equal(key('van der Berg'), 'vanderberg2020deep');
    assert.equal(key('Rodríguez-Velázquez'), 'rodriguezvelazquez2020deep');
  });

  it('takes the first word of an organisation, and the title when there is no author', () => {
    const ligo = record({ title: 'Observation of gravitational waves', authors: [{ literal: 'The LIGO Scientific Collaboration' }], year: 2016 });
    assert.equal(citationKeyFor(ligo, none), 'ligo2016observation');
    assert.equal(citationKeyFor(record({ title: 'The Deep Learning Book', year: 2016 }), none), 'deep2016');
    assert.equal(citationKeyFor(record({ title: 'Deep nets', authors: [{ family: 'Smith', given: 'J.' }] }), none), 'smithdeep');
    assert.equal(citationKeyFor(record({ title: 'Функциональный анализ', authors: [{ family: 'Колмогоров' }], year: 1950 }), none), 'ref1950');
  });

  it('adds b, c, … to a key already taken, comparing keys without case as BibTeX does', () => {
    assert.equal(citationKeyFor(LECUN, new Set(['lecun2015deep'])), 'lecun2015deepb');
    assert.equal(citationKeyFor(LECUN, new Set(['LeCun2015Deep', 'lecun2015deepb'])), 'lecun2015deepc');
    const many = new Set(['lecun2015deep', ...'bcdefghijklmnopqrstuvwxyz'.split('').map((c) => `lecun2015deep${c}`)]);
    assert.equal(citationKeyFor(LECUN, many), 'lecun2015deepaa');
  });
});

describe('finding a record already in the bibliography', () => {
  const BIB = parseBibliography(
    String.raw`
@article{first, title = {Something else entirely}, year = 2015, doi = {10.1000/other}}
@article{lecun, title = {Deep {L}earning.}, author = {LeCun, Yann}, year = 2016}
@article{byDoi, title = {Renamed in the bib}, doi = {https://doi.org/10.1038/NATURE14539}}
@misc{vaswani, title = {Attention is all you need}, eprint = {1706.03762v5}, archiveprefix = {arXiv}}
@article{editorial, title = {Editorial}, year = 2020, doi = {10.1000/ed.2020.1}}
@article{preprintOnly, title = {Graph networks}, year = 2018, doi = {10.48550/arXiv.1806.01261}}
`,
    '/refs.bib',
  ).entries;

  it('matches the DOI whatever its case and resolver prefix, before any title', () => {
    assert.equal(findExisting(LECUN, BIB)?.key, 'byDoi');
    assert.equal(findExisting({ ...LECUN, doi: 'doi:10.1038/Nature14539' }, BIB)?.key, 'byDoi');
  });

  it('matches the arXiv id', () => {
    const vaswani = record({ title: 'Attention is all you need (v7)', arxivId: '1706.03762' });
    assert.equal(findExisting(vaswani, BIB)?.key, 'vaswani');
  });

  it('matches the title without case and punctuation, with years at most one apart or missing', () => {
    const title = (year?: number) => findExisting(record({ title: 'Deep learning', year }), BIB)?.key;
    assert.equal(title(2015), 'lecun');
    assert.equal(title(2017), 'lecun');
    assert.equal(title(undefined), 'lecun');
    assert.equal(title(2010), undefined);
  });

  it('tells apart two works with different DOIs or arXiv ids, but not a preprint from its publication', () => {
    assert.equal(findExisting(record({ title: 'Editorial', year: 2020, doi: '10.1000/ed.2020.2' }), BIB), undefined);
    assert.equal(findExisting(record({ title: 'Attention is all you need', arxivId: '2401.00001' }), BIB), undefined);
    assert.equal(findExisting(record({ title: 'Graph Networks', year: 2019, doi: '10.1000/journal.graph' }), BIB)?.key, 'preprintOnly');
  });

  it('finds nothing for a new paper', () => {
    assert.equal(findExisting(record({ title: 'A new paper', year: 2024, doi: '10.1000/new' }), BIB), undefined);
  });
});

describe('appending an entry', () => {
  const ENTRY = '@misc{new,\n\ttitle = {New},\n}';

  it('separates the entry by exactly one blank line, whatever the file ends with', () => {
    assert.equal(textToAppend('@misc{a}', ENTRY), `\n\n${ENTRY}\n`);
    assert.equal(textToAppend('@misc{a}\n', ENTRY), `\n${ENTRY}\n`);
    assert.equal(textToAppend('@misc{a}\n\n', ENTRY), `${ENTRY}\n`);
    assert.equal(textToAppend('@misc{a}\n  \n\n', ENTRY), `${ENTRY}\n`);
    assert.equal(textToAppend('', ENTRY), `${ENTRY}\n`);
    assert.equal(textToAppend('\n\n', ENTRY), `${ENTRY}\n`);
  });

  it("writes the entry in the file's CRLF line endings", () => {
    assert.equal(textToAppend('@misc{a}\r\n', ENTRY), `\r\n${ENTRY.replace(/\n/g, '\r\n')}\r\n`);
  });
});

import assert from 'node:assert/strict';
import { textToAppend } from '../../../../src/core/bibliography/append';
import { bibtexFor, citationKeyFor, findExisting } from '../../../../src/core/bibliography/generate';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import type { BibEntry } from '../../../../src/core/bibliography/types';
import type { SourceRecord } from '../../../../src/core/sources/types';

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
      authors: [{ family: 'Müller', given: 'Jürgen' }, { family: 'van der Berg', given: 'Jan' }, { literal: 'AT&T Labs' }, { family: "O'Brien", given: 'Seán' }],
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

/** Whether the entry's outer braces close only at its end, as BibTeX counts braces (`\{` included). */
function closesOnlyAtEnd(bibtex: string): boolean {
  let depth = 0;
  for (let i = bibtex.indexOf('{'); i < bibtex.length; i++) {
    if (bibtex[i] === '{') depth++;
    else if (bibtex[i] === '}' && --depth === 0) return i === bibtex.length - 1;
  }
  return false;
}

describe('generating BibTeX from a hostile record', () => {
  const BREAKOUT = '}}@preamble{"\\input{/etc/passwd}"}@misc{zz,note={},';

  it('writes no DOI that would end its value: the injected DOI is left out and the entry stays one', () => {
    const bibtex = bibtexFor({ ...LECUN, doi: `10.1234/x${BREAKOUT}` }, 'k');
    assert.ok(closesOnlyAtEnd(bibtex), bibtex);
    assert.doesNotMatch(bibtex, /preamble|\\input/);
    const entry = readBack(bibtex);
    assert.equal(entry.key, 'k');
    assert.equal(entry.doi, undefined);
  });

  it('leaves out a DOI with whitespace, a backslash, `^` or `%`, or one too long to be registered', () => {
    for (const doi of ['10.1234/a b', '10.1234/a\\input', '10.1234/^^5cinput', '10.1234/a%b', `10.1234/${'x'.repeat(400)}`, '10.12/short-registrant']) {
      const bibtex = bibtexFor({ ...LECUN, doi }, 'k');
      assert.doesNotMatch(bibtex, /doi =/, doi);
      assert.equal(readBack(bibtex).doi, undefined);
    }
  });

  it('writes real DOIs verbatim, never LaTeX-escaped, and reads them back as they were', () => {
    for (const doi of ['10.1002/(SICI)1097-4636(199706)35:4<445::AID-JBM5>3.0.CO;2-H', '10.1000/a_b#c~d&e$f', '10.1093/nar/gkaa1100']) {
      const bibtex = bibtexFor({ ...LECUN, doi }, 'k');
      assert.ok(bibtex.includes(`doi = {${doi}}`), bibtex);
      assert.equal(readBack(bibtex).doi, doi);
    }
    assert.equal(readBack(bibtexFor({ ...LECUN, doi: 'https://doi.org/10.1038/nature14539' }, 'k')).doi, '10.1038/nature14539');
  });

  it('percent-encodes what would end a URL value or start a command, and writes web addresses only', () => {
    const bibtex = bibtexFor(record({ title: 'A report', url: `https://example.org/p_1?q=${BREAKOUT}#^^5c` }), 'k');
    assert.ok(closesOnlyAtEnd(bibtex), bibtex);
    assert.doesNotMatch(bibtex, /[\\^]|@preamble\{/);
    const url = readBack(bibtex).url ?? '';
    assert.match(url, /^https:\/\/example\.org\/p_1\?q=%7D%7D@preamble%7B/);
    assert.equal(decodeURIComponent(new URL(url).search), `?q=${BREAKOUT}`);
    for (const link of ['javascript:alert(1)', 'file:///etc/passwd', `https://example.org/${'x'.repeat(3000)}`]) {
      assert.equal(readBack(bibtexFor(record({ title: 'A report', url: link }), 'k')).url, undefined, link);
    }
    // A URL that cannot be written gives way to the next one the record has.
    assert.equal(readBack(bibtexFor(record({ title: 'A report', openAccessUrl: 'file:///x.pdf', url: 'https://openalex.org/W1' }), 'k')).url, 'https://openalex.org/W1');
  });

  it('escapes every text field, in ASCII and in UTF-8, so that each reads back as it was and the entry stays one', () => {
    for (const script of ['', ' Кириллица']) {
      const hostile = record({
        title: `T${BREAKOUT}${script}`,
        // A family name keeps no `,` (it would split the name) nor `=` (which the reader's name parser drops).
        authors: [{ family: `Smith${BREAKOUT.replace(/[,=]/g, ';')}`, given: 'J^^5c' }, { literal: `Org ${BREAKOUT}` }],
        year: 2020,
        venue: `Journal of X${BREAKOUT}`,
        doi: '10.1234/ok',
      });
      const bibtex = bibtexFor(hostile, 'k');
      assert.ok(closesOnlyAtEnd(bibtex), bibtex);
      const entry = readBack(bibtex);
      assert.equal(entry.title, hostile.title);
      assert.deepEqual(entry.authors, hostile.authors);
      assert.equal(entry.venue, hostile.venue);
      assert.equal(entry.year, 2020);
      assert.equal(entry.doi, '10.1234/ok');
    }
  });
});

/**
 * Values a record from outside may hold, each of which has broken a writer somewhere: line breaks
 * before `@type{` (an imported library paper's title), unbalanced braces, comments, commands, quotes,
 * the characters of BibTeX's own syntax, name separators, very long text, non-BMP characters and controls.
 */
const HOSTILE_VALUES = [
  'line\nbreak\n@misc{x, title = {y}}',
  'crlf\r\n@article(x, note = "y")\r\n',
  'a lone\rreturn, a tab\tand Unicode\u2028separators\u2029@misc{z,',
  '@comment{ at the start and @preamble{"x"} later',
  'unbalanced { open',
  'unbalanced } close',
  '}{ reversed } { braces }}{{',
  '50% of %comments',
  'back\\slash \\input{/etc/passwd} \\\\ and a trailing \\',
  '"double" \'single\' quotes" and a stray "',
  'a = b == c =',
  'commas, and, more, commas,',
  'AND and And between words',
  '# ~ ^ & $ _ ^^5c',
  // A lowercase word with a hyphen in a family name is read back without it (citation-js's names).
  'Non-BMP 𝔸𝔹 😀 𠀀',
  'controls \u0000 \u0007 \u001b[31m \u007f \u0085 \ufeff end',
];

/** A line break or control character is written as a space; BibTeX reads each run of spaces as one. */
function asWritten(value: string): string {
  return value
    .replace(/[\p{Cc}\u2028\u2029]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('generating BibTeX that reads back, whatever the record holds', () => {
  /** One failure per value and field, so that the test names each one that does not read back. */
  function roundTripFailures(make: (value: string) => SourceRecord, compare: (entry: BibEntry, value: string) => string | undefined, values: readonly string[]): string[] {
    const failures: string[] = [];
    for (const value of values) {
      const before = '@misc{before, title = {B}}\n';
      const bib = parseBibliography(before + textToAppend(before, bibtexFor(make(value), 'smith:2020-x')), '/refs.bib');
      const keys = bib.entries.map((e) => e.key);
      if (bib.problems.length > 0 || keys.join() !== 'before,smith:2020-x') {
        failures.push(`${JSON.stringify(value.slice(0, 100))}: keys ${JSON.stringify(keys)}, ${bib.problems.map((p) => p.message).join('; ')}`);
        continue;
      }
      const wrong = compare(bib.entries[1], value);
      if (wrong !== undefined) failures.push(`${JSON.stringify(value.slice(0, 100))}: ${wrong.slice(0, 300)}`);
    }
    return failures;
  }

  function differs(field: string, read: unknown, expected: unknown): string | undefined {
    return JSON.stringify(read) === JSON.stringify(expected) ? undefined : `${field} read back as ${JSON.stringify(read)}`;
  }

  const LONG = Array.from({ length: 20_000 }, (_, i) => `word${i}`).join(' ');
  // Attest's reader takes a name over 1,000 characters for something else (nameList.ts).
  const LONG_NAME = 'N'.repeat(900);

  it('writes a title and a venue that read back as they were, the entry one and its key the same', () => {
    const failures = roundTripFailures(
      (value) => record({ title: `Title ${value}`, venue: `Journal of ${value}`, authors: [{ family: 'Smith', given: 'Jane' }], year: 2020 }),
      (entry, value) =>
        differs('title', entry.title, asWritten(`Title ${value}`)) ?? differs('venue', entry.venue, asWritten(`Journal of ${value}`)) ?? differs('year', entry.year, 2020),
      [...HOSTILE_VALUES, LONG],
    );
    assert.deepEqual(failures, []);
  });

  it('writes family, given and organisation names that read back as they were', () => {
    const failures = roundTripFailures(
      (value) => record({ title: 'T', authors: [{ family: `Fam ${value}`, given: 'Jane' }, { family: 'Doe', given: `Given ${value}` }, { literal: `Org ${value}` }] }),
      (entry, value) =>
        differs('authors', entry.authors, [
          { family: asWritten(`Fam ${value}`), given: 'Jane' },
          { family: 'Doe', given: asWritten(`Given ${value}`) },
          { literal: asWritten(`Org ${value}`) },
        ]),
      [...HOSTILE_VALUES, LONG_NAME],
    );
    assert.deepEqual(failures, []);
  });

  it('writes a DOI, a URL and an arXiv id as they were, or not at all, never breaking the entry', () => {
    const failures = roundTripFailures(
      // Without whitespace, which no DOI has, some of these are DOIs to write.
      (value) => record({ title: 'T', doi: `10.1234/${value.replace(/\s/g, '')}`, url: `https://example.org/${value}` }),
      (entry, value) =>
        (entry.doi === undefined || entry.doi === `10.1234/${value.replace(/\s/g, '')}` ? undefined : `doi read back as ${JSON.stringify(entry.doi)}`) ??
        (entry.url === undefined || (entry.url.startsWith('https://example.org/') && new URL(entry.url).href === entry.url)
          ? undefined
          : `url read back as ${JSON.stringify(entry.url)}`),
      [...HOSTILE_VALUES, LONG],
    );
    failures.push(
      ...roundTripFailures(
        (value) => record({ title: 'T', arxivId: `2401.00001${value}` }),
        (entry) => differs('eprint', entry.arxivId ?? '2401.00001', '2401.00001'),
        HOSTILE_VALUES,
      ),
    );
    assert.deepEqual(failures, []);
  });

  it('refuses a key that would not read back, control characters included', () => {
    for (const key of ['two words', 'a,b', 'a{b', 'a}b', 'a"b', 'a#b', 'a%b', 'a=b', 'a\\b', 'a~b', 'a\u0000b', 'a\u0085b', 'a\u2028b', '']) {
      assert.throws(() => bibtexFor(LECUN, key), /cannot be a BibTeX key/, JSON.stringify(key));
    }
    for (const key of ['smith:2020', 'Foreman-Mackey_2013.a', 'a@b', 'a(b)', "o'brien", 'é𝔸']) assert.equal(readBack(bibtexFor(LECUN, key)).key, key);
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

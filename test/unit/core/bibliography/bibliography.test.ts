import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as cslFromEntries } from '@citation-js/plugin-bibtex/lib/input/entries.js';
import { parse as parseBibtexFile } from '@citation-js/plugin-bibtex/lib/input/file.js';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import type { BibEntry, Bibliography } from '../../../../src/core/bibliography/types';
import type { Range } from '../../../../src/core/text/positions';
import { LineIndex } from '../../../../src/core/text/positions';
import { FIXTURES } from '../../support/helpers';

const MANUSCRIPTS = path.join(FIXTURES, 'manuscripts');
const CELERITE = path.join(MANUSCRIPTS, 'astro_celerite/paper/celerite.bib');
const DYNONET = path.join(MANUSCRIPTS, 'control_dynonet/doc/paper/ms.bib');
const GMR = path.join(MANUSCRIPTS, 'md_joss_gmr/paper/paper.bib');

function parse(text: string): Bibliography {
  return parseBibliography(text, '/project/refs.bib');
}

function readBib(file: string): { text: string; bib: Bibliography } {
  const text = fs.readFileSync(file, 'utf8');
  return { text, bib: parseBibliography(text, file) };
}

function entry(bib: Bibliography, key: string): BibEntry {
  const found = bib.entries.find((e) => e.key === key);
  assert.ok(found, `no entry '${key}' among ${bib.entries.map((e) => e.key).join(', ')}`);
  return found;
}

/** The source text a range covers. */
function covered(text: string, range: Range): string {
  const lines = new LineIndex(text);
  return text.slice(lines.offsetAt(range.start), lines.offsetAt(range.end));
}

function messages(bib: Bibliography): string[] {
  return bib.problems.map((p) => p.message);
}

describe('BibTeX bibliographies', () => {
  describe('real bibliographies', () => {
    it('reads all 125 entries of celerite.bib without problems', () => {
      const { bib } = readBib(CELERITE);
      assert.equal(bib.entries.length, 125);
      assert.deepEqual(bib.problems, []);
      assert.equal(bib.file, CELERITE);
      assert.ok(bib.entries.every((e) => e.file === CELERITE));
    });

    it('points every range at the entry and every key range at the key as written', () => {
      for (const file of [CELERITE, DYNONET, GMR]) {
        const { text, bib } = readBib(file);
        for (const e of bib.entries) {
          assert.equal(covered(text, e.keyRange), e.key);
          const whole = covered(text, e.range);
          assert.match(whole, /^@\w+\{/);
          assert.ok(whole.endsWith('}'), `${e.key} range ends with ${JSON.stringify(whole.slice(-10))}`);
        }
      }
    });

    it('reads an ADS entry: AAS journal macro, arXiv eprint, braced family names, ~ in initials', () => {
      const { bib } = readBib(CELERITE);
      const feroz = entry(bib, 'Feroz:2009');
      assert.equal(feroz.type, 'article');
      assert.equal(feroz.title, 'MULTINEST: an efficient and robust Bayesian inference tool for cosmology and particle physics');
      assert.deepEqual(feroz.authors, [
        { family: 'Feroz', given: 'F.' },
        { family: 'Hobson', given: 'M. P.' },
        { family: 'Bridges', given: 'M.' },
      ]);
      assert.equal(feroz.year, 2009);
      assert.equal(feroz.venue, 'MNRAS');
      assert.equal(feroz.doi, '10.1111/j.1365-2966.2009.14548.x');
      assert.equal(feroz.arxivId, '0809.3437');
      assert.equal(feroz.range.start.line, 35);
      assert.deepEqual(feroz.keyRange, { start: { line: 35, character: 9 }, end: { line: 35, character: 19 } });
    });

    it('turns the accents of celerite.bib into Unicode', () => {
      const { bib } = readBib(CELERITE);
      assert.deepEqual(entry(bib, 'Ivezic:2014').authors[0], { family: 'Ivezić', given: 'Željko' });
      assert.equal(entry(bib, 'Gregory:2005').title?.endsWith('Mathematica® Support'), true);
      assert.deepEqual(
        entry(bib, 'Rauer:2014').authors.find((a) => a.family === 'Švanda'),
        { family: 'Švanda', given: 'M.' },
      );
    });

    it('agrees with citation-js reading a whole valid file on keys, titles, years and DOIs', () => {
      const plain = (title: string | undefined): string | undefined =>
        title
          ?.replace(/<[^>]+>/g, '')
          .normalize('NFC')
          .replace(/\s+/g, ' ')
          .trim();
      for (const file of [CELERITE, GMR]) {
        const { text, bib } = readBib(file);
        const raw = parseBibtexFile(text);
        const csl = cslFromEntries(raw);
        assert.deepEqual(
          bib.entries.map((e) => e.key),
          csl.map((item) => item.id),
        );
        assert.deepEqual(
          bib.entries.map((e) => e.title),
          csl.map((item) => plain(item.title)),
        );
        assert.deepEqual(
          bib.entries.map((e) => e.year),
          csl.map((item) => item.issued?.['date-parts']?.[0]?.[0]),
        );
        assert.deepEqual(
          bib.entries.map((e) => e.doi),
          raw.map((e) => (e.properties.doi === undefined ? undefined : String(e.properties.doi))),
        );
      }
    });

    it('keeps both copies of a duplicated key in ms.bib, in file order', () => {
      const { bib } = readBib(DYNONET);
      assert.equal(bib.entries.length, 24);
      const ogata = bib.entries.filter((e) => e.key === 'ogata1995discrete');
      assert.equal(ogata.length, 2);
      assert.deepEqual(
        ogata.map((e) => e.authors[0]),
        [
          { family: 'Ogata', given: 'Katsuhiko' },
          { family: 'Ogata', given: 'K.' },
        ],
      );
      assert.ok(ogata[0].range.start.line < ogata[1].range.start.line);
      assert.ok(ogata.every((e) => e.authorsTruncated === true && e.authors.length === 1));
    });

    it("reports ms.bib's missing comma and still keeps that entry's earlier fields", () => {
      const { bib } = readBib(DYNONET);
      assert.deepEqual(messages(bib), ["Missing ',' after field 'series' in entry 'giri2010block'"]);
      assert.equal(bib.problems[0].range.start.line, 73);
      const giri = entry(bib, 'giri2010block');
      assert.equal(giri.title, 'Block-oriented Nonlinear System Identification');
      assert.equal(giri.year, 2010);
    });

    it('reads the 8 entries of paper.bib', () => {
      const { bib } = readBib(GMR);
      assert.equal(bib.entries.length, 8);
      assert.deepEqual(bib.problems, []);
      const dempster = entry(bib, 'Dempster1977');
      assert.equal(dempster.url, 'http://www.jstor.org/stable/2984875');
      assert.equal(dempster.venue, 'Journal of the Royal Statistical Society. Series B (Methodological)');
      assert.deepEqual(
        dempster.authors.map((a) => a.family),
        ['Dempster', 'Laird', 'Rubin'],
      );
      assert.equal(entry(bib, 'Calinon2007').type, 'article');
      assert.equal(entry(bib, 'Ghahramani1994').venue, 'Advances in Neural Information Processing Systems');
    });
  });

  describe('LaTeX in values', () => {
    it('turns accents, special letters and escapes into Unicode', () => {
      const bib = parse(String.raw`@article{acc,
        author = {M{\"u}ller, J{\"o}rg and Jos\'{e} Garc{\'\i}a and Stra{\ss}er, Anna and {\AA}ngstr{\"o}m, Anders and Erd\H{o}s, P\'al},
        title = {{\"U}ber {Caf\'e} \& {M}ore -- a {\emph{test}} of 50\% $\alpha$},
        journal = {Z. f{\"u}r Physik},
      }`);
      assert.deepEqual(bib.problems, []);
      const e = entry(bib, 'acc');
      assert.deepEqual(e.authors, [
        { family: 'Müller', given: 'Jörg' },
        { family: 'García', given: 'José' },
        { family: 'Straßer', given: 'Anna' },
        { family: 'Ångström', given: 'Anders' },
        { family: 'Erdős', given: 'Pál' },
      ]);
      assert.equal(e.title, 'Über Café & More – a test of 50% α');
      assert.equal(e.venue, 'Z. für Physik');
    });

    it('gives accented letters in composed form, so they compare equal to typed ones', () => {
      const e = entry(parse(String.raw`@misc{a, author = {Garc{\'\i}a, Jos\'e and D\'{\i}az, Ana}}`), 'a');
      assert.deepEqual(
        e.authors.map((a) => a.family),
        ['Garc\u00eda', 'D\u00edaz'],
      );
    });

    it('keeps organisations whole, particles in the family name and drops "others"', () => {
      const e = entry(
        parse(String.raw`@misc{org,
        author = {{World Health Organization} and van der Berg, Jan and Ludwig van Beethoven and Smith, Jr., John and others},
      }`),
        'org',
      );
      assert.deepEqual(e.authors, [
        { literal: 'World Health Organization' },
        { family: 'van der Berg', given: 'Jan' },
        { family: 'van Beethoven', given: 'Ludwig' },
        { family: 'Smith', given: 'John' },
      ]);
      assert.equal(e.authorsTruncated, true);
    });

    it('does not mark complete author lists as truncated', () => {
      assert.equal(entry(parse('@misc{a, author = {Doe, Jane and Roe, Rick}}'), 'a').authorsTruncated, undefined);
    });

    it('joins a biblatex subtitle to the title and reads the year from a date', () => {
      const e = entry(parse('@online{a, title = {Main}, subtitle = {The Sequel}, date = {2021-03-04}}'), 'a');
      assert.equal(e.title, 'Main: The Sequel');
      assert.equal(e.year, 2021);
    });

    it('reads years written with suffixes or braces and ignores years that are not numbers', () => {
      const years = parse(`@misc{a, year = {2019a}}
@misc{b, year = "{2001}"}
@misc{c, year = {in press}}
@misc{d, year = 1999}`).entries.map((e) => e.year);
      assert.deepEqual(years, [2019, 2001, undefined, 1999]);
    });

    it('reports LaTeX that cannot be read but keeps the entry with readable text', () => {
      const text = '@misc{m,\n  title = {Energy of $x^2 with no end},\n  year = 2020}';
      const bib = parse(text);
      assert.deepEqual(messages(bib), ["Field 'title' of entry 'm' has an unclosed '$'"]);
      assert.equal(covered(text, bib.problems[0].range), '{Energy of $x^2 with no end}');
      const e = entry(bib, 'm');
      assert.equal(e.title, 'Energy of x^2 with no end');
      assert.equal(e.year, 2020);
    });

    it('reads an abstract as plain text', () => {
      const e = entry(parse('@misc{a, abstract = {We show\n   that it  works.}}'), 'a');
      assert.equal(e.abstract, 'We show that it works.');
    });
  });

  describe('@string macros', () => {
    it('expands macros defined earlier, case-insensitively, and concatenates with #', () => {
      const bib = parse(`@String{ApJ = "Astrophysical Journal"}
@string(jcomp = "Journal of " # "Computing")
@article{a, journal = apj, title = "Part " # {One}}
@article{b, journal = JCOMP # { Letters}}`);
      assert.deepEqual(bib.problems, []);
      assert.equal(entry(bib, 'a').venue, 'Astrophysical Journal');
      assert.equal(entry(bib, 'a').title, 'Part One');
      assert.equal(entry(bib, 'b').venue, 'Journal of Computing Letters');
    });

    it('knows the month macros without an @string', () => {
      const bib = parse('@article{a, title = {T}, month = jan, year = 2000}\n@article{b, month = sep # "~1"}');
      assert.deepEqual(bib.problems, []);
      assert.equal(entry(bib, 'a').year, 2000);
    });

    it('reports a macro used before (or without) its definition', () => {
      const text = '@article{a, journal = later}\n@string{later = "Too Late"}\n@article{b, journal = later}';
      const bib = parse(text);
      assert.deepEqual(messages(bib), ["Field 'journal' uses 'later', which is not defined by any earlier @string in entry 'a'"]);
      assert.equal(covered(text, bib.problems[0].range), 'later');
      assert.equal(entry(bib, 'a').venue, undefined);
      assert.equal(entry(bib, 'b').venue, 'Too Late');
    });

    it('applies macros defined before a broken entry to the entries after it', () => {
      const bib = parse('@string{j = "Journal"}\n@article{broken, title = {x} year = 1}\n@article{c, journal = j}');
      assert.equal(bib.problems.length, 1);
      assert.equal(entry(bib, 'c').venue, 'Journal');
    });
  });

  describe('crossref', () => {
    const proceedings = `@inproceedings{paper,
  author = {Doe, Jane},
  title = {A Paper},
  crossref = {conf2020},
}
@inproceedings{own,
  title = {Own Venue},
  booktitle = {Own Booktitle},
  year = 1999,
  crossref = {conf2020},
}
@proceedings{conf2020,
  title = {Proceedings of the Conference},
  year = 2020,
  doi = {10.1000/proc},
}`;

    it('gives a paper the booktitle and year of the proceedings it points to', () => {
      const paper = entry(parse(proceedings), 'paper');
      assert.equal(paper.title, 'A Paper');
      assert.equal(paper.venue, 'Proceedings of the Conference');
      assert.equal(paper.year, 2020);
    });

    it("lets the paper's own fields win over inherited ones", () => {
      const own = entry(parse(proceedings), 'own');
      assert.equal(own.title, 'Own Venue');
      assert.equal(own.venue, 'Own Booktitle');
      assert.equal(own.year, 1999);
    });

    it('reports crossref cycles instead of hanging or crashing', () => {
      const bib = parse('@misc{a, crossref = {b}}\n@misc{b, crossref = {a}}\n@misc{c, crossref = {c}}\n@misc{d, crossref = {constructor}}');
      assert.deepEqual(
        bib.entries.map((e) => e.key),
        ['a', 'b', 'c', 'd'],
      );
      assert.deepEqual(messages(bib), ["Entry 'b' is part of a crossref cycle; nothing is inherited", "Entry 'c' is part of a crossref cycle; nothing is inherited"]);
    });
  });

  describe('identifiers', () => {
    it('says what a software or web entry is by its describing fields, in a fixed order', () => {
      const [software, plain] = parse(`@misc{a, urldate = {2024-05-01}, note = {Version 2}, howpublished = {\\url{https://x.org}}, title = {T}}
@misc{b, title = {T}}`).entries;
      assert.equal(software.describedAs, 'howpublished: https://x.org; note: Version 2; urldate: 2024-05-01');
      assert.equal(plain.describedAs, undefined);
    });

    it('normalises DOIs written as URLs or with a doi: prefix', () => {
      const dois = parse(`@misc{a, doi = {https://doi.org/10.1000/ABC}}
@misc{b, doi = {doi:10.1000/x\\_y}}
@misc{c, doi = {http://dx.doi.org/10.1000/c}}
@misc{d, doi = { 10.1000/d }}
@misc{e, doi = {https://doi.org/10.1000%2Fe}}`).entries.map((e) => e.doi);
      assert.deepEqual(dois, ['10.1000/ABC', '10.1000/x_y', '10.1000/c', '10.1000/d', '10.1000/e']);
    });

    it('finds arXiv identifiers in eprint fields, arxiv.org URLs and arXiv DOIs', () => {
      const ids = parse(`@misc{a, eprint = {1234.56789}, archivePrefix = {arXiv}}
@misc{b, eprint = {2101.00001v3}, eprinttype = {arxiv}}
@misc{c, url = {https://arxiv.org/abs/1706.05459v2}}
@misc{d, url = {https://arxiv.org/pdf/1706.05459.pdf}}
@misc{e, eprint = {astro-ph/0601001}}
@misc{f, doi = {10.48550/arXiv.2203.01234}}
@misc{g, eprint = {12345678}, eprinttype = {pubmed}}
@misc{h, url = {https://example.org/1706.05459}}`).entries.map((e) => e.arxivId);
      assert.deepEqual(ids, ['1234.56789', '2101.00001', '1706.05459', '1706.05459', 'astro-ph/0601001', '2203.01234', undefined, undefined]);
    });

    it('finds PubMed and PubMed Central ids in pmid and pmcid fields and pubmed eprints', () => {
      const ids = parse(`@article{a, pmid = {32015507}, pmcid = {PMC7095418}}
@article{b, eprint = {12345678}, eprinttype = {pubmed}}
@article{c, pmcid = {7095418}}
@article{d, pmid = {not a number}, pmcid = {PMCX}}`).entries.map((e) => [e.pmid, e.pmcid]);
      assert.deepEqual(ids, [
        ['32015507', 'PMC7095418'],
        ['12345678', undefined],
        [undefined, 'PMC7095418'],
        [undefined, undefined],
      ]);
    });

    it('takes a URL from url, or from howpublished = \\url{...}', () => {
      const urls = parse(String.raw`@misc{a, url = {https://example.org/a\_b}}
@misc{b, howpublished = {\url{https://example.org/b}}}
@misc{c, howpublished = {Online}}`).entries.map((e) => e.url);
      assert.deepEqual(urls, ['https://example.org/a_b', 'https://example.org/b', undefined]);
    });
  });

  describe('file structure', () => {
    it('reads entries delimited by parentheses, lower-cases types and ignores junk between entries', () => {
      const bib = parse('Some notes about this file.\n@BOOK(knuth, title = "The Art", year = 1968)\nmore junk\n@Article{b, title={B}}');
      assert.deepEqual(bib.problems, []);
      assert.deepEqual(
        bib.entries.map((e) => [e.key, e.type, e.title]),
        [
          ['knuth', 'book', 'The Art'],
          ['b', 'article', 'B'],
        ],
      );
    });

    it('skips @preamble and @comment, including an entry commented out inside @comment{...}', () => {
      const bib = parse(`@preamble{ "\\newcommand{\\noopsort}[1]{}" }
@comment{ @article{hidden, title = {Hidden}} }
@comment jabref-meta: databaseType:bibtex;
% @ sign in a comment line
@article{shown, title = {Shown}}`);
      assert.deepEqual(bib.problems, []);
      assert.deepEqual(
        bib.entries.map((e) => e.key),
        ['shown'],
      );
    });

    it('gives nothing for an empty file or one with only comments', () => {
      assert.deepEqual(parse(''), { file: '/project/refs.bib', entries: [], problems: [] });
      const comments = parse('%% Created by hand\n% nothing here\n@comment{empty}\n');
      assert.deepEqual([comments.entries, comments.problems], [[], []]);
    });

    it('handles CRLF line endings in ranges and values', () => {
      const text = '@misc{a,\r\n  title = {Two\r\n  lines},\r\n}\r\n\r\n@misc{b,\r\n  title = {x}\r\n  year = 1}\r\n';
      const bib = parse(text);
      assert.equal(entry(bib, 'a').title, 'Two lines');
      assert.deepEqual(entry(bib, 'a').range, { start: { line: 0, character: 0 }, end: { line: 3, character: 1 } });
      assert.deepEqual(entry(bib, 'b').keyRange.start, { line: 5, character: 6 });
      assert.equal(bib.problems.length, 1);
      assert.equal(bib.problems[0].range.start.line, 7);
    });

    it('reads keys with unusual characters and skips % comments between fields', () => {
      const bib = parse('@article{Smith:2020/a-b.c,\n  % a comment with } and " in it\n  title = {T}, % trailing\n}');
      assert.deepEqual(bib.problems, []);
      assert.equal(entry(bib, 'Smith:2020/a-b.c').title, 'T');
    });
  });

  describe('syntax errors', () => {
    it('reports a malformed entry at its line and still reads its neighbours', () => {
      const text = `@article{before, title = {Before}}

@article{broken,
  title = {Broken},
  year 2020,
  journal = {J}
}

@article{after, title = {After}}`;
      const bib = parse(text);
      assert.deepEqual(messages(bib), ["Expected '=' after field name 'year' in entry 'broken'"]);
      assert.equal(bib.problems[0].range.start.line, 4);
      assert.equal(covered(text, bib.problems[0].range), 'year');
      assert.equal(entry(bib, 'before').title, 'Before');
      assert.equal(entry(bib, 'after').title, 'After');
    });

    it('stops an unclosed entry at the next line that starts an entry', () => {
      const text = `@article{open,
  title = {Never closed,
  year = 2020

@article{next, title = {Next}}
@article{last, title = {Last}}`;
      const bib = parse(text);
      assert.deepEqual(messages(bib), ["Entry 'open' is not closed: unbalanced braces"]);
      assert.equal(covered(text, bib.problems[0].range), '@article{open');
      assert.deepEqual(
        bib.entries.map((e) => e.key),
        ['next', 'last'],
      );
      assert.equal(entry(bib, 'next').title, 'Next');
    });

    it('reports unbalanced braces at the end of the file', () => {
      const bib = parse('@misc{ok, title = {OK}}\n@misc{tail, title = {{{');
      assert.deepEqual(messages(bib), ["Entry 'tail' is not closed: unbalanced braces"]);
      assert.equal(bib.problems[0].range.start.line, 1);
      assert.equal(entry(bib, 'ok').title, 'OK');
    });

    it('explains common mistakes in words', () => {
      const cases: Array<[string, string]> = [
        ['@misc{a, title = {T} year = 1}', "Missing ',' after field 'title' in entry 'a'"],
        ['@misc{a, title = }', "Field 'title' has no value in entry 'a'"],
        ['@misc{a, title = "unclosed}', `Field 'title' has an unclosed '"' in entry 'a'`],
        ['@misc{, title = {T}}', "Entry '@misc' has no key"],
        ['@misc{title = {T}}', "Entry '@misc' has no key: it starts with field 'title'"],
        ['@misc{a title = {T}}', "Expected ',' after the key, found 't' in entry 'a'"],
        ['@misc(a, title = {T}}', "Expected ')' to close the entry, found '}' in entry 'a'"],
        ['@misc(a, title = {T}', "Entry 'a' is not closed: missing ')'"],
        ['@misc{a, = {T}}', "Expected a field name, found '=' in entry 'a'"],
        ['@misc{a, title = ,}', "Expected a value for field 'title', found ',' in entry 'a'"],
        ['@misc a, title = {T}}', "Expected '{' or '(' after '@misc'"],
        ['@string{x = {X} y}', "Unexpected 'y' in @string"],
      ];
      for (const [text, message] of cases) assert.deepEqual(messages(parse(text)), [message], text);
    });

    it('reports each of 1,000 broken entries', () => {
      let text = '';
      for (let i = 0; i < 1000; i++) text += `@article{k${i},\n  title = {Unclosed ${i},\n  year = 2020\n\n`;
      const bib = parse(text);
      assert.equal(bib.problems.length, 1000);
      assert.deepEqual(
        bib.problems.slice(0, 2).map((p) => p.range.start.line),
        [0, 4],
      );
      assert.equal(bib.problems[999].message, "Entry 'k999' is not closed: unbalanced braces");
    });
  });

  describe('robustness', () => {
    it('reads a name of thousands of words as plain text, saying it is not a name, and still splits a list at its long runs of spaces', () => {
      for (const name of ['a '.repeat(60_000), '{a} '.repeat(30_000), 'von '.repeat(30_000), ','.repeat(120_000)]) {
        const bib = parseBibliography(`@article{k, author = {${name}X and Doe, Jane}, title = {T}}`, '/refs.bib');
        assert.equal(bib.problems.length, 1);
        assert.match(bib.problems[0].message, /^Field 'author' of entry 'k' has a name over 1000 characters, which is not a name; it was read as plain text$/);
        assert.deepEqual(bib.entries[0].authors[1], { family: 'Doe', given: 'Jane' });
      }
      const spaced = parseBibliography(`@article{k, author = {{Smith}${' '.repeat(100_000)}and${'\t'.repeat(3)}Doe, Jane}}`, '/refs.bib');
      assert.deepEqual(
        spaced.entries[0].authors.map((a) => a.family ?? a.literal),
        ['Smith', 'Doe'],
      );
    });

    it('survives binary junk', () => {
      let seed = 42;
      const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      let junk = '';
      for (let i = 0; i < 1 << 20; i++) junk += String.fromCharCode(Math.floor(random() * 256));
      const started = Date.now();
      const bib = parse(junk);
      assert.ok(Date.now() - started < 2000);
      assert.ok(
        bib.problems.every((p) => !p.message.startsWith('Could not read')),
        messages(bib).join('\n'),
      );
    });

    it('never throws on fragments of BibTeX', () => {
      const pieces = [
        '@',
        '{',
        '}',
        '(',
        ')',
        ',',
        '=',
        '"',
        '#',
        '%',
        '\\',
        '$',
        '~',
        '-',
        ' ',
        '\n',
        '\r',
        'and',
        ' and ',
        'others',
        'misc',
        'string',
        'comment',
        'preamble',
        'title',
        'author',
        'crossref',
        'x',
        '2020',
        '\\"',
        '\\begin',
        '\\end',
        '^',
        '_',
        '\u0131',
        '@misc{',
        '@string{',
        'title = {',
        'author = "',
        '}\n',
        'crossref = {x}',
      ];
      let seed = 7;
      const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      for (let n = 0; n < 3000; n++) {
        let text = '';
        const length = 1 + Math.floor(random() * 80);
        for (let i = 0; i < length; i++) text += pieces[Math.floor(random() * pieces.length)];
        const bib = parse(text);
        assert.ok(
          bib.problems.every((p) => !p.message.startsWith('Could not read')),
          JSON.stringify(text),
        );
      }
    });

    it('keeps an entry with 200,000 problems, shows the first 5000 and counts the rest', () => {
      const bib = parse(`@article{k, title = {T},${'a=b,'.repeat(200_000)}}\n@misc{m, title = {M}}`);
      assert.deepEqual(
        bib.entries.map((e) => [e.key, e.title]),
        [
          ['k', 'T'],
          ['m', 'M'],
        ],
      );
      assert.equal(bib.problems.length, 5001);
      assert.match(bib.problems[4999].message, /^Field 'a' uses 'b'/);
      assert.equal(bib.problems[5000].message, '195000 more problems from here on are not shown; is this a BibTeX file?');
      assert.deepEqual(bib.problems[5000].range.start, { line: 0, character: 24 + 4 * 5000 + 2 });
    });

    it('counts the problems of 20,000 unclosed entries', () => {
      const bib = parse('@a{k,\n'.repeat(20_000));
      assert.equal(bib.problems.length, 5001);
      assert.equal(bib.problems[5000].message, '15000 more problems from here on are not shown; is this a BibTeX file?');
      assert.deepEqual(bib.problems[5000].range.start, { line: 5000, character: 0 });
    });

    it('reads every entry of a 10 MB file', () => {
      const one = (i: number): string =>
        `@article{k${i},\n  author = {M{\\"u}ller, Hans and Doe, Jane},\n  title = {Result number ${i}},\n` +
        `  journal = {J}, year = 2020,\n  abstract = {${'lorem ipsum '.repeat(60)}}\n}\n`;
      const parts: string[] = [];
      let size = 0;
      for (let i = 0; size < 10 * 1024 * 1024; i++) {
        parts.push(one(i));
        size += parts[i].length;
      }
      const bib = parse(parts.join(''));
      assert.equal(bib.entries.length, parts.length);
      assert.deepEqual(bib.problems, []);
      assert.equal(bib.entries[parts.length - 1].title, `Result number ${parts.length - 1}`);
    });
  });
});

/**
 * Field accuracy of references read from text: the shared manuscripts' .bib entries and HALLMARK's
 * entries, written out as BibTeX's plain, natbib's plainnat and abbrvnat, biber's .bbl for biblatex,
 * and the hand-written APA, Vancouver and IEEE shapes, then read back by `readBibliography` as a .bbl
 * or a thebibliography is. BibTeX and biber are not installed here, so each style's output is written
 * by the rules of its .bst (`\newblock` between blocks, names and emphasis as it prints them) rather
 * than by the program, from the fields as the .bib reader gives them (LaTeX already read as text).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseBibliography } from '../src/core/bibliography/parse';
import { readBibliography } from '../src/core/bibliography/read';
import type { Author, BibEntry } from '../src/core/bibliography/types';
import { EVAL_DATA, haveEvalData } from './evalData';

const BIB_FILES = ['manuscripts/astro_celerite/paper/celerite.bib', 'manuscripts/control_dynonet/doc/paper/ms.bib', 'manuscripts/md_joss_gmr/paper/paper.bib'];
const HALLMARK = 'hallmark/dev_public.jsonl';

export type Style = { readonly name: string; readonly file: 'bbl' | 'biblatex'; readonly render: (e: BibEntry, n: number) => string };

const family = (a: Author): string => a.family ?? a.literal ?? '';
const full = (a: Author): string => (a.given ? `${a.given} ${family(a)}` : family(a));
const initials = (given: string | undefined, separator: string): string =>
  (given ?? '')
    .split(/[\s-]+/)
    .filter((g) => g)
    .map((g) => `${g[0]}.`)
    .join(separator);
const abbreviated = (a: Author): string => (a.given ? `${initials(a.given, '~')}~${family(a)}` : family(a));
/** The names as a style lists them; a list the .bib cut short ("and others") ends in "et al.", as every style prints it. */
function andList(names: readonly string[], truncated: boolean | undefined, last = ', and '): string {
  if (truncated) return `${names.join(', ')}, et~al.`;
  if (names.length <= 2) return names.join(' and ');
  return names.slice(0, -1).join(', ') + last + names[names.length - 1];
}
const pagesOf = (e: BibEntry): string => (e.venue ? `\\emph{${e.venue}}` : '');

/** BibTeX's plain, plainnat and abbrvnat: names, title and venue each a `\newblock`. */
function bibtexStyle(names: (a: Author) => string, natbib: boolean, doi: boolean): (e: BibEntry, n: number) => string {
  return (e, n) => {
    const year = e.year === undefined ? '' : `${e.year}`;
    const label = natbib ? `[${e.authors[0] ? family(e.authors[0]) : 'Anonymous'}${e.authors.length > 2 ? ' et~al.' : ''}(${year})]` : '';
    const blocks = [
      e.authors.length > 0 ? andList(e.authors.map(names), e.authorsTruncated).replace(/\.?$/, '.') : undefined,
      e.title ? `${e.title}.` : undefined,
      [pagesOf(e), year].filter((p) => p).join(', ') + '.',
      doi && e.doi ? `\\doi{${e.doi}}.` : undefined,
    ];
    return `\\bibitem${label}{k${n}}\n${blocks.filter((b) => b !== undefined).join('\n\\newblock ')}\n`;
  };
}

function biblatexEntry(e: BibEntry, n: number): string {
  const names = e.authors.map(
    (a) =>
      `        {{hash=h${n}}{%\n           family={${family(a)}},\n           familyi={${family(a)[0] ?? ''}\\bibinitperiod}${a.given ? `,\n           given={${a.given.replace(/ /g, '\\bibnamedelima ')}},\n           giveni={${initials(a.given, '\\bibinitdelim ').replace(/\./g, '\\bibinitperiod')}}` : ''}}}%\n`,
  );
  return [
    `    \\entry{k${n}}{${e.type}}{}`,
    e.authors.length > 0 ? `      \\name{author}{${e.authors.length}}{}{%\n${names.join('')}      }` : '',
    e.authorsTruncated ? '      \\true{moreauthor}' : '',
    e.title ? `      \\field{title}{${e.title}}` : '',
    e.venue ? `      \\field{journaltitle}{${e.venue}}` : '',
    e.year !== undefined ? `      \\field{year}{${e.year}}` : '',
    e.doi ? `      \\verb{doi}\n      \\verb ${e.doi}\n      \\endverb` : '',
    '    \\endentry',
  ]
    .filter((l) => l)
    .join('\n');
}

export const STYLES: readonly Style[] = [
  { name: 'plain', file: 'bbl', render: bibtexStyle(full, false, false) },
  { name: 'plainnat', file: 'bbl', render: bibtexStyle(full, true, true) },
  { name: 'abbrvnat', file: 'bbl', render: bibtexStyle(abbreviated, true, true) },
  { name: 'biblatex (.bbl)', file: 'biblatex', render: biblatexEntry },
  {
    name: 'APA, typed',
    file: 'bbl',
    render: (e, n) =>
      `\\bibitem{k${n}} ${andList(
        e.authors.map((a) => `${family(a)}${a.given ? `, ${initials(a.given, ' ')}` : ''}`),
        e.authorsTruncated,
        ', \\& ',
      )} (${e.year ?? 'n.d.'}). ${e.title ?? ''}. ${e.venue ? `\\textit{${e.venue}}.` : ''}${e.doi ? ` https://doi.org/${e.doi}` : ''}\n`,
  },
  {
    name: 'Vancouver, typed',
    file: 'bbl',
    render: (e, n) =>
      `\\bibitem{k${n}} ${e.authors.map((a) => `${family(a)} ${initials(a.given, '').replace(/\./g, '')}`.trim()).join(', ')}${e.authorsTruncated ? ', et al' : ''}. ${e.title ?? ''}. ${e.venue ? `${e.venue}. ` : ''}${e.year ?? ''}. ${e.doi ? `doi:${e.doi}` : ''}\n`,
  },
  {
    name: 'IEEE, typed',
    file: 'bbl',
    render: (e, n) =>
      `\\bibitem{k${n}} ${andList(e.authors.map(abbreviated), e.authorsTruncated)}, \`\`${e.title ?? ''},'' ${e.venue ? `\\emph{${e.venue}}, ` : ''}${e.year ?? ''}${e.doi ? `, doi: ${e.doi}` : ''}.\n`,
  },
];

function truthEntries(): BibEntry[] {
  const entries: BibEntry[] = [];
  for (const file of BIB_FILES) entries.push(...parseBibliography(readFileSync(path.join(EVAL_DATA, file), 'utf8'), file).entries);
  const rows = readFileSync(path.join(EVAL_DATA, HALLMARK), 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const bibtex = rows
    .map((line, i) => {
      const row = JSON.parse(line) as { bibtex_type: string; fields: Record<string, string> };
      return `@${row.bibtex_type}{h${i},\n${Object.entries(row.fields)
        .map(([k, v]) => `  ${k} = {${v}}`)
        .join(',\n')}\n}`;
    })
    .join('\n');
  entries.push(...parseBibliography(bibtex, 'hallmark.bib').entries);
  // Only entries a style prints a reference for: a title and an author or organisation.
  return entries.filter((e) => e.title && e.authors.length > 0);
}

const words = (s: string | undefined): string =>
  (s ?? '')
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/**
 * The entries as one reference list printed in `style` (a `thebibliography` or biber's .bbl), read
 * back as Attest reads a .bbl: the entry read for each, in the same order, undefined where none was.
 */
export function readInStyle(style: Style, entries: readonly BibEntry[]): (BibEntry | undefined)[] {
  const body = entries.map((e, n) => style.render(e, n)).join('\n');
  const text = style.file === 'biblatex' ? `\\refsection{0}\n${body}\n\\endrefsection` : `\\begin{thebibliography}{${entries.length}}\n${body}\n\\end{thebibliography}`;
  const read = new Map(readBibliography(text, 'bench.bbl').entries.map((e) => [e.key, e]));
  return entries.map((_, n) => read.get(`k${n}`));
}

export function benchReferenceText(): void {
  if (!haveEvalData('references as text', ...BIB_FILES, HALLMARK)) return;
  const truth = truthEntries();
  console.log(`  ${truth.length} entries (shared manuscripts' .bib and HALLMARK), share read right per field`);
  console.log('  style               title   first author   year   DOI (of those with one)   unreadable');
  for (const style of STYLES) {
    const read = readInStyle(style, truth);
    let title = 0,
      author = 0,
      year = 0,
      doi = 0,
      withYear = 0,
      withDoi = 0,
      unreadable = 0;
    truth.forEach((e, n) => {
      const got = read[n];
      if (!got?.title) unreadable++;
      if (words(got?.title) === words(e.title)) title++;
      if (got?.authors[0] && words(family(got.authors[0])) === words(family(e.authors[0]))) author++;
      if (e.year !== undefined) {
        withYear++;
        if (got?.year === e.year) year++;
      }
      if (e.doi) {
        withDoi++;
        if (got?.doi === e.doi.toLowerCase()) doi++;
      }
    });
    const share = (k: number, of: number): string => (of === 0 ? '   —  ' : `${((100 * k) / of).toFixed(1).padStart(5)}%`);
    const doiShare = style.name === 'plain' ? '   (plain prints none)' : `${share(doi, withDoi)} of ${withDoi}`.padEnd(22);
    console.log(`  ${style.name.padEnd(18)} ${share(title, truth.length)}   ${share(author, truth.length)}        ${share(year, withYear)}  ${doiShare}    ${unreadable}`);
  }
}

if (require.main === module) benchReferenceText();

/** A .bib entry's fields as a `BibEntry`: title, authors, year, venue, identifiers and where it is in the file. */
import { arxivIdAsWritten, arxivPartOfDoi, arxivPartOfUrl, normalizePmcid, normalizePmid, stripDoiPrefix } from '../identifiers';
import { pdfPathsOf } from './fileField';
import type { LineIndex, Position } from '../text/positions';
import type { BibEntry } from './types';
import type { RawEntry } from './bibStructure';
import { DESCRIBING_FIELDS, type Properties } from './bibValues';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function toBibEntry(raw: RawEntry, properties: Properties, file: string, positions: ForwardPositions): BibEntry {
  const authors = properties.author;
  // In the order they come in the file, which ForwardPositions walks fastest.
  const start = positions.positionAt(raw.span.start);
  const keyRange = { start: positions.positionAt(raw.keySpan.start), end: positions.positionAt(raw.keySpan.end) };
  const entry: Mutable<BibEntry> = {
    key: raw.key,
    type: raw.type,
    file,
    range: { start, end: positions.positionAt(raw.span.end) },
    keyRange,
    authors: typeof authors === 'object' ? authors.authors : [],
  };
  if (typeof authors === 'object' && authors.truncated) entry.authorsTruncated = true;
  const text = (field: string): string | undefined => {
    const value = properties[field];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  setIfDefined(entry, 'title', joinTitle(text('title'), text('subtitle')));
  setIfDefined(entry, 'year', yearOf(text('year')) ?? yearOf(text('date')));
  setIfDefined(entry, 'venue', venueOf(text('journaltitle') ?? text('journal') ?? text('booktitle')));
  setIfDefined(entry, 'doi', doiAsWritten(text('doi')));
  setIfDefined(entry, 'url', urlOf(text('url'), text('howpublished')));
  setIfDefined(entry, 'arxivId', arxivIdOf(text('eprint'), text('eprinttype') ?? text('archiveprefix'), text('url'), text('doi')));
  setIfDefined(entry, 'pmid', pmidOf(text('pmid'), text('eprint'), text('eprinttype')));
  setIfDefined(entry, 'pmcid', pmcidOf(text('pmcid'), text('eprint'), text('eprinttype')));
  setIfDefined(entry, 'isbn', text('isbn')?.trim());
  setIfDefined(entry, 'abstract', text('abstract'));
  setIfDefined(entry, 'describedAs', describedAs(text));
  setIfDefined(entry, 'attestIgnore', text('attest-ignore'));
  const pdfs = pdfPathsOf(text('file'));
  if (pdfs.length > 0) entry.pdfs = pdfs;
  return entry;
}

/**
 * Line and column of offsets that mostly come in order, as an entry's start, key and end do: the
 * line is walked to from the last one, not searched for among all of them, which cost a 25,000-entry
 * file more than its crossref inheritance did.
 */
export class ForwardPositions {
  private line = 0;
  private lineStart = 0;
  private nextLineStart = 0;
  private readonly length: number;

  constructor(private readonly lines: LineIndex) {
    this.length = lines.offsetAt({ line: lines.lineCount, character: 0 });
    this.nextLineStart = this.startOf(1);
  }

  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.length));
    if (clamped < this.lineStart) {
      const position = this.lines.positionAt(clamped);
      this.line = position.line;
      this.lineStart = clamped - position.character;
      this.nextLineStart = this.startOf(this.line + 1);
      return position;
    }
    while (clamped >= this.nextLineStart) {
      this.line++;
      this.lineStart = this.nextLineStart;
      this.nextLineStart = this.startOf(this.line + 1);
    }
    return { line: this.line, character: clamped - this.lineStart };
  }

  private startOf(line: number): number {
    return line < this.lines.lineCount ? this.lines.offsetAt({ line, character: 0 }) : Infinity;
  }
}

function describedAs(text: (field: string) => string | undefined): string | undefined {
  let said = '';
  for (const field of DESCRIBED_BY) {
    const value = text(field);
    if (value !== undefined) said += `${said === '' ? '' : '; '}${field}: ${value}`;
  }
  return said === '' ? undefined : said;
}

const DESCRIBED_BY = [...DESCRIBING_FIELDS, 'urldate'];

function setIfDefined<K extends keyof BibEntry>(entry: Mutable<BibEntry>, key: K, value: BibEntry[K] | undefined): void {
  if (value !== undefined) entry[key] = value;
}

/** biblatex prints title and subtitle as one title, separated by a colon. */
function joinTitle(title: string | undefined, subtitle: string | undefined): string | undefined {
  if (title === undefined) return subtitle;
  return subtitle === undefined ? title : `${title}: ${subtitle}`;
}

/** A year from `year = 2019`, `{2019a}`, `{\noopsort{a}2019}` or biblatex `date = {2019-03-04}`. */
function yearOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const bare = value.replace(/[{}\s]/g, '');
  if (/^\d{1,4}$/.test(bare)) return Number(bare);
  const match = /(?<!\d)\d{4}(?!\d)/.exec(bare);
  return match ? Number(match[0]) : undefined;
}

/**
 * Astronomy bibliographies exported from ADS name journals by AASTeX macros (`\apj`);
 * these are what aas_macros.sty prints for them.
 */
const AAS_JOURNALS: Readonly<Record<string, string>> = {
  aj: 'AJ',
  actaa: 'Acta Astron.',
  araa: 'ARA&A',
  apj: 'ApJ',
  apjl: 'ApJ',
  apjs: 'ApJS',
  ao: 'Appl. Opt.',
  apss: 'Ap&SS',
  aap: 'A&A',
  aapr: 'A&A Rv',
  aaps: 'A&AS',
  azh: 'AZh',
  baas: 'BAAS',
  icarus: 'Icarus',
  jcap: 'J. Cosmology Astropart. Phys.',
  jrasc: 'JRASC',
  memras: 'MmRAS',
  mnras: 'MNRAS',
  na: 'New A',
  nar: 'New A Rev.',
  pra: 'Phys. Rev. A',
  prb: 'Phys. Rev. B',
  prc: 'Phys. Rev. C',
  prd: 'Phys. Rev. D',
  pre: 'Phys. Rev. E',
  prl: 'Phys. Rev. Lett.',
  pasa: 'PASA',
  pasp: 'PASP',
  pasj: 'PASJ',
  qjras: 'QJRAS',
  skytel: 'S&T',
  solphys: 'Sol. Phys.',
  sovast: 'Soviet Ast.',
  ssr: 'Space Sci. Rev.',
  zap: 'ZAp',
  nat: 'Nature',
  iaucirc: 'IAU Circ.',
  aplett: 'Astrophys. Lett.',
  apspr: 'Astrophys. Space Phys. Res.',
  bain: 'Bull. Astron. Inst. Netherlands',
  fcp: 'Fund. Cosmic Phys.',
  gca: 'Geochim. Cosmochim. Acta',
  grl: 'Geophys. Res. Lett.',
  jcp: 'J. Chem. Phys.',
  jgr: 'J. Geophys. Res.',
  jqsrt: 'J. Quant. Spec. Radiat. Transf.',
  memsai: 'Mem. Soc. Astron. Italiana',
  nphysa: 'Nucl. Phys. A',
  physrep: 'Phys. Rep.',
  physscr: 'Phys. Scr',
  planss: 'Planet. Space Sci.',
  procspie: 'Proc. SPIE',
  psj: 'PSJ',
};

function venueOf(value: string | undefined): string | undefined {
  const macro = value === undefined ? null : /^\\([a-zA-Z]+)$/.exec(value);
  return macro ? (AAS_JOURNALS[macro[1]] ?? value) : value;
}

/** Backslash escapes people write in identifiers, though BibTeX takes these fields verbatim. */
function unescapeVerbatim(value: string): string {
  return value
    .replace(/\\([_%&#~$])/g, '$1')
    .replace(/[{}]/g, '')
    .trim();
}

function doiAsWritten(value: string | undefined): string | undefined {
  return value === undefined ? undefined : stripDoiPrefix(unescapeVerbatim(value)) || undefined;
}

function urlOf(url: string | undefined, howpublished: string | undefined): string | undefined {
  if (url !== undefined) return unescapeVerbatim(url.replace(/^\\url\{([^]*)\}$/, '$1')) || undefined;
  return howpublished !== undefined && /^https?:\/\/\S+$/i.test(howpublished) ? howpublished : undefined;
}

function arxivIdOf(eprint: string | undefined, eprintType: string | undefined, url: string | undefined, doi: string | undefined): string | undefined {
  const declared = eprintType !== undefined && /^arxiv$/i.test(unescapeVerbatim(eprintType));
  if (eprint !== undefined && (declared || eprintType === undefined)) {
    const id = unescapeVerbatim(eprint);
    const written = arxivIdAsWritten(id);
    if (written !== undefined) return written;
    if (declared && id !== '') return id.replace(/^arxiv:\s*/i, '');
  }
  const candidate = (url === undefined ? undefined : arxivPartOfUrl(url)) ?? (doi === undefined ? undefined : arxivPartOfDoi(doi));
  return candidate === undefined ? undefined : arxivIdAsWritten(candidate);
}

/** A PubMed id: JabRef's and Better BibTeX's `pmid` field, or biblatex's `eprinttype = {pubmed}`. */
function pmidOf(pmid: string | undefined, eprint: string | undefined, eprintType: string | undefined): string | undefined {
  const written = pmid ?? (eprintType !== undefined && /^pubmed$/i.test(unescapeVerbatim(eprintType)) ? eprint : undefined);
  return written === undefined ? undefined : normalizePmid(unescapeVerbatim(written));
}

/** A PubMed Central id as `PMC` and digits: Better BibTeX's `pmcid` field, or biblatex's `eprinttype = {pmcid}`. */
function pmcidOf(pmcid: string | undefined, eprint: string | undefined, eprintType: string | undefined): string | undefined {
  const written = pmcid ?? (eprintType !== undefined && /^pmcid$/i.test(unescapeVerbatim(eprintType)) ? eprint : undefined);
  return written === undefined ? undefined : normalizePmcid(unescapeVerbatim(written));
}

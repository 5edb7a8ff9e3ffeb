import type { BibEntry } from '../bibliography/types';

/** Work types the sources index well; a failed search for one of these is a sign of fabrication. */
const INDEXED_TYPES = new Set(['article', 'inproceedings', 'conference', 'incollection', 'inbook', 'proceedings']);

/** Types that hold anything from a preprint to a web page: judged when they claim to be a scholarly work. */
const CATCH_ALL_TYPES = new Set(['misc', 'online', 'unpublished', 'electronic', 'www']);

/** Where scholarly works live: a link there is no sign of software or a web page. */
const SCHOLARLY_HOSTS =
  /(^|\.)(arxiv\.org|doi\.org|openreview\.net|aclanthology\.org|aclweb\.org|proceedings\.mlr\.press|papers\.nips\.cc|proceedings\.neurips\.cc|neurips\.cc|jmlr\.org|ieeexplore\.ieee\.org|dl\.acm\.org|link\.springer\.com|sciencedirect\.com|nature\.com|science\.org|biorxiv\.org|medrxiv\.org|ssrn\.com|semanticscholar\.org|pubmed\.ncbi\.nlm\.nih\.gov|ncbi\.nlm\.nih\.gov|europepmc\.org|aaai\.org|ijcai\.org|thecvf\.com|ecva\.net|iclr\.cc|icml\.cc|researchgate\.net)$/i;

/** Words that mark software, data, a web page or a standard, which the sources do not index. */
const NOT_A_PAPER =
  /\b(software|version|release|github|gitlab|bitbucket|zenodo|figshare|dataset|data set|database|repository|toolkit|toolbox|library|package|code|source code|model card|web ?page|website|web site|blog|online|accessed|retrieved|urldate|tweet|video|podcast|press release|standard|specification|rfc \d+|iso \d+|manual|documentation|user guide|slides|talk|lecture|patent)\b/i;

/** Narrower for titles, where "online", "library" or "code" name a paper's subject. */
const SOFTWARE_TITLE = /\b(github|gitlab|zenodo|software|version \d|v\d+\.\d+)/i;

/**
 * Why a title search that finds nothing says nothing about this entry, or undefined when it does:
 * the entry is a type the sources index, or an `@misc`-like entry that claims to be a scholarly work
 * (authors, a title, a year, and no sign of software, data, a web page or a standard).
 */
export function whyNotIndexed(entry: BibEntry): string | undefined {
  if (INDEXED_TYPES.has(entry.type)) return undefined;
  const type = `@${entry.type}`;
  if (!CATCH_ALL_TYPES.has(entry.type)) return `the sources index ${type} works incompletely`;
  if (!entry.authors.some((a) => a.family !== undefined)) return `the ${type} entry names no person as its author, as software and web pages often do not`;
  if (!entry.title || entry.year === undefined) return `the ${type} entry lacks a title or a year, so it does not claim to be a paper`;
  const host = hostOf(entry.url);
  if (host && !SCHOLARLY_HOSTS.test(host)) return `the ${type} entry links to ${host}, not to a paper`;
  const sign = NOT_A_PAPER.exec(entry.describedAs ?? '') ?? SOFTWARE_TITLE.exec(entry.title);
  if (sign) return `the ${type} entry reads as software, data or a web page ("${sign[0]}")`;
  return undefined;
}

function hostOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return undefined;
  }
}

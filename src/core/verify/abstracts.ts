import type { BibEntry } from '../bibliography/types';
import { normalizeArxivId, normalizeDoi } from '../identifiers';
import { abstractSentences } from '../index/passages';
import { SourceError, type PaperSource, type RequestOptions, type SourceRecord } from '../sources/types';

/** Where an abstract came from, for the user to judge the evidence drawn from it. */
export interface Abstract {
  readonly text: string;
  /** `bib` for the entry's own `abstract` field, else the source that supplied it. */
  readonly from: string;
}

/** Shorter than this, a field is a note rather than an abstract ("Update Jan.", a publisher's address). */
const MIN_ABSTRACT_LENGTH = 100;

/** A placeholder where a database has no abstract ("No abstract available", "[Abstract not provided]", a publisher's preview note). */
const PLACEHOLDER = /\b(?:no abstract|abstract (?:is )?(?:not |un)(?:available|provided)|abstract is missing|not available for this content)\b/i;

/** A placeholder is short; a longer text that says "no abstract" in passing may be a real one. */
const PLACEHOLDER_LENGTH = 400;

/** A reference to the work itself, as a .bib field or a record may hold it: "Wickham et al., (2019). Welcome to …". */
const SELF_CITATION = /^\p{Lu}[\p{L}'’-]+(?:,?\s+(?:\p{Lu}\.\s*)+)?(?:,?\s+(?:et al\.?|and|&)(?:\s+\p{Lu}[\p{L}'’-]+)?)?,?\s*\(\d{4}[a-z]?\)\./u;

/** Sentences a publisher or database adds, which say nothing of the work: copyright and licence lines. */
const BOILERPLATE = /©|\(c\)\s*\d{4}|\bcopyright\b|\ball rights reserved\b|\bpublished by\b|\bopen access article\b|\bcreative commons\b|\bPsycINFO Database Record\b/i;

/** A copyright notice at the end, which may follow the last sentence without a capital to start it ("… placebo. © 2020 Elsevier Ltd."). */
const COPYRIGHT_TAIL = /\s*(?:©|\(c\)\s*\d{4}|\bcopyright\s+(?:©\s*)?\d{4}).{0,300}$/is;

/** The word some records put before the abstract itself ("Abstract Rapid, scalable …", "ABSTRACT: We …"), not the adjective ("Abstract reasoning …"). */
const HEADING = /^(?:Abstract|ABSTRACT)(?:\s*[:.—–-]\s*|\s+(?=\p{Lu}))/u;

/**
 * The abstract to judge a claim against, from a `.bib` `abstract` field or a source's record: without
 * its heading and copyright or licence lines, and only when what remains can be an abstract (at least
 * two sentences and 100 characters, not a placeholder nor a citation of the work). The field often
 * holds something else ("R Foundation for Statistical Computing, Vienna, Austria.", "Update Jan."),
 * and judging a sentence against it would report a problem the manuscript does not have.
 */
export function abstractText(text: string | undefined): string | undefined {
  const trimmed = text?.trim().replace(HEADING, '').replace(COPYRIGHT_TAIL, '') ?? '';
  if (trimmed.length < MIN_ABSTRACT_LENGTH) return undefined;
  if ((trimmed.length < PLACEHOLDER_LENGTH && PLACEHOLDER.test(trimmed)) || SELF_CITATION.test(trimmed)) return undefined;
  const kept = abstractSentences(trimmed)
    .map(({ start, end }) => trimmed.slice(start, end))
    .filter((sentence) => !BOILERPLATE.test(sentence));
  const abstract = kept.join(' ');
  return kept.length >= 2 && abstract.length >= MIN_ABSTRACT_LENGTH ? abstract : undefined;
}

/** Whether a field or record holds an abstract to judge a claim against (see `abstractText`). */
export function isAbstract(text: string | undefined): text is string {
  return abstractText(text) !== undefined;
}

/** What the sources said of a found work's abstract. */
export interface AbstractAnswer {
  readonly abstract?: Abstract;
  /**
   * A source that might have held the abstract could not answer (down, too slow): without an abstract,
   * that is no answer, not the work's lack of one.
   */
  readonly incomplete: boolean;
}

/**
 * The abstract of a reference that was found: the .bib's own, else the matched record's, else the
 * first other source that has the same work by DOI or arXiv id with an abstract (each as `abstractText` reads it) (OpenAlex and Crossref
 * often lack one that Semantic Scholar or Europe PMC hold). Lookups go through the sources' disk cache.
 */
export async function abstractOf(entry: BibEntry, record: SourceRecord, sources: readonly PaperSource[], options: RequestOptions = {}): Promise<AbstractAnswer> {
  const fromBib = abstractText(entry.abstract);
  if (fromBib !== undefined) return { abstract: { text: fromBib, from: 'bib' }, incomplete: false };
  const fromRecord = abstractText(record.abstract);
  if (fromRecord !== undefined) return { abstract: { text: fromRecord, from: record.source }, incomplete: false };
  // Only identifiers the sources can be asked about: one they cannot read is no question at all.
  const doi = [record.doi, entry.doi].map((d) => d && normalizeDoi(d)).find((d) => d !== undefined);
  const arxivId = [record.arxivId, entry.arxivId].map((a) => a && normalizeArxivId(a)).find((a) => a !== undefined);
  let incomplete = false;
  for (const source of sources) {
    if (source.id === record.source) continue;
    try {
      const other = (doi ? await source.byDoi?.(doi, options) : undefined) ?? (arxivId ? await source.byArxivId?.(arxivId, options) : undefined);
      const text = abstractText(other?.abstract);
      if (text !== undefined) return { abstract: { text, from: source.id }, incomplete: false };
    } catch (error) {
      if (!(error instanceof SourceError) || error.kind === 'cancelled') throw error;
      incomplete = true;
    }
  }
  return { incomplete };
}

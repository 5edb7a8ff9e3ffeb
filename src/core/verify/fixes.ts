import { escapeBibtex, type FieldValue } from '../bibliography/edit';
import { braceNameSeparators } from '../bibliography/escape';
import type { BibEntry } from '../bibliography/types';
import type { SourceRecord } from '../sources/types';
import type { FieldDifference } from './match';

/** Entry types whose venue BibTeX calls `journal`; the others name it `booktitle`. */
const JOURNAL_TYPES = new Set(['article', 'periodical']);

/**
 * The .bib fields and values that make an entry say what the matched record says, for the fields
 * that differ, and the record's DOI where the entry has none (a missing DOI is no difference, but
 * it is what leads a reader to the work); a field the record does not know is left as the user wrote it.
 */
export function fieldsFromRecord(entry: BibEntry, record: SourceRecord, differences: readonly FieldDifference[]): Map<string, FieldValue> {
  const fields = new Map<string, FieldValue>();
  for (const { field } of differences) {
    switch (field) {
      case 'title':
        if (record.title) fields.set('title', record.title);
        break;
      case 'authors':
        if (record.authors.length > 0) fields.set('author', { bibtex: record.authors.map(bibtexName).join(' and ') });
        break;
      case 'year':
        if (record.year !== undefined) fields.set('year', String(record.year));
        break;
      case 'venue':
        if (record.venue) fields.set(JOURNAL_TYPES.has(entry.type) ? 'journal' : 'booktitle', record.venue);
        break;
      case 'doi':
        if (record.doi) fields.set('doi', record.doi);
        break;
      case 'arxiv':
        if (record.arxivId) fields.set('eprint', record.arxivId);
        break;
    }
  }
  if (entry.doi === undefined && record.doi) fields.set('doi', record.doi);
  return fields;
}

/** "Family, Given", which BibTeX splits unambiguously whatever the particles; an organisation in braces. */
function bibtexName(author: SourceRecord['authors'][number]): string {
  const plain = (text: string): string => braceNameSeparators(escapeBibtex(text));
  if (author.literal) return `{${plain(author.literal)}}`;
  return author.given ? `${plain(author.family ?? '')}, ${plain(author.given)}` : plain(author.family ?? '');
}

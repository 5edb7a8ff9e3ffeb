import type { SourceRecord } from '../sources/types';
import { BibReader } from './bibStructure';
import { bibtexFor } from './generate';
import { citationJs } from './loadCitationJs';

/**
 * The fields that describe which version of a work an entry cites: the published version's BibTeX
 * replaces them all, so no preprint's eprint, note or URL is left beside the journal's.
 */
const VERSION_FIELDS = new Set([
  'title',
  'subtitle',
  'author',
  'editor',
  'year',
  'date',
  'month',
  'journal',
  'journaltitle',
  'booktitle',
  'publisher',
  'volume',
  'number',
  'issue',
  'pages',
  'doi',
  'url',
  'urldate',
  'eprint',
  'eprinttype',
  'archiveprefix',
  'primaryclass',
  'eprintclass',
  'howpublished',
  'institution',
  'organization',
  'type',
  'version',
  'issn',
  'isbn',
  'series',
  'address',
  'location',
  'pubstate',
]);
/** A note that only says where the preprint was posted: "arXiv preprint arXiv:2305.18248". */
const PREPRINT_NOTE = /\b(?:arxiv|biorxiv|medrxiv|preprint)\b/i;

/**
 * A cited preprint's entry (`entryText`, one BibTeX entry as written) rewritten as its published
 * version: the BibTeX the one validated writer (`bibtexFor`) makes of `published`, under the entry's
 * key, then the user's own fields that describe no version (an abstract, keywords, a file, a note of
 * their own), as written. Undefined when the text is not one entry.
 */
export function entryAsPublished(entryText: string, published: SourceRecord): string | undefined {
  const reader = new BibReader(entryText, citationJs().constants.defaultStrings);
  reader.run();
  const [raw] = reader.entries;
  if (raw === undefined || reader.entries.length !== 1) return undefined;
  const written = bibtexFor(published, raw.key);
  const generated = new BibReader(written, citationJs().constants.defaultStrings);
  generated.run();
  const writtenFields = new Set(generated.entries[0]?.fields.keys() ?? []);
  const own = [...raw.fields].filter(([name, field]) => !VERSION_FIELDS.has(name) && !writtenFields.has(name) && !(name === 'note' && PREPRINT_NOTE.test(field.value)));
  if (own.length === 0) return written;
  const close = written.lastIndexOf('}');
  const fields = own.map(([name, field]) => `\t${name} = ${entryText.slice(field.span.start, field.span.end)}`);
  return `${written.slice(0, close).replace(/,?\s*$/, '')},\n${fields.join(',\n')}\n}`;
}

/** The bibliography as adapters read and edit it: entries, their description, the citing references, the edits and the entries generated for a paper, and the citation style of a manuscript. */
export { textToAppend } from '../bibliography/append';
export { asRecord, type CitingReference, citingReferences } from '../bibliography/citing';
export { authorName, listAuthors } from '../bibliography/describe';
export { setFields, type TextEdit } from '../bibliography/edit';
export { findExisting } from '../bibliography/generate';
export { entryAsPublished } from '../bibliography/publishedEntry';
export { parseBibliography } from '../bibliography/parse';
export type { BibEntry, Bibliography } from '../bibliography/types';
export { type CitationStyle, citationStyleOf, insertCitation } from '../manuscript/citeStyle';

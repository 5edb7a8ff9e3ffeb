/**
 * A bibliography read by what its file is: a .bib (BibTeX), a .bbl (biber's `\entry` list or a
 * `thebibliography` list BibTeX wrote), a manuscript's own `thebibliography`, or a Markdown
 * document's reference list.
 */
import * as path from 'node:path';
import { languageOf } from '../manuscript/language';
import { biblatexEntries, isBiblatexBbl } from './biblatexBbl';
import { bibitemEntries } from './bibitemList';
import { markdownReferenceEntries } from './markdownReferences';
import { parseBibliography } from './parse';
import type { Bibliography } from './types';

export function readBibliography(text: string, file: string): Bibliography {
  if (path.extname(file).toLowerCase() === '.bbl') {
    return { file, entries: isBiblatexBbl(text) ? biblatexEntries(text, file) : bibitemEntries(text, file), problems: [] };
  }
  const language = languageOf(file);
  if (language === 'latex') return { file, entries: bibitemEntries(text, file), problems: [] };
  if (language === 'markdown') return { file, entries: markdownReferenceEntries(text, file), problems: [], printedWhole: true };
  return parseBibliography(text, file);
}

import { LineIndex } from '../text/positions';
import type { BibEntry, Bibliography } from './types';
import { citationJs } from './loadCitationJs';
import { BibReader, type RawEntry, type SpanProblem, errorMessage, toBibProblems } from './bibStructure';
import { readProperties } from './bibValues';
import { resolveCrossrefs } from './bibCrossref';
import { ForwardPositions, toBibEntry } from './bibEntries';

/*
 * Reading a .bib file happens in two layers.
 *
 * The structure (entries, fields, `@string` macros, `#` concatenation) is read by
 * bibStructure.ts, not by citation-js's file grammar: that grammar stops at the first syntax
 * error without a position, and alone takes about 6 ms on a 125-entry file. Our reader follows
 * BibTeX: junk between entries is ignored, an entry that cannot be read becomes a problem with
 * a precise range, and reading resumes at the next entry.
 *
 * The values are then handed to citation-js (bibValues.ts, bibCrossref.ts), which knows LaTeX:
 * accents and special letters become Unicode, names are split into given/family/particle, and
 * `crossref` inheritance follows biblatex's rules (a proceedings' title becomes the booktitle of
 * its papers). Its value grammar costs about 300 ns a token, so the LaTeX nearly every text
 * field is made of is read as it reads it by latexText.ts, from its own tables, and author
 * lists go to it a name at a time, each distinct name once (nameList.ts). bibEntries.ts makes
 * the entries of what they read.
 */

export function parseBibliography(text: string, file: string): Bibliography {
  const lines = new LineIndex(text);
  const problems: SpanProblem[] = [];
  let unshown = 0;
  let entries: BibEntry[] = [];
  try {
    const reader = new BibReader(text, citationJs().constants.defaultStrings);
    reader.run();
    for (const problem of reader.problems) problems.push(problem);
    unshown = reader.unshownProblems;
    entries = buildEntries(reader.entries, file, lines, problems);
  } catch (error) {
    // Only a bug can land here; losing the file's entries beats taking the caller down.
    problems.push({ message: `Could not read this bibliography: ${errorMessage(error)}`, span: { start: 0, end: 0 } });
  }
  return { file, entries, problems: toBibProblems(problems, unshown, lines) };
}

function buildEntries(raws: readonly RawEntry[], file: string, lines: LineIndex, problems: SpanProblem[]): BibEntry[] {
  const properties = raws.map((raw) => readProperties(raw, problems));
  const resolved = resolveCrossrefs(raws, properties, problems);
  const positions = new ForwardPositions(lines);
  return raws.map((raw, i) => toBibEntry(raw, resolved[i], file, positions));
}

/**
 * Lines of text extracted from a typeset paper (a PDF's text layer, CORE's `fullText`) made back into
 * sections and paragraphs: words hyphenated across lines joined, headings recognised, and reading
 * stopped at the reference list, whose titles would otherwise match every claim.
 */
import { chunkParagraph } from './chunk';
import type { Passage } from './types';

export interface ProseLine {
  readonly text: string;
  readonly page?: number;
  /** The line starts a new paragraph (a blank line, an indent or a wider gap before it). */
  readonly breakBefore?: boolean;
}

/** Headings papers use, in the words of IMRaD and its neighbours, after any number ("2.", "II.", "A."). */
const SECTION_NAMES =
  /^(abstract|introduction|background|related work|methods?|materials and methods|methodology|experimental( setup| design| procedures?)?|experiments?|results?|results and discussion|findings|evaluation|discussion|conclusions?|concluding remarks|limitations|summary|acknowledge?ments?|appendix|supplementary material|data availability|funding)$/i;
const REFERENCE_HEADINGS = /^(references|bibliography|literature cited|works cited|references and notes)$/i;
const NUMBERING = /^(?:(?:\d+(?:\.\d+)*|[IVX]+|[A-H])\.?\s+)/;
const MAX_HEADING_WORDS = 8;

/** The passages of a paper's lines, and whether the reference list was found and left out. */
export function passagesFromLines(lines: readonly ProseLine[]): { passages: Passage[]; referencesCut: boolean } {
  const passages: Passage[] = [];
  let section = '';
  let paragraph: string[] = [];
  let page: number | undefined;
  const flush = (): void => {
    if (paragraph.length > 0) for (const passage of chunkParagraph(joinLines(paragraph), page === undefined ? { section } : { section, page })) passages.push(passage);
    paragraph = [];
  };
  for (const line of lines) {
    const text = line.text.trim();
    if (text === '') {
      flush();
      continue;
    }
    const heading = headingOf(text);
    if (heading !== undefined && REFERENCE_HEADINGS.test(heading)) {
      flush();
      return { passages, referencesCut: true };
    }
    if (heading !== undefined) {
      flush();
      section = heading;
      continue;
    }
    if (line.breakBefore) flush();
    if (paragraph.length === 0) page = line.page;
    paragraph.push(text);
  }
  flush();
  return { passages, referencesCut: false };
}

/**
 * The heading a line is, without its number, or undefined for a line of prose. Only the usual names
 * of top-level sections count: a subsection's own words ("3.2 Cell viability") cannot be told from
 * the start of a sentence, and the passage is placed by its top-level section anyway.
 */
function headingOf(line: string): string | undefined {
  if (line.split(/\s+/).length > MAX_HEADING_WORDS || !/^[\p{Lu}\d]/u.test(line)) return undefined;
  const name = line.replace(NUMBERING, '').replace(/[.:]$/, '').trim();
  if (REFERENCE_HEADINGS.test(name)) return name;
  if (SECTION_NAMES.test(name)) return titleCase(name);
  return undefined;
}

/** "RESULTS" as "Results"; a heading as written otherwise. */
function titleCase(name: string): string {
  return name === name.toUpperCase() ? name.charAt(0) + name.slice(1).toLowerCase() : name;
}

/**
 * Lines joined into a paragraph. A line ending in a hyphen after a lower-case letter, followed by a
 * line starting lower-case, is one word broken by the typesetter ("regu-" "lation"); "COVID-" "19"
 * or "non-" "Hodgkin" keep their hyphen.
 */
export function joinLines(lines: readonly string[]): string {
  // Pieces joined once at the end, and only the line before tested: testing the text joined so far
  // would read it whole at every line, quadratic in a paragraph of many short lines.
  const pieces: string[] = [];
  for (const line of lines) {
    const last = pieces.length - 1;
    if (last >= 0 && /\p{Ll}[-\u00ad\u2010]$/u.test(pieces[last]) && /^\p{Ll}/u.test(line)) pieces[last] = pieces[last].slice(0, -1);
    else if (last >= 0) pieces.push(' ');
    pieces.push(line);
  }
  return pieces.join('');
}

/** CORE's `fullText`: the text of the paper's PDF, lines as extracted, paragraphs apart by blank lines. */
export function passagesFromPlainText(text: string): { passages: Passage[] } | { reason: string } {
  const { passages } = passagesFromLines(text.split(/\r?\n/).map((line) => ({ text: line })));
  if (passages.length === 0) return { reason: 'the full text is empty' };
  return { passages };
}

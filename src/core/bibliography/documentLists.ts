/**
 * The reference lists a manuscript carries besides the .bib files it names, as LaTeX and pandoc
 * would find them: the `thebibliography` lists of its LaTeX files, the .bbl beside its root (what
 * LaTeX reads when the .bib is absent, as in many arXiv sources), and a Markdown document's own
 * "References" list when it names no bibliography file.
 */
import * as path from 'node:path';
import type { Manuscript } from '../manuscript/project';
import type { Workspace } from '../workspace';
import type { Bibliography } from './types';

export type ParseBibliography = (file: string, text: string) => Promise<Bibliography>;

/** Each LaTeX file's `thebibliography` entries, or the Markdown root's reference list when `namesNone`. */
export async function listsInManuscript(manuscript: Manuscript, namesNone: boolean, workspace: Workspace, parse: ParseBibliography): Promise<Bibliography[]> {
  const lists: Bibliography[] = [];
  for (const source of manuscript.sources) {
    const wanted = source.language === 'latex' ? source.bibitems.length > 0 : namesNone && source.file === manuscript.root;
    if (!wanted) continue;
    const text = await workspace.readText(source.file);
    if (text === undefined) continue;
    const list = await parse(source.file, text);
    if (list.entries.length > 0) lists.push(list);
  }
  return lists;
}

/**
 * The .bbl LaTeX would read for a LaTeX root: its name with `.bbl`, beside it. TeX would look for it
 * in TEXINPUTS's folders too, but one found there is another document's of the same name (every
 * `main.bbl`), whose references would be checked against this one's keys.
 */
export function bblOf(manuscript: Manuscript): string | undefined {
  if (manuscript.language !== 'latex') return undefined;
  const { dir, name } = path.parse(manuscript.root);
  return path.join(dir, `${name}.bbl`);
}

const FILECONTENTS = /\\begin\s*\{filecontents\*?\}\s*(?:\[[^\]]*\]\s*)?\{([^{}]+)\}[^\n]*\n/g;

/** A file a `filecontents` environment writes: its text, and where that text starts in the manuscript's file. */
export interface WrittenFile {
  readonly text: string;
  readonly from: string;
  /** The line of `from` the body starts on. */
  readonly line: number;
}

/**
 * The files the manuscript's `filecontents` and `filecontents*` environments write, by the path
 * LaTeX writes them to (the root's folder). LaTeX writes one only when it does not exist, so a file
 * on disk is read first.
 */
export async function filecontentsOf(manuscript: Manuscript, workspace: Workspace): Promise<Map<string, WrittenFile>> {
  const written = new Map<string, WrittenFile>();
  const rootDir = path.dirname(manuscript.root);
  for (const source of manuscript.sources) {
    if (source.language !== 'latex') continue;
    const text = await workspace.readText(source.file);
    if (text === undefined || !text.includes('filecontents')) continue;
    for (const m of text.matchAll(FILECONTENTS)) {
      const start = m.index + m[0].length;
      const end = text.indexOf('\\end{filecontents', start);
      const file = path.resolve(rootDir, m[1].trim());
      if (written.has(file)) continue;
      written.set(file, { text: text.slice(start, end < 0 ? text.length : end), from: source.file, line: countLines(text, start) });
    }
  }
  return written;
}

function countLines(text: string, end: number): number {
  let lines = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

/** A bibliography read from a `filecontents` body, its entries and problems placed in the file that holds it. */
export function placedIn(bibliography: Bibliography, written: WrittenFile): Bibliography {
  const shift = <T extends { readonly start: { line: number; character: number }; readonly end: { line: number; character: number } }>(range: T): T => ({
    ...range,
    start: { line: range.start.line + written.line, character: range.start.character },
    end: { line: range.end.line + written.line, character: range.end.character },
  });
  return {
    ...bibliography,
    file: written.from,
    entries: bibliography.entries.map((e) => ({ ...e, file: written.from, range: shift(e.range), keyRange: shift(e.keyRange) })),
    problems: bibliography.problems.map((p) => ({ ...p, range: shift(p.range) })),
  };
}

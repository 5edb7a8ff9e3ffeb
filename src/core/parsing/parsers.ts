import { parseBibliography } from '../bibliography/parse';
import type { Bibliography } from '../bibliography/types';
import { languageOf } from '../manuscript/language';
import { parseLatex } from '../manuscript/latex';
import { parseMarkdown } from '../manuscript/markdown';
import type { ParsedSource } from '../manuscript/types';

/**
 * What turns a file's text into data. The CLI parses in its own thread; the extension hands the work
 * to a worker thread (`ParserThread`), so that a large file never freezes the editor.
 */
export interface Parsers {
  source(file: string, text: string, rootDir: string): Promise<ParsedSource>;
  bibliography(file: string, text: string): Promise<Bibliography>;
}

export function parseSource(file: string, text: string, rootDir: string): ParsedSource {
  return languageOf(file) === 'markdown' ? parseMarkdown(text, file) : parseLatex(text, file, rootDir);
}

/** Parsing in the caller's thread. */
export const IN_THREAD: Parsers = {
  source: async (file, text, rootDir) => parseSource(file, text, rootDir),
  bibliography: async (file, text) => parseBibliography(text, file),
};

import { readBibliography } from '../bibliography/read';
import type { Bibliography } from '../bibliography/types';
import { languageOf } from '../manuscript/language';
import { packLatex } from '../manuscript/latex';
import { packMarkdown } from '../manuscript/markdown';
import { unpackSource, type PackedSource } from '../manuscript/packed';
import type { ParsedSource } from '../manuscript/types';

/**
 * What turns a file's text into data. The CLI parses in its own thread; the extension hands the work
 * to a worker thread (`ParserThread`), so that a large file never freezes the editor.
 */
export interface Parsers {
  /** `macros`: argument-free LaTeX macros that other files of the manuscript define. */
  source(file: string, text: string, macros?: ReadonlyMap<string, string>): Promise<ParsedSource>;
  bibliography(file: string, text: string): Promise<Bibliography>;
}

/** A manuscript file parsed into the packed form a thread sends; `unpackSource` reads it. */
export function packSource(file: string, text: string, macros?: ReadonlyMap<string, string>): PackedSource {
  return languageOf(file) === 'markdown' ? packMarkdown(text, file) : packLatex(text, file, macros);
}

export function parseSource(file: string, text: string, macros?: ReadonlyMap<string, string>): ParsedSource {
  return unpackSource(packSource(file, text, macros));
}

/** Parsing in the caller's thread. */
export const IN_THREAD: Parsers = {
  source: async (file, text, macros) => parseSource(file, text, macros),
  bibliography: async (file, text) => readBibliography(text, file),
};

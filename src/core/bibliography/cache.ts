import { ParsedFiles } from '../parsing/parsedFiles';
import { IN_THREAD, type Parsers } from '../parsing/parsers';
import type { Bibliography } from './types';

/**
 * Remembers parsed .bib files by content: a large bibliography is parsed once, not on every keystroke,
 * nor once more for each caller that asks while it is being parsed.
 */
export class BibliographyCache {
  private readonly parsed = new ParsedFiles<Bibliography>();

  constructor(private readonly parsers: Parsers = IN_THREAD) {}

  parse(file: string, text: string): Promise<Bibliography> {
    return this.parsed.get(file, text, '', () => this.parsers.bibliography(file, text));
  }

  forget(file: string): void {
    this.parsed.forget(file);
  }
}

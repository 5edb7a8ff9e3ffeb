import { IN_THREAD, type Parsers } from '../parsing/parsers';
import type { Bibliography } from './types';

/** Remembers parsed .bib files by content: a large bibliography is parsed once, not on every keystroke. */
export class BibliographyCache {
  private readonly entries = new Map<string, { text: string; bibliography: Bibliography }>();

  constructor(private readonly parsers: Parsers = IN_THREAD) {}

  async parse(file: string, text: string): Promise<Bibliography> {
    const cached = this.entries.get(file);
    if (cached && cached.text === text) return cached.bibliography;
    const bibliography = await this.parsers.bibliography(file, text);
    this.entries.set(file, { text, bibliography });
    return bibliography;
  }

  forget(file: string): void {
    this.entries.delete(file);
  }
}

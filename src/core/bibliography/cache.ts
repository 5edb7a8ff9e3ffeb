import { parseBibliography } from './parse';
import type { Bibliography } from './types';

/** Remembers parsed .bib files by content: a large bibliography is parsed once, not on every keystroke. */
export class BibliographyCache {
  private readonly entries = new Map<string, { text: string; bibliography: Bibliography }>();

  parse(file: string, text: string): Bibliography {
    const cached = this.entries.get(file);
    if (cached && cached.text === text) return cached.bibliography;
    const bibliography = parseBibliography(text, file);
    this.entries.set(file, { text, bibliography });
    return bibliography;
  }

  forget(file: string): void {
    this.entries.delete(file);
  }
}

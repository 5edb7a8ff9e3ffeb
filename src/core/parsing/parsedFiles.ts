/**
 * What parsing each file gave, remembered by the file's text: an unchanged file is not parsed again.
 * The parse is kept while it is under way, so callers that ask at once (the editor's check and a hover,
 * two manuscripts sharing a file) share one parse; a parse that fails is dropped, so the next ask
 * parses again rather than being handed the failure.
 */
export class ParsedFiles<T> {
  private readonly entries = new Map<string, { readonly text: string; readonly variant: string; readonly parsed: Promise<T> }>();

  /** `variant` tells apart parses of one text that differ in what else they were given. */
  get(file: string, text: string, variant: string, parse: () => Promise<T>): Promise<T> {
    const cached = this.entries.get(file);
    if (cached && cached.text === text && cached.variant === variant) return cached.parsed;
    const entry = { text, variant, parsed: parse() };
    this.entries.set(file, entry);
    entry.parsed.catch(() => {
      if (this.entries.get(file) === entry) this.entries.delete(file);
    });
    return entry.parsed;
  }

  forget(file: string): void {
    this.entries.delete(file);
  }
}

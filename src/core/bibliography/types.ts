import type { Range } from '../text/positions';

export interface Author {
  readonly family?: string;
  readonly given?: string;
  /** A name that must not be split, e.g. an organisation written as `{World Health Organization}`. */
  readonly literal?: string;
}

/** One entry of a .bib file, with LaTeX resolved to Unicode and macros expanded. */
export interface BibEntry {
  readonly key: string;
  /** Entry type as written, lower-cased: `article`, `inproceedings`, … */
  readonly type: string;
  readonly file: string;
  /** The whole entry, from `@` to its closing brace. */
  readonly range: Range;
  /** The key as written after the opening brace. */
  readonly keyRange: Range;
  readonly title?: string;
  readonly authors: readonly Author[];
  /** The author list ended in `and others`, so `authors` is not the full list. */
  readonly authorsTruncated?: boolean;
  readonly year?: number;
  /** Journal, book title or publisher series, whichever the entry has. */
  readonly venue?: string;
  readonly doi?: string;
  readonly url?: string;
  readonly arxivId?: string;
  /** PubMed's id, digits only. */
  readonly pmid?: string;
  /** PubMed Central's id, `PMC` and digits. */
  readonly pmcid?: string;
  /** The `isbn` field as written: one ISBN, or several separated by commas or semicolons (`isbnsIn`). */
  readonly isbn?: string;
  readonly abstract?: string;
  /**
   * What the entry says of its form besides its type, as `field: value` pairs joined by "; ":
   * howpublished, note, publisher, organization, institution, version, type, urldate.
   */
  readonly describedAs?: string;
  /** The `attest-ignore` field as written: the findings the writer accepts for this entry (`acceptance.ts`). */
  readonly attestIgnore?: string;
  /** The PDFs of the `file` field, as written: absolute, or relative to the .bib file. */
  readonly pdfs?: readonly string[];
  /**
   * The reference as written, for an entry read from text (a `\bibitem`, a Markdown reference list)
   * rather than from fields: what the sources are asked with when it has no identifier.
   */
  readonly reference?: string;
}

/** A part of a .bib file that could not be read as an entry. */
export interface BibProblem {
  readonly message: string;
  readonly range: Range;
}

export interface Bibliography {
  readonly file: string;
  /** In file order; duplicate keys are kept so they can be reported. */
  readonly entries: readonly BibEntry[];
  readonly problems: readonly BibProblem[];
  /**
   * A list the document prints whole, whose entries no key cites (a Markdown "References" list):
   * every entry is checked, and none is unused.
   */
  readonly printedWhole?: boolean;
}

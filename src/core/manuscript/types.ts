import type { Range } from '../text/positions';

export type ManuscriptLanguage = 'latex' | 'markdown';

/** A sentence of the manuscript as plain text, with the way back to the source. */
export interface Claim {
  /** The sentence with markup and citation commands removed. */
  readonly text: string;
  /** Where the sentence stands in its source file. */
  readonly range: Range;
  /**
   * Source offset of each UTF-16 unit of `text`: a view of the file's one offsets array, which the
   * parser thread hands over without copying (`packed.ts`).
   */
  readonly sourceOffsets: Uint32Array;
}

/** One cited key occurrence: `\citep{a,b}` is two citations. */
export interface Citation {
  readonly key: string;
  /** The command as written (`\citep`, `\Textcite*`), or the pandoc form: `[@]`, `[-@]`, `@`. */
  readonly command: string;
  readonly file: string;
  /** The key itself, as written. */
  readonly range: Range;
  /** The sentence the citation supports; undefined for `\nocite`, which makes no claim. */
  readonly claim?: Claim;
}

/** A reference to another file: `\input`, `\include`, `\subfile`, `\bibliography`, YAML `bibliography:`. */
export interface FileReference {
  /** The name as written, before resolution. */
  readonly name: string;
  /** Absolute path the name resolves to (with the default extension added). */
  readonly path: string;
  readonly range: Range;
  /**
   * For a name LaTeX resolves in the folder it runs in, the root file's (`\input`, `\include`,
   * `\import`, `\bibliography`, `\addbibresource`): the name with its default extension. A parse does
   * not know the root, so `path` is where the name resolves when this file is the root; a manuscript
   * (`project.ts`) resolves it in its own root's folder.
   */
  readonly fromRoot?: string;
}

/** What one source file of a manuscript contains. */
export interface ParsedSource {
  readonly file: string;
  readonly language: ManuscriptLanguage;
  readonly citations: readonly Citation[];
  readonly claims: readonly Claim[];
  readonly includes: readonly FileReference[];
  readonly bibliographies: readonly FileReference[];
  /** Keys defined in the document itself by `\bibitem` (a `thebibliography` environment). */
  readonly bibitems: readonly string[];
  /** `\nocite{*}`: every entry of the bibliography counts as used. */
  readonly citesAll: boolean;
  /** The root named by a `% !TEX root = …` magic comment, as an absolute path. */
  readonly texRoot?: string;
  /** Why the YAML front matter could not be read, so its `bibliography:` and `nocite:` may be missed. */
  readonly frontMatterProblem?: FrontMatterProblem;
  /** The argument-free macros the file defines (`\newcommand{\tool}{dynoNet}`), each with the text it prints. */
  readonly macros: ReadonlyMap<string, string>;
  /** Commands the file uses that print nothing in it: another file of the manuscript may define them. */
  readonly undefinedCommands: readonly string[];
  /** Argument-free macros left unexpanded in the claims because what they print is too long. */
  readonly macroProblems?: readonly MacroProblem[];
}

export interface MacroProblem {
  /** The macro's name, without its backslash. */
  readonly name: string;
  /** Why it is not expanded, as the rest of a sentence starting with its name. */
  readonly reason: string;
  /** Its definition, or its first use when another file defines it. */
  readonly range: Range;
}

export interface FrontMatterProblem {
  /** What is wrong, as the rest of a sentence starting "The YAML front matter …". */
  readonly reason: string;
  /** The front matter's opening `---`. */
  readonly range: Range;
}

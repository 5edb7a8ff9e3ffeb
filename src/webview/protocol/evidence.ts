/*
 * The messages between the evidence panel's page (src/webview/page/evidence.ts) and the extension,
 * compiled into both. The page is a separate document that could be fed anything, so each side checks
 * what it receives before acting on it: the extension with `parseWebviewMessage`, the page with checks
 * the compiler holds to these types.
 *
 * The page is browser code, so this module imports nothing. Its words are core's, listed here for the
 * page's checks; the compiler keeps the lists equal to core's types: the extension hands core's values
 * over as they are, and builds each label record of `PanelStrings` to satisfy core's type too.
 */

/** core/evidence.ts's `SearchMode`. */
export const SEARCH_MODES = ['lexical', 'dense', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** core/verify/support.ts's `ShownVerdict`. */
export const SHOWN_VERDICTS = ['supported', 'may-support', 'contradicted', 'unsupported', 'unverifiable'] as const;
export type ShownVerdict = (typeof SHOWN_VERDICTS)[number];

/** core/papers/paper.ts's `PaperStanding`. */
export const PAPER_STANDINGS = ['retracted', 'expression-of-concern', 'withdrawn'] as const;
export type PaperStanding = (typeof PAPER_STANDINGS)[number];

/** A piece of the best-matching sentence; `match` marks a word the claim also has. */
export interface Fragment {
  readonly text: string;
  readonly match: boolean;
}

/**
 * What an NLI model made of the claim against the paper, once one has judged it, as the badge shows it:
 * "Supports the claim" only where the model's calibration says so, else "May support" (`shownVerdict`).
 */
export interface VerdictView {
  readonly label: ShownVerdict;
  readonly entailment?: number;
  /** For a supported label: how many of the model's dev verdicts at this level were said, and right. */
  readonly onDev?: { readonly verdicts: number; readonly right: number };
}

/** One ranked paper as the panel shows it: only display text and what the buttons need. */
export interface EvidenceItem {
  readonly title: string;
  /** Already joined: "Ashish Vaswani, Noam Shazeer, …". */
  readonly authors: string;
  readonly year?: number;
  readonly venue?: string;
  readonly openAccessUrl?: string;
  /** Where "Open paper" goes; absent when the paper has no link at all. */
  readonly link?: string;
  readonly sentence?: readonly Fragment[];
  readonly score: number;
  /** The entry of the manuscript's bibliographies that already stands for the paper. */
  readonly existing?: { readonly key: string; readonly file: string };
  /** The sentence searched for cites the paper already: the page offers no Cite here for it. */
  readonly citedHere?: true;
  readonly verdict?: VerdictView;
  /** A paper its source shows retracted, withdrawn or under concern: the page says so beside its title. */
  readonly standing?: PaperStanding;
  /** The paper's full-text passage that best matches the claim, when its full text is at hand, and where it is ("Results, p. 6"). */
  readonly passage?: { readonly place: string; readonly text: readonly Fragment[] };
}

/** Extension → webview. */
export type PanelMessage =
  | { readonly type: 'searching'; readonly claim: string }
  | {
      readonly type: 'results';
      /** Counts the lists shown: the page names the list an action is for, and a verdict message the list it belongs to. */
      readonly list: number;
      readonly claim: string;
      readonly mode: SearchMode;
      readonly notes: readonly string[];
      /** The sentence encoder is set but not downloaded yet: the page offers its download. */
      readonly encoderDownload?: true;
      /** The key of the citation the search was made to replace (a possibly fabricated one): Cite here replaces it. */
      readonly replacing?: string;
      /** The NLI model is still judging the papers: their verdicts follow in a `verdicts` message. */
      readonly judging?: true;
      /** A first list, from the library alone: the open sources are still searched, and their answers will replace it. */
      readonly updating?: true;
      readonly items: readonly EvidenceItem[];
    }
  /** The verdicts of the listed papers, in their order (null where the model gave none), added to the list in place. */
  | { readonly type: 'verdicts'; readonly list: number; readonly verdicts: readonly (VerdictView | null)[] }
  /** The search did not finish; `message` says why, ready to show. */
  | { readonly type: 'failed'; readonly claim: string; readonly message: string }
  /** What an action on the result at `index` did, or why it did nothing. */
  | { readonly type: 'outcome'; readonly index: number; readonly ok: boolean; readonly message: string };

export type ResultsMessage = Extract<PanelMessage, { type: 'results' }>;

export const RESULT_ACTIONS = ['citeHere', 'addToBibliography', 'openPaper'] as const;
export type ResultAction = (typeof RESULT_ACTIONS)[number];

/**
 * Webview → extension: `ready` asks for the current state (the page is rebuilt each time it is shown);
 * `downloadEncoder` is the Download button beside the note that the encoder is not downloaded yet. A
 * result's action names the list the page showed it in; a command standing in for a button names none,
 * and means the list shown now.
 */
export type WebviewMessage = { readonly type: 'ready' } | { readonly type: 'downloadEncoder' } | { readonly type: ResultAction; readonly index: number; readonly list?: number };

export function parseWebviewMessage(value: unknown): WebviewMessage | undefined {
  if (typeof value !== 'object' || value === null || !('type' in value)) return undefined;
  if (value.type === 'ready' || value.type === 'downloadEncoder') return { type: value.type };
  const action = RESULT_ACTIONS.find((a) => a === value.type);
  if (action === undefined || !('index' in value)) return undefined;
  const { index } = value;
  const list = 'list' in value ? value.list : undefined;
  const counted = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  if (!counted(index) || (list !== undefined && !counted(list))) return undefined;
  return { type: action, index, ...(list !== undefined && { list }) };
}

/**
 * The panel's fixed wording, localised by the extension and handed to the page once; `{0}` and `{1}`
 * are filled in by the page.
 */
export interface PanelStrings {
  readonly searching: string;
  readonly claim: string;
  readonly mode: Readonly<Record<SearchMode, string>>;
  readonly noResults: string;
  readonly openAccess: string;
  readonly standing: Readonly<Record<PaperStanding, string>>;
  readonly score: string;
  readonly existing: string;
  readonly verdict: Readonly<Record<ShownVerdict, string>>;
  readonly entailment: string;
  /** The badge's tooltip on a supported label: `{0}` in 10 right, `{1}` of `{2}`. */
  readonly onDev: string;
  /** Beside the list while the NLI model judges its papers. */
  readonly judging: string;
  /** Beside a first list, from the library alone, while the open sources are still searched. */
  readonly updating: string;
  /** "Full text, {0}:" before a passage. */
  readonly fullText: string;
  readonly actions: Readonly<Record<ResultAction, string>>;
  /** The button that downloads the sentence encoder. */
  readonly downloadEncoder: string;
  /** The cite button's label when the search replaces a citation; `{0}` is its key. */
  readonly replaceCitation: string;
  /** The Cite here button of a paper the sentence cites already, which does nothing. */
  readonly citedHere: string;
}

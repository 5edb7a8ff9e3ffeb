/*
 * The messages between the suggestion panel's page (src/webview/page/suggest.ts) and the extension,
 * compiled into both. As with the evidence panel, each side checks what it receives: the extension
 * with `parseWebviewMessage`, the page with checks the compiler holds to these types. Everything shown
 * is display text, already localised or quoted from a source or the model; the page never receives a
 * paper's id or the document's contents.
 *
 * As in evidence.ts, this module imports nothing, and the compiler keeps its lists equal to core's types.
 */

/** core/suggest/suggest.ts's `SuggestOutcome`. */
export const SUGGEST_OUTCOMES = ['drafted', 'insufficient', 'no-sources', 'empty', 'malformed'] as const;
export type SuggestOutcome = (typeof SUGGEST_OUTCOMES)[number];

/** core/suggest/recheck.ts's `SentenceStatus`. */
export const SENTENCE_STATUSES = ['supported', 'unconfirmed', 'contradicted', 'unrelated', 'uncited'] as const;
export type SentenceStatus = (typeof SENTENCE_STATUSES)[number];

/** A paper the model was given, numbered as the model cited it. */
export interface SourceView {
  readonly number: number;
  readonly title: string;
  /** Already joined: "Ashish Vaswani, Noam Shazeer, …". */
  readonly authors: string;
  readonly year?: number;
  readonly venue?: string;
  /** Whether "Open" has somewhere to go. */
  readonly link: boolean;
  /** The entry of the manuscript's bibliographies that already stands for the paper. */
  readonly existing?: { readonly key: string; readonly file: string };
}

export interface SentenceView {
  readonly text: string;
  readonly status: SentenceStatus;
  /** Why it is not supported, in words. */
  readonly reason?: string;
  /** The numbers of the sources it cites. */
  readonly sources: readonly number[];
  /** The passage the check rests on, and the number of the source it is from. */
  readonly evidence?: { readonly passage: string; readonly source: number; readonly entailment?: number };
}

/** A citation or passage taken out of the draft because it cites something the model was not given. */
export interface RemovalView {
  readonly text: string;
  readonly reason: string;
}

/** What a failure message offers to put right. */
export const FIXES = ['settings', 'apiKey'] as const;
export type Fix = (typeof FIXES)[number];

/** Extension → webview. */
export type PanelMessage =
  /** Before the first request to an endpoint: what would be sent, to allow or not. */
  | {
      readonly type: 'consent';
      readonly selection: string;
      readonly endpoint: string;
      /** `describeOutgoing`'s account, word for word. */
      readonly outgoing: string;
      /** Whether the papers are also searched for in the open sources, which then receive the queries. */
      readonly liveSearch: string;
    }
  | {
      readonly type: 'working';
      readonly selection: string;
      /** The stage, in words: "Drafting from 4 sources…". */
      readonly stage: string;
      /** The model's draft so far, citations and all: it is checked only once it is complete. Shown as text. */
      readonly draft: string;
    }
  /** More of the draft, to add to what the last `working` message showed: a streamed reply is not sent again whole for each piece. */
  | { readonly type: 'draftMore'; readonly selection: string; readonly text: string }
  | {
      readonly type: 'suggestion';
      readonly selection: string;
      readonly outcome: SuggestOutcome;
      readonly sentences: readonly SentenceView[];
      readonly sources: readonly SourceView[];
      readonly removed: readonly RemovalView[];
      readonly notes: readonly string[];
      /** What Accept did, once it was pressed. */
      readonly accepted?: { readonly ok: boolean; readonly message: string };
    }
  /** Nothing to show: `message` says why, ready to show. */
  | { readonly type: 'failed'; readonly selection: string; readonly message: string; readonly fix?: Fix };

export type SuggestionMessage = Extract<PanelMessage, { type: 'suggestion' }>;

const SIMPLE = ['ready', 'send', 'cancel', 'discard', 'openSettings', 'setApiKey'] as const;

/**
 * Webview → extension: `ready` asks for the current state (the page is rebuilt each time it is
 * shown); `accept` names the unconfirmed sentences the user ticked, by index.
 */
export type WebviewMessage =
  { readonly type: (typeof SIMPLE)[number] } | { readonly type: 'openPaper'; readonly source: number } | { readonly type: 'accept'; readonly unconfirmed: readonly number[] };

const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export function parseWebviewMessage(value: unknown): WebviewMessage | undefined {
  if (typeof value !== 'object' || value === null || !('type' in value)) return undefined;
  const simple = SIMPLE.find((t) => t === value.type);
  if (simple !== undefined) return { type: simple };
  if (value.type === 'accept') {
    const ticked = 'unconfirmed' in value ? value.unconfirmed : [];
    return Array.isArray(ticked) && ticked.length <= 1000 && ticked.every(isIndex) ? { type: 'accept', unconfirmed: ticked } : undefined;
  }
  if (value.type !== 'openPaper' || !('source' in value)) return undefined;
  const { source } = value;
  return isIndex(source) && source >= 1 ? { type: 'openPaper', source } : undefined;
}

/** The panel's fixed wording, localised by the extension and handed to the page once; the page fills in `{0}`. */
export interface PanelStrings {
  readonly selection: string;
  readonly consentTitle: string;
  readonly remember: string;
  readonly send: string;
  readonly cancel: string;
  readonly outcome: Readonly<Record<SuggestOutcome, string>>;
  readonly status: Readonly<Record<SentenceView['status'], string>>;
  /** The label of an unconfirmed sentence's tick box: insert it too. */
  readonly include: string;
  /** Under Accept: what it inserts. */
  readonly acceptHint: string;
  readonly evidence: string;
  readonly entailment: string;
  readonly cites: string;
  readonly existing: string;
  readonly added: string;
  readonly open: string;
  readonly removedTitle: string;
  readonly removed: string;
  readonly sourcesTitle: string;
  readonly notesTitle: string;
  readonly accept: string;
  readonly discard: string;
  readonly close: string;
  readonly fix: Readonly<Record<Fix, string>>;
}

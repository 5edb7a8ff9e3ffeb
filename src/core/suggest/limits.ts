/** How much of a draft is kept (attest.suggest.maxSentences, attest.suggest.maxCharacters): a suggestion to weigh and insert, not a section. */
export interface DraftLimits {
  readonly maxSentences: number;
  readonly maxCharacters: number;
}

export const DEFAULT_DRAFT_LIMITS: DraftLimits = { maxSentences: 4, maxCharacters: 1200 };

/**
 * Where a streamed reply is cut, whatever the limits: room for a "thinking" model's reasoning
 * before the draft, far below what would strain the parser or the panel.
 */
export const MAX_REPLY_CHARACTERS = 64_000;

/**
 * A cited suggestion for the user's selection, grounded only in papers Attest retrieved: the model
 * proposes search queries, the finder retrieves papers, the model drafts from the numbered sources,
 * and code then keeps only citations of those sources and checks every sentence against the passages
 * it cites. If the model finds the evidence insufficient, Attest searches once more for what it asks.
 *
 *   const s = await suggest({ selection, finder, llm, judge: supportJudge({ nli }), signal, onProgress });
 *   s.sentences   // [{ text, citations: [paper], status: 'supported', evidence }]
 */
import type { EvidenceFinder } from '../evidence';
import type { Paper } from '../papers/paper';
import type { Llm } from './llm';
import { LlmError } from './llmErrors';
import { DEFAULT_DRAFT_LIMITS, MAX_REPLY_CHARACTERS, type DraftLimits } from './limits';
import { parseDraft, type ParsedDraft, type Removal } from './parse';
import { withoutUnlistedPeople } from './people';
import { draftMessages, parseQueries, queryMessages } from './prompt';
import { recheck, type SentenceJudge, type SuggestedSentence } from './recheck';
import { numberSources, type NumberedSource } from './sources';

/** Enough papers to draw a few sentences from; more dilute the prompt and lengthen it for a small local model. */
export const MAX_SOURCES = 6;

export type SuggestProgress =
  | { readonly stage: 'queries' }
  | { readonly stage: 'searching'; readonly queries: readonly string[] }
  | { readonly stage: 'drafting'; readonly sources: number; readonly characters: number }
  | { readonly stage: 'checking'; readonly sentences: number };

export interface SuggestRequest {
  /** The claim to support, or a note such as "summarise evidence on X": plain text, markup removed. */
  readonly selection: string;
  readonly finder: EvidenceFinder;
  readonly llm: Llm;
  readonly judge: SentenceJudge;
  /** How much of the draft is kept; DEFAULT_DRAFT_LIMITS when absent. */
  readonly limits?: DraftLimits;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: SuggestProgress) => void;
}

/**
 * `drafted`: sentences to offer. `insufficient`: the model found too little evidence, even after one
 * more search. `no-sources`: no paper with an abstract was found. `empty` / `malformed`: the draft
 * held nothing to offer.
 */
export type SuggestOutcome = 'drafted' | 'insufficient' | 'no-sources' | 'empty' | 'malformed';

export interface Suggestion {
  readonly outcome: SuggestOutcome;
  readonly sentences: readonly SuggestedSentence[];
  /** The papers the model was given, in the order it numbered them. */
  readonly sources: readonly Paper[];
  /** Citations and other text taken out of the draft because they cite something not given. */
  readonly removed: readonly Removal[];
  /** What was searched for: the model's queries (or the selection), then any follow-up search it asked for. */
  readonly queries: readonly string[];
  /** For the user: why an outcome is what it is, and what the finder reported. */
  readonly notes: readonly string[];
}

/**
 * Rejects with `signal.reason` once `signal` aborts, and with an `LlmError` when the model cannot be
 * asked; an unusable reply is an outcome, not an error.
 */
export async function suggest(request: SuggestRequest): Promise<Suggestion> {
  const { finder, llm, judge, signal, onProgress } = request;
  const selection = request.selection.trim();
  if (!selection) throw new Error('Select the claim or note to draft a suggestion for.');
  const notes: string[] = [];
  const note = (text: string): void => {
    if (!notes.includes(text)) notes.push(text);
  };

  onProgress?.({ stage: 'queries' });
  const queries = await searchQueries(selection, llm, signal, note);
  onProgress?.({ stage: 'searching', queries });
  const searched = [...queries];
  const papers = await retrieve(queries, finder, signal, note);
  const result = (outcome: SuggestOutcome, sources: readonly NumberedSource[], extra: Partial<Suggestion> = {}): Suggestion => ({
    outcome,
    sentences: [],
    sources: sources.map((s) => s.paper),
    removed: [],
    queries: searched,
    notes,
    ...extra,
  });
  if (papers.length === 0) {
    note('No paper with an abstract was found for the queries, so the model was not asked to draft anything.');
    return result('no-sources', []);
  }

  // Passages are picked for the selection and for the model's wording of it in the queries.
  const focus = [selection, ...queries].join('\n');
  let sources = numberSources(papers, focus);
  const limits = request.limits ?? DEFAULT_DRAFT_LIMITS;
  const drafting = { selection, llm, limits, signal, onProgress, note };
  let parsed = await draft(sources, drafting);
  if (parsed.kind === 'insufficient' && parsed.query) {
    const query = parsed.query;
    note(`The model found the evidence insufficient and asked for a search for "${query}".`);
    onProgress?.({ stage: 'searching', queries: [query] });
    searched.push(query);
    const added = (await retrieve([query], finder, signal, note)).filter((p) => !papers.some((q) => q.id === p.id));
    if (added.length > 0) {
      // The new papers take turns with the first ones, so neither the claim's nor the gap's best are crowded out.
      sources = numberSources(interleave([papers, added], MAX_SOURCES), `${focus}\n${query}`);
      parsed = await draft(sources, drafting);
    } else {
      note('That search found no further paper.');
      parsed = { kind: 'insufficient' };
    }
  }

  switch (parsed.kind) {
    case 'insufficient':
      note(parsed.query ? `The model still finds the evidence insufficient; it suggests searching for "${parsed.query}".` : 'The model finds the evidence insufficient.');
      return result('insufficient', sources);
    case 'empty':
      note('The model sent no text to offer.');
      return result('empty', sources);
    case 'malformed':
      note(`The model's reply could not be read as a draft: ${parsed.reason}.`);
      return result('malformed', sources);
  }
  const people = withoutUnlistedPeople(parsed.sentences, sources);
  const removed = [...parsed.removed, ...people.removed];
  const taken = removed.length;
  if (taken > 0) note(`${taken} part${taken === 1 ? ' of the draft was' : 's of the draft were'} taken out, each with the reason.`);
  if (people.kept.length === 0) {
    note('Nothing was left of the draft once what cites works outside the sources, or is not plain text, was taken out.');
    return result('empty', sources, { removed });
  }
  onProgress?.({ stage: 'checking', sentences: people.kept.length });
  const sentences = await recheck(people.kept, sources, judge, signal);
  return result('drafted', sources, { sentences, removed });
}

/** The model's queries, or the selection itself when its reply is of no use. */
async function searchQueries(selection: string, llm: Llm, signal: AbortSignal | undefined, note: (text: string) => void): Promise<string[]> {
  try {
    const queries = parseQueries(await llm.complete(queryMessages(selection), { signal }));
    if (queries.length > 0) return queries;
    note('The model proposed no usable search query; the selection itself was searched for.');
  } catch (error) {
    if (!(error instanceof LlmError) || !['empty', 'malformed', 'cut-off'].includes(error.kind)) throw error;
    note(`The model proposed no usable search query (${error.message}); the selection itself was searched for.`);
  }
  return [selection];
}

/** The papers found for each query, taken in turn from each query's ranking, without repeats or papers lacking an abstract. */
async function retrieve(queries: readonly string[], finder: EvidenceFinder, signal: AbortSignal | undefined, note: (text: string) => void): Promise<Paper[]> {
  const rankings = await Promise.all(
    queries.map(async (text) => {
      const found = await finder.find({ text, limit: MAX_SOURCES, signal });
      found.notes.forEach(note);
      return found.results.map((r) => r.paper);
    }),
  );
  signal?.throwIfAborted();
  // A retracted or withdrawn paper is never offered to the model to cite.
  const fallen = new Set(
    rankings
      .flat()
      .filter((p) => p.standing === 'retracted' || p.standing === 'withdrawn')
      .map((p) => p.id),
  );
  if (fallen.size > 0) note(`${fallen.size} retracted or withdrawn paper${fallen.size === 1 ? ' was' : 's were'} left out of the sources.`);
  return interleave(
    rankings.map((papers) => papers.filter((p) => p.abstract?.trim() && !fallen.has(p.id))),
    MAX_SOURCES,
  );
}

/** Round-robin over the lists, first of each, then second of each…, skipping papers already taken. */
function interleave(lists: readonly (readonly Paper[])[], limit: number): Paper[] {
  const taken = new Map<string, Paper>();
  for (let rank = 0; taken.size < limit && lists.some((list) => rank < list.length); rank++) {
    for (const list of lists) {
      const paper = list[rank];
      if (paper && !taken.has(paper.id) && taken.size < limit) taken.set(paper.id, paper);
    }
  }
  return [...taken.values()];
}

interface Drafting {
  readonly selection: string;
  readonly llm: Llm;
  readonly limits: DraftLimits;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: SuggestRequest['onProgress'];
  readonly note: (text: string) => void;
}

/** Thrown into the request to stop a reply that has grown past MAX_REPLY_CHARACTERS. */
class ReplyTooLong extends Error {}

/**
 * The model's draft from the numbered sources, read. A reply that grows past MAX_REPLY_CHARACTERS
 * is cut there, whatever the server does with max_tokens, and its unfinished last sentence dropped.
 */
async function draft(sources: readonly NumberedSource[], { selection, llm, limits, signal, onProgress, note }: Drafting): Promise<ParsedDraft> {
  let received = '';
  const cut = new AbortController();
  const stop = (): void => cut.abort(signal?.reason);
  signal?.addEventListener('abort', stop, { once: true });
  onProgress?.({ stage: 'drafting', sources: sources.length, characters: 0 });
  try {
    let reply: string;
    try {
      reply = await llm.complete(draftMessages(selection, sources, limits.maxSentences), {
        signal: cut.signal,
        onToken: (piece) => {
          received += piece;
          onProgress?.({ stage: 'drafting', sources: sources.length, characters: received.length });
          if (received.length > MAX_REPLY_CHARACTERS && !cut.signal.aborted) cut.abort(new ReplyTooLong());
        },
      });
    } catch (error) {
      if (!(cut.signal.reason instanceof ReplyTooLong)) throw error;
      reply = received;
    }
    if (reply.length <= MAX_REPLY_CHARACTERS) return parseDraft(reply, sources.length, limits);
    note(`The reply was cut at ${MAX_REPLY_CHARACTERS.toLocaleString('en')} characters: a draft is a few sentences, and the rest was not read.`);
    return parseDraft(withoutLastSentence(reply.slice(0, MAX_REPLY_CHARACTERS)), sources.length, limits);
  } catch (error) {
    if (error instanceof LlmError && error.kind === 'empty') return { kind: 'empty' };
    throw error;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

/** The text up to its last sentence end: what follows was cut off mid-sentence. */
function withoutLastSentence(text: string): string {
  const end = Math.max(text.lastIndexOf('. '), text.lastIndexOf('.\n'));
  return end < 0 ? '' : text.slice(0, end + 1);
}

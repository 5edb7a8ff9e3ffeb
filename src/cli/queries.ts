import type { EvidenceFinder } from '../core/app/evidence';
import type { Console } from './console';

/** The claims `attest search` is given, and its answers. */
export interface Query {
  readonly id: string | number | null;
  readonly text: string;
}

/** BEIR's queries.jsonl: `_id` (or `id`) and `text` a line; any other line stops the search before it starts. */
export function parseQueries(text: string): Query[] {
  const queries: Query[] = [];
  text.split('\n').forEach((line, at) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`queries line ${at + 1} is not JSON`);
    }
    const { _id, id, text: query } = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
    const queryId = _id ?? id;
    if (typeof queryId !== 'string' && typeof queryId !== 'number') throw new Error(`queries line ${at + 1} has no "_id"`);
    if (typeof query !== 'string') throw new Error(`queries line ${at + 1} has no "text" string`);
    queries.push({ id: queryId, text: query });
  });
  return queries;
}

/** The library names the editor's setting; here the flag and the variable are what can be set. */
const NO_ENCODER_HERE = 'Ranked by words alone: no sentence encoder given (--embed-model DIR or ATTEST_EMBED_MODEL).';

/**
 * Each query searched in turn, its results a JSON line on standard output: `{"query_id", "results":
 * [{"id", "score", "sentence"}]}`. `failure` is checked after each search, for an error the finder
 * would only note (a reranker asked for by flag). Returns the searches' notes, each once.
 */
export async function answerQueries(finder: EvidenceFinder, queries: readonly Query[], top: number, failure: () => unknown, io: Console): Promise<Set<string>> {
  const notes = new Set<string>();
  for (const query of queries) {
    const found = await finder.find({ text: query.text, limit: top });
    if (failure() !== undefined) throw failure();
    for (const note of found.notes) notes.add(note);
    const results = found.results.map((r) => ({ id: r.paper.id, score: r.score, sentence: r.sentence ?? null }));
    io.out(`${JSON.stringify({ query_id: query.id, results })}\n`);
  }
  return notes;
}

/** The searches' notes on standard error, the library's `noEncoderNote` in the CLI's words. */
export function sayNotes(notes: ReadonlySet<string>, noEncoderNote: string, io: Console): void {
  for (const note of notes) io.err(`attest search: ${note === noEncoderNote ? NO_ENCODER_HERE : note}\n`);
}

/** The claims `attest search` is given. */
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

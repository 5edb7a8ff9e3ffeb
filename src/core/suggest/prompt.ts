/**
 * The two requests a suggestion makes of the model: search queries for the user's selection, then a
 * draft written only from numbered sources. Also, in words, exactly what those requests send.
 */
import { isThisMachine } from '../addressReach';
import type { ChatMessage, LlmSettings } from './llm';
import { endpointName } from './llmErrors';
import { DEFAULT_DRAFT_LIMITS } from './limits';
import { cleanReply } from './reply';
import { authorNames, PASSAGES_PER_SOURCE, type NumberedSource } from './sources';

export const MAX_QUERIES = 3;

const QUERY_INSTRUCTIONS = [
  'You turn text from a scientific manuscript into queries for a search engine over the titles and abstracts of scientific papers.',
  `Reply with a JSON array of 1 to ${MAX_QUERIES} queries, each a few keywords (3 to 8 words), and nothing else.`,
  'Example: ["caffeine intake sleep latency", "coffee consumption insomnia adults"]',
].join('\n');

export function queryMessages(selection: string): ChatMessage[] {
  return [
    { role: 'system', content: QUERY_INSTRUCTIONS },
    { role: 'user', content: selection },
  ];
}

/**
 * The queries in a reply: a JSON array of strings if there is one, else one query a line (list
 * markers and quotes dropped, lines of prose such as "Here are the queries:" skipped). Empty when
 * nothing in the reply reads as a query.
 */
export function parseQueries(reply: string): string[] {
  const text = cleanReply(reply);
  const candidates = jsonStrings(text) ?? text.split('\n');
  const queries: string[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    const query = candidate
      .trim()
      .replace(/^(?:[-*•]|\d+[.)])\s+/, '')
      .replace(/^["'“”]+|["'“”,]+$/g, '')
      .trim();
    const words = query.split(/\s+/).length;
    if (!/\p{L}/u.test(query) || query.endsWith(':') || words > 15 || query.length > 200) continue;
    const key = query.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    queries.push(query);
  }
  return queries.slice(0, MAX_QUERIES);
}

/** The strings of the first JSON array in the text, or undefined when there is none. */
function jsonStrings(text: string): string[] | undefined {
  const start = text.indexOf('[');
  const end = text.lastIndexOf(']');
  if (start < 0 || end <= start) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1));
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
  } catch {
    return undefined;
  }
}

/** The marker a reply starts with when the sources cannot support the text, followed by a query for more. */
export const INSUFFICIENT = 'INSUFFICIENT';

function draftInstructions(sourceCount: number, maxSentences: number): string {
  const range = sourceCount === 1 ? 'the number 1' : `the numbers 1 to ${sourceCount}`;
  return [
    'You help a scientist write a manuscript. Write a short passage for the text the user gives, using only the numbered sources the user gives.',
    'Rules:',
    '1. State only what the passages of the sources say. Add no facts, numbers or claims from anywhere else.',
    '2. End every sentence with the numbers of the sources it rests on, in square brackets: [1] or [1, 3].',
    `3. Cite only ${range}. Never write author names, years, DOIs, URLs or a list of references.`,
    `4. Write at most ${maxSentences} sentences of plain text: no headings, lists, Markdown, LaTeX, math or HTML.`,
    `5. If the sources do not hold enough evidence for the text, reply with one line only: ${INSUFFICIENT}: <a search query that would find the missing evidence>`,
  ].join('\n');
}

export function draftMessages(selection: string, sources: readonly NumberedSource[], maxSentences = DEFAULT_DRAFT_LIMITS.maxSentences): ChatMessage[] {
  const listed = sources.map(describeSource).join('\n\n');
  return [
    { role: 'system', content: draftInstructions(sources.length, maxSentences) },
    { role: 'user', content: `Sources:\n\n${listed}\n\nText to write for:\n${selection}` },
  ];
}

function describeSource(source: NumberedSource): string {
  const year = source.paper.year === undefined ? '' : ` (${source.paper.year})`;
  const passages = source.passages.map((p) => `- ${p}`).join('\n');
  const authors = authorNames(source.paper.authors);
  return `[${source.number}] ${source.paper.title}${year}. ${authors}${authors.endsWith('.') ? '' : '.'}\n${passages}`;
}

export interface OutgoingDescription {
  /** Where every request goes. */
  readonly endpoint: string;
  /** The endpoint is this machine: nothing leaves it. */
  readonly local: boolean;
  /** All of it in words, with the first request word for word, for the editor to show before sending anything. */
  readonly text: string;
}

/**
 * What a suggestion for `selection` will send, shown before the first request. The sources of the
 * drafting request are found only after the first request, so that one is described by what it holds.
 */
export async function describeOutgoing(
  selection: string,
  settings: Pick<LlmSettings, 'baseUrl' | 'model' | 'apiKey' | 'temperature' | 'maxTokens'>,
  maxSources: number,
  maxSentences = DEFAULT_DRAFT_LIMITS.maxSentences,
): Promise<OutgoingDescription> {
  const endpoint = `${endpointName(settings.baseUrl)}/chat/completions`;
  const local = await isThisMachine(settings.baseUrl);
  const quoted = (messages: readonly ChatMessage[]): string => messages.map((m) => `--- ${m.role} ---\n${m.content}`).join('\n');
  const text = [
    `Attest will send up to three requests to ${endpoint} (model "${settings.model}"), ${local ? 'on this machine: nothing leaves it' : 'outside this machine'}.`,
    '',
    '1. To turn your selection into search queries, this, word for word:',
    quoted(queryMessages(selection)),
    '',
    `2. To draft the suggestion: your selection again, and the title, year, authors and up to ${PASSAGES_PER_SOURCE} sentences of the abstract of each of up to ${maxSources} papers found for the queries, numbered [1] to [${maxSources}], under these instructions:`,
    quoted([{ role: 'system', content: draftInstructions(maxSources, maxSentences) }]),
    '',
    '3. Only if the model finds the evidence insufficient: the same once more, with the papers found for the search query it proposes.',
    '',
    `With each request: the model settings (temperature ${settings.temperature}, at most ${settings.maxTokens} tokens), the name and version of the openai client, and ${settings.apiKey ? 'your API key' : 'no API key (a placeholder the client requires)'}.`,
  ].join('\n');
  return { endpoint, local, text };
}

/**
 * What Accept puts into the manuscript: the sentences the user accepts, each escaped as text for the
 * manuscript's language and closed by a citation that Attest writes itself, of the given sources'
 * keys only. Nothing from the draft is read as markup, and nothing merges into a citation the
 * draft wrote: there is none left, since every bracket and backslash of it is escaped.
 *
 *   insertionText([{ text: 'Caching cuts latency by 40%.', keys: ['lee2019cache'] }], { kind: 'latex', command: 'citep' })
 *     → 'Caching cuts latency by 40\\%~\\citep{lee2019cache}.'
 */
import { citationFor, type CitationStyle } from '../manuscript/citeStyle';
import { escapeLatex, escapePandoc } from '../manuscript/escape';
import type { SuggestedSentence } from './recheck';

/** Which unconfirmed sentences go in besides the supported ones: those ticked (by index), or all. */
export type UnconfirmedChoice = ReadonlySet<number> | 'all';

/**
 * The sentences Accept inserts, in order: every supported one, and the unconfirmed ones chosen.
 * Contradicted, unrelated and uncited sentences never go in, whatever is chosen.
 */
export function acceptedSentences<S extends Pick<SuggestedSentence, 'status'>>(sentences: readonly S[], unconfirmed: UnconfirmedChoice = new Set()): S[] {
  return sentences.filter((s, i) => s.status === 'supported' || (s.status === 'unconfirmed' && (unconfirmed === 'all' || unconfirmed.has(i))));
}

export interface CitedSentence {
  /** As drafted: plain text, to be escaped. */
  readonly text: string;
  readonly keys: readonly string[];
}

/** The sentences as the manuscript writes them, joined by spaces; empty when there are none. */
export function insertionText(sentences: readonly CitedSentence[], style: CitationStyle): string {
  return sentences.map((s) => citedSentence(s, style)).join(' ');
}

/** "Text~\citep{k}." — the citation before the sentence's closing punctuation, as in the manuscript's own sentences. */
function citedSentence({ text, keys }: CitedSentence, style: CitationStyle): string {
  const escaped = (style.kind === 'latex' ? escapeLatex : escapePandoc)(text.replace(/\s+/g, ' ').trim());
  const stop = /[.!?]$/.test(escaped) && !/\.\.$/.test(escaped) ? escaped.slice(-1) : '';
  const body = escaped.slice(0, escaped.length - stop.length);
  return `${body}${citationFor(keys, style, /\s$/.test(body))}${stop}`;
}

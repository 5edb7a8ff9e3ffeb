/**
 * Each drafted sentence checked again, in code, against the passages of the sources it cites: that
 * the model cited a source is not taken as the source saying so.
 */
import { analyze } from '../index/analyzer';
import type { Paper } from '../papers/paper';
import { TermStatistics, tfidfRelevance } from '../verify/relevance';
import { judgeSupport, type SupportDependencies, type SupportJudgement } from '../verify/support';
import type { DraftSentence } from './parse';
import type { NumberedSource } from './sources';

/** Whether `passages` back `claim`. */
export type SentenceJudge = (claim: string, passages: readonly string[], signal?: AbortSignal) => Promise<SupportJudgement>;

/**
 * The verifier's support check: relevance always, NLI when a model is loaded. Without one nothing
 * can be confirmed, only passages that share none of the sentence's key terms caught. Term weights come from the passages judged:
 * there is no larger collection at hand, and words all of them share say least about relatedness.
 */
export function supportJudge(options: Pick<SupportDependencies, 'nli' | 'thresholds'> = {}): SentenceJudge {
  return (claim, passages, signal) =>
    judgeSupport(claim, passages, { relevance: tfidfRelevance(analyze, TermStatistics.of(passages, analyze)), nli: options.nli, thresholds: options.thresholds, signal });
}

/**
 * `supported`: a cited passage entails it. `unconfirmed`: the check could not confirm it (no NLI
 * model, or the passages do not state it) but the passages are on its topic. `contradicted`: a cited
 * passage contradicts it. `unrelated`: the cited passages share none of its key terms, so the citation
 * is not what the sentence rests on, even when a model entails it. `uncited`: it cites no source. Accept inserts the first, the
 * second only when the user chooses it, and never the last three.
 */
export type SentenceStatus = 'supported' | 'unconfirmed' | 'contradicted' | 'unrelated' | 'uncited';

export interface SuggestedSentence {
  /** Without citation markers: the editor puts its own citation commands in. */
  readonly text: string;
  readonly citations: readonly Paper[];
  readonly status: SentenceStatus;
  /** Why it is not supported, in words for the editor. */
  readonly reason?: string;
  /** The passage the check rests on, the paper it is from, and the verdict with its scores. */
  readonly evidence?: { readonly paper: Paper; readonly passage: string; readonly judgement: SupportJudgement };
}

export async function recheck(sentences: readonly DraftSentence[], sources: readonly NumberedSource[], judge: SentenceJudge, signal?: AbortSignal): Promise<SuggestedSentence[]> {
  const byNumber = new Map(sources.map((s) => [s.number, s]));
  const checked: SuggestedSentence[] = [];
  for (const sentence of sentences) {
    signal?.throwIfAborted();
    // The one place a number becomes a paper: a number no source has cannot become one.
    const cited = sentence.sources.flatMap((n) => byNumber.get(n) ?? []);
    if (cited.length === 0) {
      checked.push({ text: sentence.text, citations: [], status: 'uncited', reason: 'it cites none of the sources, so it is never inserted' });
      continue;
    }
    const judgement = await judge(
      sentence.text,
      cited.flatMap((s) => s.passages),
      signal,
    );
    const passage = judgement.sentence;
    const evidence = passage === undefined ? undefined : { paper: (cited.find((s) => s.passages.includes(passage)) ?? cited[0]).paper, passage, judgement };
    const citations = cited.map((s) => s.paper);
    // A sentence its sources share no key term with rests on something else, whatever a model entailed.
    const status = judgement.label === 'contradicted' ? judgement.label : judgement.unrelated ? 'unrelated' : judgement.label === 'supported' ? judgement.label : 'unconfirmed';
    checked.push(status === 'supported' ? { text: sentence.text, citations, status, evidence } : { text: sentence.text, citations, status, reason: whyNot(judgement), evidence });
  }
  return checked;
}

function whyNot(judgement: SupportJudgement): string {
  if (judgement.unrelated && judgement.label !== 'contradicted') return "the cited passages share none of the sentence's key terms, so it is never inserted";
  switch (judgement.label) {
    case 'contradicted':
      return 'a cited passage contradicts it, so it is never inserted';
    case 'unsupported':
      return 'the cited passages do not state it';
    default:
      return judgement.reason === 'no NLI model'
        ? 'related to the cited passages, but without an NLI model support cannot be confirmed'
        : 'there is no passage to check it against';
  }
}

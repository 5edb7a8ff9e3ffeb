/** Suggest Citations: the drafting model, its prompt, limits and errors, the recheck of each drafted sentence and where it is inserted. */
export { acceptedSentences, insertionText } from '../suggest/insertion';
export type { DraftLimits } from '../suggest/limits';
export { type Llm, LlmError, type LlmSettings, OpenAiLlm } from '../suggest/llm';
export { endpointName } from '../suggest/llmErrors';
export { describeOutgoing } from '../suggest/prompt';
export { type SentenceJudge, type SentenceStatus, type SuggestedSentence, supportJudge } from '../suggest/recheck';
export { MAX_SOURCES, suggest, type Suggestion, type SuggestOutcome, type SuggestProgress } from '../suggest/suggest';

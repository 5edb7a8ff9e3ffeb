/** Whether a cited work supports its sentence: the support thresholds and labels, the claims judged against abstracts, the relevance that picks the sentences to judge and the analyzer that tokenises them. */
export { analyze } from '../index/analyzer';
export { abstractSentences, idsOf, judgePapers, missingAbstracts } from '../verify/claims';
export { TermStatistics, tfidfRelevance } from '../verify/relevance';
export { judgeSupport, shownVerdict, type ShownVerdict, supportConfidence, type SupportJudgement, type SupportThresholds } from '../verify/support';

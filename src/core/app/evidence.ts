/** Find Evidence as an adapter reaches it: the evidence finder, the papers it returns, the library worker's protocol and the citation keys offered for completion. */
export { type Completion, COMPLETIONS, type KeyCandidate, KeyCompleter, keyContext } from '../completion/citationKeys';
export type { PaperMatch } from '../completion/libraryKeys';
export type { Evidence, EvidenceFinder, EvidenceResults, SearchMode } from '../evidence';
export { LibraryThread } from '../index/libraryThread';
export { distinctPapers, type Paper, type PaperStanding } from '../papers/paper';

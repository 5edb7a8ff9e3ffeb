import type { Paper } from './papers/paper';

/** How a search ranked papers: by words alone, or words fused with a sentence encoder's meaning. */
export type SearchMode = 'lexical' | 'dense' | 'hybrid';

export interface EvidenceQuery {
  /** The claim to find evidence for: the user's selection, markup removed. */
  readonly text: string;
  readonly limit: number;
  /** Keep only papers with an open-access copy. */
  readonly openAccessOnly?: boolean;
  readonly signal?: AbortSignal;
  /**
   * Called with a first list, from the library alone, while live sources are still searched: the
   * final results, which `find` resolves to, follow once they have answered. The first list is in the
   * ranking's own order, not yet the reranker's. Called at most once, never with an empty list, and
   * not at all without live sources or when they answer first.
   */
  readonly onLibraryResults?: (results: EvidenceResults) => void;
}

/** One paper found for a claim, with the sentence of its abstract that matches the claim best. */
export interface Evidence {
  readonly paper: Paper;
  readonly score: number;
  readonly sentence?: string;
}

export interface EvidenceResults {
  readonly mode: SearchMode;
  readonly results: readonly Evidence[];
  /** Why the search is lexical only, or a source could not be searched: for the panel to say. */
  readonly notes: readonly string[];
}

/** Finds papers that may back a claim: the local index, and live open-access sources when enabled. */
export interface EvidenceFinder {
  find(query: EvidenceQuery): Promise<EvidenceResults>;
}

import type { PaperMatch } from '../completion/libraryKeys';
import type { EvidenceResults, SearchMode } from '../evidence';
import type { TextKind } from '../models/embedder';
import type { ImportProblem, PaperFormat } from '../papers/import';
import type { Paper } from '../papers/paper';
import type { BibliographicQuery, SourceRecord } from '../sources/types';
import type { SolrTarget } from './solr/client';

/**
 * The messages between `LibraryThread` (libraryThread.ts, on the extension host) and the worker that
 * holds the paper library (libraryWorker.ts). The worker owns the store and its indexes; the host keeps
 * what needs its own connections: the sentence encoder (itself in the model worker) and the live sources,
 * which the worker calls back for.
 */

/** How the worker's library is set up: the encoder and sources stay on the host and are named here. */
export interface LibrarySetup {
  /** Counts the host's setups: a callback of an earlier one is refused, since its encoder or sources are gone. */
  readonly generation: number;
  readonly dir: string;
  /** The encoder's model name; the worker asks the host for its vectors. */
  readonly encoder?: string;
  readonly missingEncoder?: 'not-configured' | 'not-downloaded';
  readonly mode?: SearchMode;
  /** The reranker that reorders the top of each search, and the threads it may use; the worker loads it at the first. */
  readonly reranker?: RerankerSetup;
  /** The live sources, by position, with the names the notes use. */
  readonly sources: readonly { readonly id: string; readonly name: string }[];
  /** An institution's collection on SolrCloud that searches go to instead of the store in `dir`. */
  readonly solr?: SolrTarget;
}

export interface RerankerSetup {
  readonly dir: string;
  readonly threads?: number;
  /** Where its optimised copy is kept (see `SessionOptions.optimizedCopies`). */
  readonly optimizedCopies?: string;
}

export type LibraryTask =
  /** A search; with `libraryFirst`, a first list from the library alone is sent while live sources are searched (`libraryResults`). */
  | { readonly type: 'find'; readonly text: string; readonly limit: number; readonly openAccessOnly?: boolean; readonly libraryFirst?: boolean }
  /** Adds papers; with `onlyNew`, only those the library does not hold yet; with `embedLater`, unembedded (see `PaperLibrary.add`). */
  | { readonly type: 'add'; readonly papers: readonly Paper[]; readonly onlyNew?: boolean; readonly embedLater?: boolean }
  /** Reads a JSONL, BibTeX or RIS file in the worker and adds its papers; with `embedLater`, unembedded. */
  | { readonly type: 'import'; readonly file: string; readonly format: PaperFormat; readonly embedLater?: boolean }
  | { readonly type: 'embedMissing' }
  /** How many papers have no vector of the encoder: after a stop, what is left, since nothing more is saved. */
  | { readonly type: 'unembedded' }
  /** Citation completion: the papers that match `typed`, best first, each with the key it would be cited by. */
  | { readonly type: 'complete'; readonly typed: string; readonly limit: number };

export type ImportSummary =
  | {
      readonly added: number;
      /** Records that could not be read: how many, and the first few. */
      readonly problemCount: number;
      readonly problems: readonly ImportProblem[];
    }
  /** The file could not be read as text: why, for the user. */
  | { readonly unreadable: string };

/** What each task answers. */
export interface LibraryAnswers {
  readonly find: EvidenceResults;
  readonly add: number;
  readonly import: ImportSummary;
  readonly embedMissing: number;
  /** Undefined without an encoder. */
  readonly unembedded: number | undefined;
  readonly complete: readonly PaperMatch[];
}

export type HostToWorker =
  /** Opens the store in `dir` (once per worker) and sets up the library; answered by `opened`. */
  | { readonly kind: 'setup'; readonly id: number; readonly setup: LibrarySetup }
  | { readonly kind: 'task'; readonly id: number; readonly task: LibraryTask }
  | { readonly kind: 'abort'; readonly id: number }
  /** The host's answer to a callback of the worker. */
  | { readonly kind: 'answer'; readonly call: number; readonly vectors?: Float32Array[]; readonly records?: SourceRecord[]; readonly error?: string };

export type WorkerToHost =
  | { readonly kind: 'done'; readonly id: number; readonly value: unknown }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string; readonly aborted: boolean }
  | { readonly kind: 'progress'; readonly id: number; readonly done: number; readonly total: number }
  /** Search `id`'s first list, from the library alone, while its live sources are still searched. */
  | { readonly kind: 'libraryResults'; readonly id: number; readonly results: EvidenceResults }
  /** Asks the host for vectors, on behalf of task `id` (whose cancellation the host applies). */
  | { readonly kind: 'embed'; readonly call: number; readonly id: number; readonly generation: number; readonly texts: readonly string[]; readonly textKind: TextKind }
  /** Asks the host to search live source number `source` for the claim of task `id`. */
  | { readonly kind: 'search'; readonly call: number; readonly id: number; readonly generation: number; readonly source: number; readonly query: BibliographicQuery };

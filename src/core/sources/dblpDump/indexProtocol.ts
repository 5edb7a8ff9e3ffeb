/** What the DBLP dump's indexing thread (`dblpIndexWorker.ts`) and the thread that asked say to each other. */
import type { DumpProgress } from './xml';

/** The thread's input: the dump to index and the folder its index goes in. */
export interface IndexRequest {
  readonly file: string;
  readonly folder: string;
}

/** From the indexing thread: how far it is, that it is done, or why it stopped. */
export type IndexReply =
  | { readonly type: 'progress'; readonly progress: DumpProgress }
  | { readonly type: 'done' }
  /** `dump`: the dump cannot be read in full (DblpDumpError); `cancelled`: it was asked to stop; `other`: the file system's error, its code kept. */
  | { readonly type: 'failed'; readonly kind: 'dump' | 'cancelled' | 'other'; readonly message: string; readonly code?: string };

/** To the indexing thread: stop, leaving the index as it was. */
export interface CancelRequest {
  readonly type: 'cancel';
}

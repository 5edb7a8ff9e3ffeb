import type { Bibliography } from '../bibliography/types';
import type { PackedSource } from '../manuscript/packed';

/** The messages between `thread.ts` (on the caller's thread) and `worker.ts`. */
export type ParseRequest =
  | { readonly id: number; readonly type: 'source'; readonly file: string; readonly text: string; readonly macros?: ReadonlyMap<string, string> }
  | { readonly id: number; readonly type: 'bibliography'; readonly file: string; readonly text: string };

export type ParseReply =
  | { readonly id: number; readonly type: 'source'; readonly parsed: PackedSource }
  | { readonly id: number; readonly type: 'bibliography'; readonly parsed: Bibliography }
  | { readonly id: number; readonly type: 'failed'; readonly message: string };

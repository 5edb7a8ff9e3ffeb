import * as path from 'node:path';
import { SourceError } from '../../../src/core/sources/types';
import type { Workspace } from '../../../src/core/workspace';

/** The repository root, from out/test/unit/support. */
export const REPO_ROOT = path.resolve(__dirname, '../../../..');

/** Real files nobody on the team wrote (manuscripts, tokenizers), each with its licence and source. */
export const FIXTURES = path.join(REPO_ROOT, 'test/fixtures');

/** Files held in memory, keyed by absolute path; a test changes them without touching the disk. */
export class MemoryWorkspace implements Workspace {
  readonly files = new Map<string, string>();

  constructor(files: Record<string, string> = {}) {
    for (const [file, text] of Object.entries(files)) this.files.set(path.resolve(file), text);
  }

  async readText(file: string): Promise<string | undefined> {
    return this.files.get(file);
  }
}

/**
 * A source's refusal to ask about what it cannot read (an identifier, a title without words): a failure,
 * never "no such work".
 */
export function isNotAsked(error: unknown): boolean {
  return error instanceof SourceError && error.kind === 'unavailable' && /was not asked/.test(error.message);
}

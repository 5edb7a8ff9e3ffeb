import * as path from 'node:path';
import type { Workspace } from '../../src/core/workspace';

/** The repository root, from out/test/unit. */
export const REPO_ROOT = path.resolve(__dirname, '../../..');

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

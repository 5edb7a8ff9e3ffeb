import * as path from 'node:path';
import type { Workspace } from '../../src/core/workspace';

/** The repository root, from out/test/unit. */
export const REPO_ROOT = path.resolve(__dirname, '../../..');

/** Evaluation data nobody on the team wrote; read in place, never copied into the repository. */
export const SHARED_DATA = path.resolve(REPO_ROOT, '../shared/data');

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

import { readTextFile } from './text/readFile';
import type { Workspace } from './workspace';

/** Reads files from disk, refusing ones too large to be a manuscript or bibliography. */
export class FsWorkspace implements Workspace {
  constructor(private readonly maxFileBytes = 50 * 1024 * 1024) {}

  async readText(file: string): Promise<string | undefined> {
    return (await readTextFile(file, this.maxFileBytes))?.text;
  }
}

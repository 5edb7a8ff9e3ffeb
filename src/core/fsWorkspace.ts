import { promises as fs } from 'node:fs';
import { decodeText, UnreadableFileError } from './text/decode';
import type { Workspace } from './workspace';

/** Reads files from disk, refusing ones too large to be a manuscript or bibliography. */
export class FsWorkspace implements Workspace {
  constructor(private readonly maxFileBytes = 50 * 1024 * 1024) {}

  async readText(file: string): Promise<string | undefined> {
    let size: number;
    try {
      const stat = await fs.stat(file);
      if (!stat.isFile()) return undefined;
      size = stat.size;
    } catch {
      return undefined;
    }
    if (size > this.maxFileBytes) {
      const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);
      throw new UnreadableFileError(file, `${file} is ${mb(size)} MB, over the ${mb(this.maxFileBytes)} MB limit for files Attest reads.`);
    }
    return decodeText(await fs.readFile(file), file);
  }
}

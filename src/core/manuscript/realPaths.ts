import { promises as fs } from 'node:fs';

/**
 * The real path of each file, asked of the file system once: names that reach one file through
 * symbolic links (`l/s.tex` with `l -> .`, an `alias.tex -> a.tex`) come out the same. A name that
 * does not resolve (a missing file, a file only an editor holds) stands for itself.
 */
export class RealPaths {
  private readonly known = new Map<string, Promise<string>>();

  of(file: string): Promise<string> {
    let real = this.known.get(file);
    if (real === undefined) {
      real = fs.realpath(file).catch(() => file);
      this.known.set(file, real);
    }
    return real;
  }
}

/**
 * Search paths as TeX's kpathsea reads them from `BIBINPUTS` and `TEXINPUTS`: where a file a
 * manuscript names is looked for when the root's folder lacks it. kpathsea is a C library with no
 * npm counterpart, and the part a writer meets is small: folders split on the path delimiter, an
 * empty component for the default place, `~` for the home folder, and a trailing `//` for a folder
 * with all its subfolders.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** One folder of a search path. */
export interface SearchFolder {
  readonly dir: string;
  /** Written with a trailing `//`: the folder and every folder under it, shallowest first. */
  readonly subfolders: boolean;
}

/** What a path's components are read against. */
export interface SearchPathPlace {
  /** What an empty component stands for, and where a relative one starts: the root's folder, where LaTeX runs. */
  readonly defaultDir: string;
  /** The home folder a leading `~` names (kpathsea reads `$HOME`); without it, `~` is a folder's name. */
  readonly home?: string;
  /** Between components: `:`, or `;` on Windows, as kpathsea splits them. */
  readonly delimiter?: string;
}

/**
 * The folders of a kpathsea-style path list, in order and each once. An unset variable is the
 * default place alone; an empty component (leading, trailing or doubled delimiter) is the default
 * place; kpathsea's `!!` (search its ls-R database only) is read as a plain folder, since Attest has
 * no database.
 */
export function parseSearchPath(value: string | undefined, place: SearchPathPlace): SearchFolder[] {
  const components = value === undefined ? [''] : value.split(place.delimiter ?? path.delimiter);
  const folders: SearchFolder[] = [];
  for (const component of components) {
    const folder = folderOf(component.replace(/^!!/, ''), place);
    if (!folders.some((f) => f.dir === folder.dir && f.subfolders === folder.subfolders)) folders.push(folder);
  }
  return folders;
}

function folderOf(component: string, place: SearchPathPlace): SearchFolder {
  if (component === '') return { dir: place.defaultDir, subfolders: false };
  // kpathsea on Windows takes either slash; a POSIX folder whose name ends in backslashes is not one a writer meets.
  const subfolders = /[/\\]{2,}$/.test(component);
  const home = place.home !== undefined && /^~(?=$|[/\\])/.test(component) ? place.home + component.slice(1) : component;
  return { dir: path.resolve(place.defaultDir, home), subfolders };
}

/**
 * How far a `//` folder is walked: deep and wide enough for any folder of bibliographies or styles,
 * while a home folder or a whole TeX tree named by mistake stops with a note instead of a long wait.
 */
export interface SearchLimits {
  /** Levels below the `//` folder. */
  readonly depth: number;
  /** Folders of the whole path, walked ones counted together. */
  readonly folders: number;
  /** Entries read from the folders' listings, together: one folder of a million files is not walked through. */
  readonly entries: number;
}

export const SEARCH_LIMITS: SearchLimits = { depth: 16, folders: 4000, entries: 200_000 };

/** The first of a path's folders where a file was found, with what `probe` said of it. */
export interface Found<T> {
  readonly file: string;
  readonly value: T;
}

/**
 * A parsed search path that finds files in its folders. The `//` folders are walked once, on the
 * first search that needs them, breadth first (kpathsea's order: the folder, the folders directly
 * under it, then theirs) and by name within a level; names starting with `.` are skipped as kpathsea
 * skips them, and each folder is walked once by its real path, so a symbolic link to a folder above
 * ends. Nothing is written.
 */
export class SearchPath {
  private walked?: Promise<Walk>;

  constructor(
    /** The variable it was read from, for notes: `BIBINPUTS`. */
    readonly variable: string,
    readonly folders: readonly SearchFolder[],
    private readonly limits: SearchLimits = SEARCH_LIMITS,
  ) {}

  /**
   * The first folder whose `name` the probe accepts (it says undefined for a file that is not there).
   * A name that is absolute or explicitly relative (`./`, `../`) is not searched, as kpathsea does not.
   */
  async find<T>(name: string, probe: (file: string) => Promise<T | undefined>): Promise<Found<T> | undefined> {
    if (path.isAbsolute(name) || /^\.\.?[/\\]/.test(name)) return undefined;
    for (const dir of (await this.walk()).dirs) {
      const file = path.join(dir, name);
      const value = await probe(file);
      if (value !== undefined) return { file, value };
    }
    return undefined;
  }

  /**
   * Where a file not found was looked for besides where its name resolves, for a "not found" message:
   * the path's folders, and where a walk was cut short. Undefined when the path is `rootDir` alone.
   */
  async lookedIn(rootDir: string): Promise<string | undefined> {
    if (this.folders.every((f) => f.dir === rootDir && !f.subfolders)) return undefined;
    const { cutShort } = await this.walk();
    return [`then in the folders of ${this.variable}`, ...cutShort].join(', ');
  }

  private walk(): Promise<Walk> {
    this.walked ??= walkFolders(this.folders, this.limits);
    return this.walked;
  }
}

interface Walk {
  readonly dirs: readonly string[];
  /** Why a `//` folder was not walked through, one clause each. */
  readonly cutShort: readonly string[];
}

async function walkFolders(folders: readonly SearchFolder[], limits: SearchLimits): Promise<Walk> {
  const dirs: string[] = [];
  const cutShort: string[] = [];
  const seen = new Set<string>();
  let entries = 0;
  for (const folder of folders) {
    if (!folder.subfolders) {
      dirs.push(folder.dir);
      continue;
    }
    const real = await realDir(folder.dir);
    if (real === undefined || seen.has(real)) continue;
    seen.add(real);
    let why: string | undefined;
    let level = [folder.dir];
    for (let depth = 0; level.length > 0 && why === undefined; depth++) {
      const next: string[] = [];
      for (const dir of level) {
        if (dirs.length >= limits.folders) {
          why = `whose walk of ${folder.dir}// stopped after ${limits.folders} folders`;
          break;
        }
        dirs.push(dir);
        const listed = await subfolders(dir, limits.entries - entries);
        entries += listed.read;
        if (listed.cut) why ??= `whose walk of ${folder.dir}// stopped after reading ${limits.entries} names`;
        for (const name of listed.names) {
          const child = path.join(dir, name);
          const childReal = await realDir(child);
          if (childReal === undefined || seen.has(childReal)) continue;
          if (depth === limits.depth) {
            why ??= `whose walk of ${folder.dir}// went no deeper than ${limits.depth} folders`;
            break;
          }
          seen.add(childReal);
          next.push(child);
        }
      }
      level = next;
    }
    if (why !== undefined) cutShort.push(why);
  }
  return { dirs, cutShort };
}

/** The real path of a folder, or undefined when it is not one (missing, a file, unreadable). */
async function realDir(dir: string): Promise<string | undefined> {
  try {
    const real = await fs.realpath(dir);
    return (await fs.stat(real)).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The names of a folder's subfolders (symbolic links to folders among them) not starting with `.`,
 * sorted, reading at most `budget` entries; an unreadable folder has none.
 */
async function subfolders(dir: string, budget: number): Promise<{ names: string[]; read: number; cut: boolean }> {
  const names: string[] = [];
  let read = 0;
  try {
    const handle = await fs.opendir(dir);
    for await (const entry of handle) {
      if (read >= budget) return { names: names.sort(), read, cut: true };
      read++;
      if (entry.name.startsWith('.')) continue;
      if (entry.isDirectory() || entry.isSymbolicLink()) names.push(entry.name);
    }
  } catch {
    // A folder that vanished or may not be read holds nothing kpathsea could find either.
  }
  return { names: names.sort(), read, cut: false };
}

/** The variables of kpathsea's that Attest follows, from the environment the CLI or the editor was started with. */
export interface TexEnvironment {
  readonly BIBINPUTS?: string;
  readonly TEXINPUTS?: string;
  readonly HOME?: string;
  /** Windows's home folder, where `HOME` is usually unset. */
  readonly USERPROFILE?: string;
}

/** The search path a variable names for a manuscript whose root is in `rootDir`. */
export function searchPathOf(variable: 'BIBINPUTS' | 'TEXINPUTS', environment: TexEnvironment, rootDir: string): SearchPath {
  return new SearchPath(variable, parseSearchPath(environment[variable], { defaultDir: rootDir, home: environment.HOME ?? environment.USERPROFILE }));
}

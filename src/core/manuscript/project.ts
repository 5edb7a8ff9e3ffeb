import * as path from 'node:path';
import { languageOf } from './language';
import type { Citation, FileReference, ManuscriptLanguage, ParsedSource } from './types';
import { IN_THREAD, type Parsers } from '../parsing/parsers';
import { readIfText, type Workspace } from '../workspace';

/** A manuscript: its root file and every file it includes, read as one document. */
export interface Manuscript {
  readonly root: string;
  readonly language: ManuscriptLanguage;
  /** The root first, then included files in the order LaTeX reads them. */
  readonly sources: readonly ParsedSource[];
  readonly citations: readonly Citation[];
  /** Included files that do not exist or cannot be read, with the file that names them. */
  readonly missingIncludes: readonly MissingInclude[];
  readonly citesAll: boolean;
}

export interface MissingInclude {
  readonly reference: FileReference;
  /** The file whose `\input` names it. */
  readonly from: string;
  /** Why an existing file could not be read; undefined when it does not exist. */
  readonly reason?: string;
}

/** Remembers parsed files by content, so an unchanged file is not parsed again. */
export class ParseCache {
  private readonly entries = new Map<string, { text: string; rootDir: string; parsed: ParsedSource }>();

  constructor(private readonly parsers: Parsers = IN_THREAD) {}

  async parse(file: string, text: string, rootDir: string): Promise<ParsedSource> {
    const cached = this.entries.get(file);
    if (cached && cached.text === text && cached.rootDir === rootDir) return cached.parsed;
    const parsed = await this.parsers.source(file, text, rootDir);
    this.entries.set(file, { text, rootDir, parsed });
    return parsed;
  }

  forget(file: string): void {
    this.entries.delete(file);
  }
}

/** LaTeX runs can nest `\input` deeply, but a cycle or a runaway include chain must stop somewhere. */
const MAX_INCLUDE_DEPTH = 32;

/**
 * The file to check when the user works on `file`: the root named by a `% !TEX root` magic comment,
 * or the file itself.
 */
export async function manuscriptRootOf(file: string, workspace: Workspace, cache: ParseCache): Promise<string> {
  if (languageOf(file) !== 'latex') return file;
  const text = await workspace.readText(file);
  if (text === undefined) return file;
  const parsed = await cache.parse(file, text, path.dirname(file));
  return parsed.texRoot ?? file;
}

/** Reads the root file and, for LaTeX, follows `\input`, `\include` and `\subfile` from it. */
export async function loadManuscript(root: string, workspace: Workspace, cache: ParseCache): Promise<Manuscript | undefined> {
  const language = languageOf(root) ?? 'latex';
  const rootText = await workspace.readText(root);
  if (rootText === undefined) return undefined;
  const rootDir = path.dirname(root);
  const sources: ParsedSource[] = [];
  const missingIncludes: MissingInclude[] = [];
  const visited = new Set<string>([root]);

  const visit = async (source: ParsedSource, depth: number): Promise<void> => {
    sources.push(source);
    if (depth >= MAX_INCLUDE_DEPTH) return;
    for (const reference of source.includes) {
      if (visited.has(reference.path)) continue;
      visited.add(reference.path);
      const read = await readIfText(workspace, reference.path);
      if (read.text === undefined) {
        missingIncludes.push({ reference, from: source.file, reason: read.error });
        continue;
      }
      await visit(await cache.parse(reference.path, read.text, rootDir), depth + 1);
    }
  };
  await visit(await cache.parse(root, rootText, rootDir), 0);

  return {
    root,
    language,
    sources,
    citations: sources.flatMap((s) => s.citations),
    missingIncludes,
    citesAll: sources.some((s) => s.citesAll),
  };
}

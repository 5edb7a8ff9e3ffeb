import * as path from 'node:path';
import { languageOf } from './language';
import type { Citation, FileReference, ManuscriptLanguage, ParsedSource } from './types';
import { ParsedFiles } from '../parsing/parsedFiles';
import { IN_THREAD, type Parsers } from '../parsing/parsers';
import type { Range } from '../text/positions';
import { LineIndex } from '../text/positions';
import { readIfText, type Workspace } from '../workspace';
import type { Found, SearchPath } from '../texSearchPath';
import { RealPaths } from './realPaths';

/** A manuscript: its root file and every file it includes, read as one document. */
export interface Manuscript {
  readonly root: string;
  readonly language: ManuscriptLanguage;
  /** The root first, then included files in the order LaTeX reads them. */
  readonly sources: readonly ParsedSource[];
  readonly citations: readonly Citation[];
  /** Included files that do not exist or cannot be read, with the file that names them. */
  readonly missingIncludes: readonly MissingInclude[];
  /** What the manuscript names but Attest did not read, each said where it is named. */
  readonly notices: readonly ManuscriptNotice[];
  readonly citesAll: boolean;
}

export interface ManuscriptNotice {
  readonly code: 'include-not-followed' | 'tex-root-missing';
  readonly message: string;
  readonly file: string;
  readonly range: Range;
}

export interface MissingInclude {
  readonly reference: FileReference;
  /** The file whose `\input` names it. */
  readonly from: string;
  /** Why an existing file could not be read; undefined when it does not exist. */
  readonly reason?: string;
  /** Where else it was looked for (`TEXINPUTS`'s folders), and where that search was cut short. */
  readonly lookedIn?: string;
}

/**
 * Remembers parsed files by content, so an unchanged file is not parsed again: each file as read alone,
 * and as read with the macros other files of its manuscript define. A parse does not depend on the
 * manuscript that reads the file (`resolvedIn` places its names afterwards), so a chapter parsed while
 * its root is looked for serves the manuscript too.
 */
export class ParseCache {
  private readonly alone = new ParsedFiles<ParsedSource>();
  private readonly withMacros = new ParsedFiles<ParsedSource>();

  constructor(private readonly parsers: Parsers = IN_THREAD) {}

  parse(file: string, text: string, macros: ReadonlyMap<string, string> = new Map()): Promise<ParsedSource> {
    if (macros.size === 0) return this.alone.get(file, text, '', () => this.parsers.source(file, text));
    return this.withMacros.get(file, text, JSON.stringify([...macros]), () => this.parsers.source(file, text, macros));
  }

  forget(file: string): void {
    this.alone.forget(file);
    this.withMacros.forget(file);
  }
}

/**
 * The file as a manuscript rooted in `rootDir` reads it: the names LaTeX resolves where it runs
 * (`FileReference.fromRoot`) resolved in the root's folder rather than the file's own.
 */
function resolvedIn(rootDir: string, source: ParsedSource): ParsedSource {
  if (path.dirname(source.file) === rootDir) return source;
  const resolve = (references: readonly FileReference[]): readonly FileReference[] =>
    references.map((r) => (r.fromRoot === undefined ? r : { ...r, path: path.resolve(rootDir, r.fromRoot) }));
  return { ...source, includes: resolve(source.includes), bibliographies: resolve(source.bibliographies) };
}

/** LaTeX runs can nest `\input` deeply, but a cycle or a runaway include chain must stop somewhere. */
export const MAX_INCLUDE_DEPTH = 32;

/** Far more files than a thesis has; a generated or hostile tree of includes must stop somewhere. */
export const MAX_INCLUDED_FILES = 5000;

/**
 * The file to check when the user works on `file`: the root named by a `% !TEX root` magic comment;
 * else, for a file without `\documentclass`, the file among the candidates (the workspace's .tex
 * files, looked for only then) that `\input`s, `\include`s or `\subfile`s it, followed up to a file nothing includes, as
 * LaTeX Workshop finds it; else the file itself.
 */
export async function manuscriptRootOf(file: string, workspace: Workspace, cache: ParseCache, findCandidates: () => Promise<readonly string[]> = async () => []): Promise<string> {
  if (languageOf(file) !== 'latex') return file;
  const text = await workspace.readText(file);
  if (text === undefined) return file;
  const parsed = await cache.parse(file, text);
  if (parsed.texRoot !== undefined && !(isDocument(text) && (await missingTexRoot(file, workspace, cache)))) return parsed.texRoot;
  if (isDocument(text)) return file;
  const inclusions = await inclusionsIn(
    (await findCandidates()).filter((c) => c !== file && languageOf(c) === 'latex'),
    workspace,
    cache,
  );
  let root = file;
  const seen = new Set([file]);
  for (let parent = includerOf(root, inclusions); parent !== undefined && !seen.has(parent); parent = includerOf(root, inclusions)) {
    seen.add(parent);
    root = parent;
  }
  return root;
}

function isDocument(text: string): boolean {
  return /\\documentclass\b/.test(text);
}

/** First in the line, as TeXShop and LaTeX Workshop read it; the parser takes the first such comment. */
const MAGIC_ROOT = /%\s*!\s*T[eE]X\s+root\s*=[^\n]*/;

/**
 * The `% !TEX root` comment of `file` when the root it names does not exist: said where the comment
 * is, since the root may be a file renamed or deleted long after the comment was written.
 */
export async function missingTexRoot(file: string, workspace: Workspace, cache: ParseCache): Promise<ManuscriptNotice | undefined> {
  const read = await readIfText(workspace, file);
  if (read.text === undefined) return undefined;
  const { texRoot } = await cache.parse(file, read.text);
  if (texRoot === undefined) return undefined;
  const target = await readIfText(workspace, texRoot);
  if (target.text !== undefined || target.error !== undefined) return undefined;
  const comment = MAGIC_ROOT.exec(read.text);
  const start = comment?.index ?? 0;
  const range = new LineIndex(read.text).rangeOf(start, start + (comment?.[0].trimEnd().length ?? 0));
  return {
    code: 'tex-root-missing',
    message: `The '% !TEX root' comment on line ${range.start.line + 1} names ${texRoot}, which does not exist.`,
    file,
    range,
  };
}

interface Inclusion {
  readonly includer: string;
  readonly reference: FileReference;
}

/** Every `\input`, `\include` and `\subfile` of the candidates, each read as if it were the root. */
async function inclusionsIn(candidates: readonly string[], workspace: Workspace, cache: ParseCache): Promise<Inclusion[]> {
  const inclusions: Inclusion[] = [];
  for (const candidate of candidates) {
    const read = await readIfText(workspace, candidate);
    if (read.text === undefined) continue;
    for (const reference of (await cache.parse(candidate, read.text)).includes) inclusions.push({ includer: candidate, reference });
  }
  return inclusions;
}

/**
 * The candidate that includes `file`: by the path its name resolves to, else by the name as a tail of
 * the path, since a file included from a subfolder names its own includes relative to the root's folder.
 */
function includerOf(file: string, inclusions: readonly Inclusion[]): string | undefined {
  const exact = inclusions.find((i) => i.reference.path === file);
  if (exact) return exact.includer;
  const tail = (name: string): string => path.sep + path.normalize(path.extname(name) === '' ? `${name}.tex` : name);
  return inclusions.find((i) => i.includer !== file && file.endsWith(tail(i.reference.name)))?.includer;
}

/**
 * Reads the root file and, for LaTeX, follows `\input`, `\include` and `\subfile` from it; a file
 * missing where its name resolves is looked for in `texInputs`, as TeX does. Each file is read once by
 * its real path, so symbolic links (a folder linked to itself, a file's alias) neither read a file
 * twice nor multiply the names one file is reached by.
 */
export async function loadManuscript(root: string, workspace: Workspace, cache: ParseCache, texInputs?: SearchPath): Promise<Manuscript | undefined> {
  const language = languageOf(root) ?? 'latex';
  const rootText = await workspace.readText(root);
  if (rootText === undefined) return undefined;
  const rootDir = path.dirname(root);
  const sources: ParsedSource[] = [];
  const texts = new Map<string, string>([[root, rootText]]);
  const missingIncludes: MissingInclude[] = [];
  const notices: ManuscriptNotice[] = [];
  const realPaths = new RealPaths();
  const visited = new Set<string>([await realPaths.of(root)]);
  const parse = async (file: string, text: string, macros?: ReadonlyMap<string, string>): Promise<ParsedSource> => resolvedIn(rootDir, await cache.parse(file, text, macros));
  const notFollowed = (reference: FileReference, from: string, why: string): void => {
    notices.push({ code: 'include-not-followed', message: `'${reference.name}' is not read: ${why}. Its citations are not checked.`, file: from, range: reference.range });
  };

  let tooMany = false;
  const visit = async (source: ParsedSource, depth: number): Promise<void> => {
    sources.push(source);
    for (const reference of source.includes) {
      const real = await realPaths.of(reference.path);
      if (visited.has(real)) continue;
      if (depth >= MAX_INCLUDE_DEPTH) {
        notFollowed(reference, source.file, `it is nested more than ${MAX_INCLUDE_DEPTH} includes deep`);
        return;
      }
      if (visited.size >= MAX_INCLUDED_FILES) {
        if (!tooMany)
          notFollowed(reference, source.file, `the manuscript includes more than ${MAX_INCLUDED_FILES} files, and the files after the first ${MAX_INCLUDED_FILES} are not read`);
        tooMany = true;
        return;
      }
      visited.add(real);
      let file = reference.path;
      let read = await readIfText(workspace, file);
      if (read.text === undefined && read.error === undefined && texInputs) {
        const found = await onSearchPath(reference, source.file, texInputs, workspace);
        if (found) {
          const foundReal = await realPaths.of(found.file);
          if (visited.has(foundReal)) continue;
          visited.add(foundReal);
          [file, read] = [found.file, found.value];
        }
      }
      if (read.text === undefined) {
        missingIncludes.push({
          reference,
          from: source.file,
          reason: read.error,
          lookedIn: read.error === undefined ? await texInputs?.lookedIn(path.resolve(rootDir)) : undefined,
        });
        continue;
      }
      texts.set(file, read.text);
      await visit(await parse(file, read.text), depth + 1);
    }
  };
  const parsedRoot = await parse(root, rootText);
  if (parsedRoot.texRoot !== undefined && parsedRoot.texRoot !== root) {
    const stale = await missingTexRoot(root, workspace, cache);
    if (stale) notices.push({ ...stale, message: `${stale.message} This file is checked as its own root.` });
  }
  await visit(parsedRoot, 0);
  const expanded = await withManuscriptMacros(sources, texts, parse);

  return {
    root,
    language,
    sources: expanded,
    citations: expanded.flatMap((s) => s.citations),
    missingIncludes,
    notices,
    citesAll: sources.some((s) => s.citesAll),
  };
}

/**
 * An included file the name's own folder lacks, found as TeX finds it: its name as resolved where it
 * is read from (the root's folder, or for `\subfile` the including file's) looked for in each folder of
 * the search path. A file that is there but cannot be read is found, with the reason.
 */
function onSearchPath(reference: FileReference, from: string, texInputs: SearchPath, workspace: Workspace): Promise<Found<{ text?: string; error?: string }> | undefined> {
  const name = reference.fromRoot ?? path.relative(path.dirname(from), reference.path);
  return texInputs.find(name, async (file) => {
    const read = await readIfText(workspace, file);
    return read.text === undefined && read.error === undefined ? undefined : read;
  });
}

/**
 * The files of a manuscript read again where they use argument-free macros that another of its files
 * defines (a preamble's `\input{macros}`), so those print in their claims as they do in LaTeX. Where two
 * files define one name, the first read wins. Files that use none are not read again.
 */
async function withManuscriptMacros(
  sources: readonly ParsedSource[],
  texts: ReadonlyMap<string, string>,
  parse: (file: string, text: string, macros: ReadonlyMap<string, string>) => Promise<ParsedSource>,
): Promise<readonly ParsedSource[]> {
  const defined = new Map<string, string>();
  for (const source of sources) for (const [name, expansion] of source.macros) if (!defined.has(name)) defined.set(name, expansion);
  if (defined.size === 0) return sources;
  return Promise.all(
    sources.map((source) => {
      const used = new Map<string, string>();
      for (const name of source.undefinedCommands) {
        const expansion = defined.get(name);
        if (expansion !== undefined) used.set(name, expansion);
      }
      const text = texts.get(source.file);
      return used.size === 0 || text === undefined ? source : parse(source.file, text, used);
    }),
  );
}

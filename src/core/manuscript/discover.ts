/**
 * The manuscripts under a folder, as a paper repository holds them: each LaTeX document once, by the
 * file LaTeX is run on, and each Markdown paper that names its bibliography.
 */
import type { Dirent } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from '../workspace';
import { languageOf } from './language';
import { loadManuscript, type ParseCache } from './project';
import { RealPaths } from './realPaths';

/** Folders no manuscript lives in: tools' and version control's. */
const SKIPPED_FOLDERS = new Set(['node_modules']);

/** Outside a comment; `%` preceded by a backslash is a percent sign, not a comment. */
const DOCUMENT_CLASS = /^(?:[^%\\\n]|\\.)*\\documentclass\b/m;

/**
 * The root manuscripts under `dir`, sorted: LaTeX files with `\documentclass` that no other such file
 * includes (a `subfiles` chapter has its own), and Markdown files whose front matter names a
 * bibliography (elsewhere `@name` is a mention, not a citation). Hidden folders and node_modules are
 * skipped; symbolic links are not followed, so a link cycle cannot trap the walk.
 */
export async function findRootManuscripts(dir: string, workspace: Workspace, cache: ParseCache): Promise<string[]> {
  const candidates: string[] = [];
  for (const file of await filesUnder(dir)) {
    const language = languageOf(file);
    if (language === undefined) continue;
    const text = await workspace.readText(file);
    if (text === undefined) continue;
    if (language === 'latex' ? DOCUMENT_CLASS.test(text) : await namesBibliography(file, workspace, cache)) candidates.push(file);
  }
  // By real path: a chapter may be included through a linked folder under a name the walk never lists.
  const realPaths = new RealPaths();
  const included = new Set<string>();
  for (const root of candidates) {
    const manuscript = await loadManuscript(root, workspace, cache);
    for (const source of manuscript?.sources.slice(1) ?? []) included.add(await realPaths.of(source.file));
  }
  const roots: string[] = [];
  for (const file of candidates) if (!included.has(await realPaths.of(file))) roots.push(file);
  return roots.sort();
}

async function namesBibliography(file: string, workspace: Workspace, cache: ParseCache): Promise<boolean> {
  const manuscript = await loadManuscript(file, workspace, cache);
  return (manuscript?.sources[0]?.bibliographies.length ?? 0) > 0;
}

async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  const pending = [dir];
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) pending.push(full);
      else if (entry.isFile()) files.push(full);
    }
  }
  return files;
}

/**
 * The manuscripts under a folder, as a paper repository holds them: each LaTeX document once, by the
 * file LaTeX is run on, and each Markdown paper that names its bibliography.
 */
import type { Dirent } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { mayNotBeUtf8, namesNotUtf8 } from '../text/fileNames';
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
 * skipped; symbolic links are not followed, so a link cycle cannot trap the walk. A manuscript or
 * folder whose name is not UTF-8 cannot be opened by its name, and is told through `warn`.
 */
export async function findRootManuscripts(dir: string, workspace: Workspace, cache: ParseCache, warn: (message: string) => void = () => undefined): Promise<string[]> {
  const candidates: string[] = [];
  for (const file of await filesUnder(dir, warn)) {
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

async function filesUnder(dir: string, warn: (message: string) => void): Promise<string[]> {
  const files: string[] = [];
  const pending = [dir];
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    const notUtf8 = entries.some((entry) => mayNotBeUtf8(entry.name)) ? await namesNotUtf8(folder).catch(() => []) : [];
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(folder, entry.name);
      const lost = notUtf8.find((name) => name.decoded === entry.name);
      if (lost) {
        const what = entry.isDirectory() ? 'the folder' : languageOf(entry.name) ? 'the manuscript' : undefined;
        if (what) warn(`${what} ${path.join(folder, lost.shown)} was skipped: its name is not UTF-8, and Attest opens files by UTF-8 names only; rename it to check it.`);
        continue;
      }
      if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) pending.push(full);
      else if (entry.isFile()) files.push(full);
    }
  }
  return files;
}

/**
 * The reference lists a manuscript carries besides the .bib files it names, as LaTeX and pandoc
 * would find them: the `thebibliography` lists of its LaTeX files, the .bbl beside its root (what
 * LaTeX reads when the .bib is absent, as in many arXiv sources), and a Markdown document's own
 * "References" list when it names no bibliography file.
 */
import * as path from 'node:path';
import type { Manuscript } from '../manuscript/project';
import type { Workspace } from '../workspace';
import type { Bibliography } from './types';

export type ParseBibliography = (file: string, text: string) => Promise<Bibliography>;

/** Each LaTeX file's `thebibliography` entries, or the Markdown root's reference list when `namesNone`. */
export async function listsInManuscript(manuscript: Manuscript, namesNone: boolean, workspace: Workspace, parse: ParseBibliography): Promise<Bibliography[]> {
  const lists: Bibliography[] = [];
  for (const source of manuscript.sources) {
    const wanted = source.language === 'latex' ? source.bibitems.length > 0 : namesNone && source.file === manuscript.root;
    if (!wanted) continue;
    const text = await workspace.readText(source.file);
    if (text === undefined) continue;
    const list = await parse(source.file, text);
    if (list.entries.length > 0) lists.push(list);
  }
  return lists;
}

/** The .bbl LaTeX would read for a LaTeX root: its name with `.bbl`, beside it. */
export function bblOf(manuscript: Manuscript): string | undefined {
  if (manuscript.language !== 'latex') return undefined;
  const { dir, name } = path.parse(manuscript.root);
  return path.join(dir, `${name}.bbl`);
}

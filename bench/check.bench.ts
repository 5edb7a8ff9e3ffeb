import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkManuscript, CheckSession } from '../src/core/check';
import { FsWorkspace } from '../src/core/fsWorkspace';
import { manuscriptRootOf } from '../src/core/manuscript/project';
import { IN_THREAD, type Parsers } from '../src/core/parsing/parsers';
import { IgnoreList } from '../src/core/verify/ignore';
import type { Workspace } from '../src/core/workspace';
import { median, ms, PeakMemory, time } from './stats';

/** The manuscript is a test fixture, so this benchmark runs in any clone. */
const MANUSCRIPTS = path.resolve(__dirname, '../../test/fixtures/manuscripts');
const RUNS = 15;

/** A workspace that reads the disk once, so timings measure Attest, not the file system. */
class PreloadedWorkspace implements Workspace {
  readonly overrides = new Map<string, string>();
  private readonly disk = new FsWorkspace();
  private readonly loaded = new Map<string, string | undefined>();

  async readText(file: string): Promise<string | undefined> {
    if (this.overrides.has(file)) return this.overrides.get(file);
    if (!this.loaded.has(file)) this.loaded.set(file, await this.disk.readText(file));
    return this.loaded.get(file);
  }
}

/** Full check of astro_celerite (parse + key checks): cold, warm, and after a one-sentence edit. */
export async function benchCheck(): Promise<void> {
  const root = path.join(MANUSCRIPTS, 'astro_celerite/paper/ms.tex');
  const workspace = new PreloadedWorkspace();
  const memory = new PeakMemory();
  await workspace.readText(root);
  await workspace.readText(path.join(path.dirname(root), 'celerite.bib'));

  const cold = await time(() => checkManuscript(root, workspace, new CheckSession()));
  const warm: number[] = [];
  for (let i = 0; i < RUNS; i++) warm.push((await time(() => checkManuscript(root, workspace, new CheckSession()))).ms);

  // One session, as the editor keeps it: only the edited file is parsed again.
  const session = new CheckSession();
  await checkManuscript(root, workspace, session);
  const text = (await workspace.readText(root)) ?? '';
  const sentence = 'In the astrophysical literature, Gaussian Processes';
  const edits: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    workspace.overrides.set(root, text.replace(sentence, `${sentence} (edit ${i})`));
    edits.push((await time(() => checkManuscript(root, workspace, session))).ms);
  }
  const unchanged = await time(() => checkManuscript(root, workspace, session));

  const result = cold.value;
  console.log(`check: astro_celerite (${result?.citations.length} citations, ${result?.bibliographies[0]?.entries.length} entries)`);
  console.log(`  cold full check                 ${ms(cold.ms)}`);
  console.log(`  warm full check (median of ${RUNS})  ${ms(median(warm))}   target < 100 ms`);
  console.log(`  re-check after one-sentence edit ${ms(median(edits))}   target < 50 ms`);
  console.log(`  re-check, nothing changed        ${ms(unchanged.ms)}`);
  console.log(`  peak memory (RSS)               ${memory.stop()}`);
  await benchOpeningChapter(text, (await workspace.readText(path.join(path.dirname(root), 'celerite.bib'))) ?? '');
  await benchLinkedIncludes();
}

/**
 * Includes read from the disk, each by its real path: 2000 chapters named through folders linked to
 * themselves (`l -> .`, `m -> .`), every chapter naming the first twice again, which without real paths
 * gives an exponential number of names.
 */
async function benchLinkedIncludes(): Promise<void> {
  const files = 2000;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-bench-links-'));
  try {
    await fs.symlink('.', path.join(dir, 'l'));
    await fs.symlink('.', path.join(dir, 'm'));
    const chapters = Array.from({ length: files }, (_, i) => `\\subfile{l/c${i}}\\subfile{m/c${i}}`);
    await fs.writeFile(path.join(dir, 'a.tex'), `\\documentclass{article}\n${chapters.join('\n')}\n`);
    for (let i = 0; i < files; i++) await fs.writeFile(path.join(dir, `c${i}.tex`), `Chapter ${i} \\cite{k${i}}.\n\\subfile{l/c0}\\subfile{m/c0}\n`);
    const checked = await time(() => checkManuscript(path.join(dir, 'a.tex'), new FsWorkspace(), new CheckSession()));
    console.log(`  ${checked.value?.manuscript.sources.length} files named through linked folders, read once each  ${ms(checked.ms)}`);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Parses as the CLI does, counting the files it is asked to parse. */
class CountingParsers implements Parsers {
  count = 0;

  source(...args: Parameters<Parsers['source']>): ReturnType<Parsers['source']> {
    this.count++;
    return IN_THREAD.source(...args);
  }

  bibliography(...args: Parameters<Parsers['bibliography']>): ReturnType<Parsers['bibliography']> {
    this.count++;
    return IN_THREAD.bibliography(...args);
  }
}

/**
 * What opening a chapter costs the editor in a new session: its root found among the workspace's .tex
 * files, then the root checked. The chapter is astro_celerite's document body, `\include`d from a
 * folder of its own.
 */
async function benchOpeningChapter(manuscript: string, bibliography: string): Promise<void> {
  const begin = '\\begin{document}';
  const body = manuscript.slice(manuscript.indexOf(begin) + begin.length, manuscript.lastIndexOf('\\end{document}'));
  const workspace = new PreloadedWorkspace();
  const root = '/p/main.tex';
  const chapter = '/p/chapters/body.tex';
  workspace.overrides.set(root, '\\documentclass{article}\n\\begin{document}\n\\include{chapters/body}\n\\end{document}\n');
  workspace.overrides.set(chapter, body);
  workspace.overrides.set('/p/celerite.bib', bibliography);
  const candidates = async (): Promise<string[]> => [root, chapter];
  const runs: number[] = [];
  let parses = 0;
  for (let i = 0; i < RUNS; i++) {
    const parsers = new CountingParsers();
    const session = new CheckSession(parsers);
    runs.push((await time(async () => checkManuscript(await manuscriptRootOf(chapter, workspace, session.manuscripts, candidates), workspace, session))).ms);
    parses = parsers.count;
  }
  console.log(`  opening a chapter (root found, then checked; median of ${RUNS})  ${ms(median(runs))}, ${parses} parses of 3 files`);
}

/** The ignore list at the size its reader allows (16 MB, 70,000 verdicts): reading it, then one lookup per citation. */
export async function benchIgnoreList(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-bench-ignore-'));
  try {
    const file = path.join(dir, 'ignore.json');
    const sentence = (i: number): string => `Sentence ${i} of a manuscript whose verdicts were ignored one by one, ${'words '.repeat(5)}.`;
    // Written at once, as IgnoreList.add would over 70,000 ignores, which would take the bench hours.
    const ignored = Array.from({ length: 70_000 }, (_, i) => ({ key: `k${i}`, claim: createHash('sha256').update(sentence(i)).digest('hex'), text: sentence(i) }));
    await fs.writeFile(file, JSON.stringify({ version: 1, ignored }, null, 2));
    const loaded = await time(() => IgnoreList.load(file));
    const citations = Array.from({ length: 3000 }, (_, i) => ({ key: `k${i * 20}`, claim: { text: sentence(i * 20 + (i % 2)) } }));
    const looked = await time(async () => citations.filter((c) => loaded.value.has(c)).length);
    console.log(`ignore list: ${ignored.length} verdicts, ${((await fs.stat(file)).size / 2 ** 20).toFixed(1)} MB`);
    console.log(`  read                            ${ms(loaded.ms)}`);
    console.log(`  3,000 citations looked up        ${ms(looked.ms)} (${looked.value} ignored)`);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

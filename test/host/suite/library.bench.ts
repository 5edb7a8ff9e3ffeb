import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { CLAIM, syntheticPaper } from '../../../bench/syntheticPapers';
import type { ResultsMessage } from '../../../src/webview/protocol/evidence';
import { recordFigure } from './figures';
import { fixtureUri, sleep, uniqueRange, waitFor } from './harness';

/**
 * The host bench (run.js --bench, started by bench/host.bench.ts): what a writer feels in the real
 * extension host while the paper library imports, loads and searches 100,000 papers. Figures only,
 * handed to the bench through recordFigure; nothing here asserts a time.
 */

const PAPERS = 100_000;
const IDLE_SAMPLES = 7;
/** Typed at the end of the manuscript's first citing line: words of the generated papers' titles. */
const TYPED = ' \\citep{gaussian proc';
const HOVERED = '{hochreiter1997long}';

/** The longest time this thread (the extension host's) went without running a 1 ms timer, when it ended, and how often a gap exceeded 50 ms. */
class StallMonitor {
  private last = performance.now();
  private readonly start = performance.now();
  private longest = 0;
  private longestEndedAt = 0;
  private over50 = 0;
  private readonly timer = setInterval(() => this.tick(), 1);

  private tick(): void {
    const now = performance.now();
    const gap = now - this.last;
    if (gap > this.longest) [this.longest, this.longestEndedAt] = [gap, now - this.start];
    if (gap > 50) this.over50++;
    this.last = now;
  }

  stop(): { longestStallMs: number; longestStallEndedAtMs: number; stallsOver50Ms: number } {
    this.tick();
    clearInterval(this.timer);
    return { longestStallMs: this.longest, longestStallEndedAtMs: this.longestEndedAt, stallsOver50Ms: this.over50 };
  }
}

interface Latencies {
  completionMs: number[];
  hoverMs: number[];
}

/** The manuscript, with the citation being typed, and where completion and hover are asked. */
interface Manuscript {
  readonly uri: vscode.Uri;
  readonly completeAt: vscode.Position;
  readonly hoverAt: vscode.Position;
}

function isLibraryItem(item: vscode.CompletionItem): boolean {
  return typeof item.label !== 'string' && (item.label.detail ?? '').includes('library');
}

async function complete(m: Manuscript): Promise<{ ms: number; library: boolean }> {
  const start = performance.now();
  const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', m.uri, m.completeAt, undefined, 20);
  return { ms: performance.now() - start, library: list.items.some(isLibraryItem) };
}

async function hover(m: Manuscript): Promise<number> {
  const start = performance.now();
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', m.uri, m.hoverAt);
  assert.ok(hovers.length > 0, 'the citation has a hover');
  return performance.now() - start;
}

async function idle(m: Manuscript): Promise<Latencies> {
  const latencies: Latencies = { completionMs: [], hoverMs: [] };
  for (let i = 0; i < IDLE_SAMPLES; i++) {
    latencies.completionMs.push((await complete(m)).ms);
    latencies.hoverMs.push(await hover(m));
    await sleep(100);
  }
  return latencies;
}

/**
 * Runs `work` while the extension host's stalls are watched and, every 100 ms, a completion and a hover
 * are asked as a writer would; carries on after `work` until completion offers the library's papers:
 * the library's thread answers from those it has indexed so far.
 */
async function whileWorking(m: Manuscript, work: () => Thenable<unknown>): Promise<Record<string, unknown>> {
  const latencies: Latencies = { completionMs: [], hoverMs: [] };
  const monitor = new StallMonitor();
  const start = performance.now();
  let done = false;
  const working = Promise.resolve(work()).finally(() => (done = true));
  let offered = false;
  let workMs = 0;
  while (!done || !offered) {
    const completion = await complete(m);
    latencies.completionMs.push(completion.ms);
    latencies.hoverMs.push(await hover(m));
    if (done && workMs === 0) workMs = performance.now() - start;
    offered = completion.library;
    await sleep(100);
    if (performance.now() - start > 600_000) throw new Error('the library papers never reached completion');
  }
  await working;
  return { workMs, untilOfferedMs: performance.now() - start, ...monitor.stop(), ...latencies };
}

async function openManuscript(): Promise<Manuscript> {
  const uri = fixtureUri('paper.tex');
  const doc = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(doc);
  const line = uniqueRange(doc, 'perception benchmarks').start.line;
  await editor.edit((e) => e.insert(doc.lineAt(line).range.end, `\n${CLAIM}.\n${TYPED}`));
  return { uri, completeAt: doc.lineAt(line + 2).range.end, hoverAt: uniqueRange(doc, HOVERED).start.translate(0, 3) };
}

async function findEvidence(m: Manuscript): Promise<Record<string, unknown>> {
  const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(m.uri));
  const claim = uniqueRange(editor.document, CLAIM);
  editor.selection = new vscode.Selection(claim.start, claim.end);
  const monitor = new StallMonitor();
  const start = performance.now();
  const view = await vscode.commands.executeCommand<ResultsMessage | undefined>('attest.findEvidence');
  const searchMs = performance.now() - start;
  assert.ok(view && view.items.length > 0, 'the search found papers');
  return { searchMs, results: view.items.length, ...monitor.stop() };
}

suite('host bench', function () {
  this.timeout(900_000);
  let manuscript: Manuscript;

  suiteSetup(async () => {
    const attest = vscode.workspace.getConfiguration('attest');
    await attest.update('retrieval.liveSearch', false, vscode.ConfigurationTarget.Workspace);
    manuscript = await openManuscript();
    // The manuscript checked and its bibliography read: the hover answers from it.
    await waitFor(
      'a hover on the citation',
      async () => await hover(manuscript).catch(() => undefined),
      () => 'no hover yet',
      60_000,
    );
  });

  suiteTeardown(async () => {
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(manuscript.uri));
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  test('import: 100,000 papers imported through Import Papers, then searched', async () => {
    const idleBefore = await idle(manuscript);
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'attest-host-bench-'));
    try {
      const file = path.join(dir, 'papers.jsonl');
      await fs.promises.writeFile(file, Array.from({ length: PAPERS }, (_, i) => JSON.stringify(syntheticPaper(i))).join('\n'));
      const importing = await whileWorking(manuscript, () => vscode.commands.executeCommand('attest.importPapers', [vscode.Uri.file(file)]));
      recordFigure({ phase: 'import', idle: idleBefore, during: importing, idleAfter: await idle(manuscript), search: await findEvidence(manuscript) });
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  });

  test('load: a fresh host loads the 100,000 papers an earlier one stored, at the first completion', async () => {
    const hoverIdle: number[] = [];
    for (let i = 0; i < IDLE_SAMPLES; i++) hoverIdle.push(await hover(manuscript));
    // The first completion opens the library: the store is read in its thread, and its papers indexed there for completion.
    const loading = await whileWorking(manuscript, async () => undefined);
    recordFigure({ phase: 'load', idle: { completionMs: [], hoverMs: hoverIdle }, during: loading, idleAfter: await idle(manuscript), search: await findEvidence(manuscript) });
  });
});

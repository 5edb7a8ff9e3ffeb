import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { BibliographicServer } from '../../../bench/support/bibliographicServer';
import type { SourceRecord } from '../../../src/core/sources/types';
import { nliConfig, writeModelFolder } from '../../unit/support/onnx/folders';
import { nliGraph } from '../../unit/support/onnx/graphs';

/** Root of the temporary copy of test/host/fixtures/workspace that run.js opened. */
export function workspaceRoot(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the host tests need the fixture workspace open');
  return folder.uri;
}

export function fixtureUri(...segments: string[]): vscode.Uri {
  return vscode.Uri.joinPath(workspaceRoot(), ...segments);
}

export function fixturePath(...segments: string[]): string {
  return path.join(workspaceRoot().fsPath, ...segments);
}

/**
 * Polls `probe` until it returns something other than undefined. The extension
 * works asynchronously (debounced checks, file watchers), so every assertion on its
 * output waits; `describe` says what was seen last when the wait gives up.
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, describe: () => string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}; last seen: ${describe()}`);
    }
    await sleep(100);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The contract allows both forms VS Code has for a diagnostic's code. */
export function codeOf(d: vscode.Diagnostic): string | number | undefined {
  return typeof d.code === 'object' ? d.code.value : d.code;
}

export function attestDiagnostics(uri: vscode.Uri, code?: string): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'attest' && (code === undefined || codeOf(d) === code));
}

export function describeDiagnostics(uri: vscode.Uri): string {
  const all = vscode.languages.getDiagnostics(uri);
  if (all.length === 0) return `no diagnostics on ${path.basename(uri.fsPath)}`;
  return all
    .map((d) => {
      const r = d.range;
      return `[${d.source ?? '-'}/${String(codeOf(d))} sev=${d.severity} ${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}] ${d.message}`;
    })
    .join('; ');
}

/** The items, or undefined when there are none: a `waitFor` probe for "at least one". */
export function nonEmpty<T>(items: T[]): T[] | undefined {
  return items.length > 0 ? items : undefined;
}

/**
 * For the suite it is called in: `records` served as Crossref and OpenAlex by a local server, the
 * checks let ask them, and `open` shown; after the suite, the settings as the fixture has them.
 */
export function serveSources(records: readonly SourceRecord[], open: () => vscode.Uri): void {
  const server = new BibliographicServer(records);
  const attest = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('attest');
  suiteSetup(async () => {
    const base = await server.start();
    await attest().update('sources.enabled', ['crossref', 'openalex'], vscode.ConfigurationTarget.Workspace);
    // Base URLs are machine-scoped: a workspace cannot send requests (and keys) elsewhere.
    await attest().update('sources.crossref.baseUrl', `${base}/crossref`, vscode.ConfigurationTarget.Global);
    await attest().update('sources.openalex.baseUrl', `${base}/openalex`, vscode.ConfigurationTarget.Global);
    await attest().update('sources.offline', false, vscode.ConfigurationTarget.Workspace);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(open()));
  });
  suiteTeardown(async () => {
    await attest().update('sources.enabled', undefined, vscode.ConfigurationTarget.Workspace);
    for (const key of ['sources.crossref.baseUrl', 'sources.openalex.baseUrl']) {
      await attest().update(key, undefined, vscode.ConfigurationTarget.Global);
    }
    await attest().update('sources.offline', true, vscode.ConfigurationTarget.Workspace);
    await server.stop();
  });
}

/** Range of the only occurrence of `needle` in `doc` (the fixtures are written so it is unique). */
export function uniqueRange(doc: vscode.TextDocument, needle: string): vscode.Range {
  const text = doc.getText();
  const at = text.indexOf(needle);
  assert.ok(at >= 0, `${needle} not in ${path.basename(doc.uri.fsPath)}`);
  assert.strictEqual(text.indexOf(needle, at + 1), -1, `${needle} occurs more than once in ${path.basename(doc.uri.fsPath)}`);
  return new vscode.Range(doc.positionAt(at), doc.positionAt(at + needle.length));
}

export function formatRange(r: vscode.Range): string {
  return `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;
}

/**
 * Hover text as plain-ish text: MarkdownString.appendText escapes punctuation
 * (`Short\-Term`), which is an implementation detail the tests should not depend on.
 */
export function hoverText(hovers: readonly vscode.Hover[]): string {
  const parts: string[] = [];
  for (const h of hovers) {
    for (const c of h.contents) {
      parts.push(typeof c === 'string' ? c : c.value);
    }
  }
  // Any ASCII punctuation may be escaped: outside text is, so that none of it is read as Markdown.
  return parts.join('\n').replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

/**
 * Opens the Problems panel whatever its state: `workbench.actions.view.problems`
 * toggles it, so a second call would close it before the screenshot.
 */
export async function showProblems(): Promise<void> {
  await vscode.commands.executeCommand('workbench.panel.markers.view.focus');
}

/**
 * Asks run.js (which drives the browser) for a PNG of the whole workbench in
 * test-output/<name>.png. Resolves to its path, or undefined when the suite runs
 * without run.js (e.g. under a desktop VS Code), where there is nobody to take it.
 */
export async function screenshot(name: string): Promise<string | undefined> {
  const base = process.env.ATTEST_HOST_SCREENSHOT_URL;
  if (!base) return undefined;
  const url = new URL(base);
  url.searchParams.set('name', name);
  const body = await new Promise<string>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', timeout: 30_000 }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (data += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(data) : reject(new Error(`screenshot ${name}: ${res.statusCode} ${data}`))));
    });
    req.on('timeout', () => req.destroy(new Error(`screenshot ${name}: timed out`)));
    req.on('error', reject);
    req.end();
  });
  const parsed: unknown = JSON.parse(body);
  if (parsed !== null && typeof parsed === 'object' && 'path' in parsed && typeof parsed.path === 'string') {
    return parsed.path;
  }
  throw new Error(`screenshot ${name}: unexpected answer ${body}`);
}

/**
 * Judges citations with a small ONNX model the test builds (real weights cannot be downloaded here),
 * under thresholds no probability reaches, so every judged citation is "unsupported" and a test can
 * follow one verdict. Returns the model's folder and what undoes the settings.
 */
export async function useUnsupportingNliModel(): Promise<{ modelDir: string; restore: () => Promise<void> }> {
  const attest = vscode.workspace.getConfiguration('attest');
  const settings: [string, unknown][] = [
    ['support.entailmentThreshold', 1],
    ['support.contradictionThreshold', 1],
  ];
  const modelDir = await writeModelFolder(await fs.promises.mkdtemp(path.join(os.tmpdir(), 'attest-nli-')), { model: nliGraph(), config: nliConfig() });
  // A model runs what it holds: its folder is a user setting only (machine scope).
  await attest.update('nli.model', modelDir, vscode.ConfigurationTarget.Global);
  for (const [key, value] of settings) await attest.update(key, value, vscode.ConfigurationTarget.Workspace);
  const restore = async (): Promise<void> => {
    await attest.update('nli.model', undefined, vscode.ConfigurationTarget.Global);
    for (const [key] of settings) await attest.update(key, undefined, vscode.ConfigurationTarget.Workspace);
    await fs.promises.rm(modelDir, { recursive: true, force: true });
  };
  return { modelDir, restore };
}

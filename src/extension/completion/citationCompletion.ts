import * as vscode from 'vscode';
import type { Bibliography } from '../../core/app/bibliography';
import { type CheckResult, languageOf } from '../../core/app/pipeline';
import { type Completion, COMPLETIONS, type KeyCandidate, KeyCompleter, keyContext, type Paper, type PaperMatch } from '../../core/app/evidence';
import type { Checker } from '../check/checker';
import type { EvidenceActions } from '../evidence/evidenceActions';

/** How far back on its line a citation being typed can start; keeps matching on a huge line cheap. */
const LOOK_BACK = 500;
/** How long after a check the index is brought up to date: the writer has paused by then. */
const IDLE_MS = 300;

/** The command a library paper's completion item runs: it writes the key and the paper's entry in one edit. */
export const CITE_LIBRARY_PAPER = 'attest.completion.citeLibraryPaper';

/** The paper library as completion asks it (Find Evidence's library, Import Papers' papers). */
export interface LibraryPapers {
  /** The papers that match `typed`, best first, at most `limit`, each with the key it would be cited by. */
  complete(typed: string, limit: number, signal: AbortSignal): Promise<readonly PaperMatch[]>;
}

/**
 * Citation keys inside `\cite{…}` and its relatives, and after `@` in pandoc Markdown: the keys of the
 * manuscript's bibliographies, then the papers of the library, each ranked for what is typed (by
 * indexes of their own, so their scores do not compare), each with its title, authors and year. The
 * bibliographies' index is built ahead, once a check has parsed them and the writer pauses, so that
 * the first completion does not wait for it. The library's papers are matched in the library's
 * thread: 100,000 of them indexed or searched here would freeze the editor as the writer types.
 */
export class CitationCompletionProvider implements vscode.CompletionItemProvider, vscode.Disposable {
  /**
   * Where a key starts, and the characters keys have inside them that are not word characters
   * (`Smith:2019ab`, `doe-2020`, `arXiv.1706/x`): typing one of those would otherwise close the list.
   */
  static readonly triggerCharacters = ['{', ',', '@', ':', '-', '.', '/'];
  private readonly completer = new KeyCompleter();
  /** The bibliographies the index holds, as parsed objects: while they are the same, an edit of the manuscript changes nothing. */
  private indexed: readonly Bibliography[] = [];
  /** The update of the index to `indexed`, under way or done. */
  private indexing: Promise<void> = Promise.resolve();
  private library?: LibraryPapers;
  /** The library's answer being waited for: a newer keystroke cancels it. */
  private asking?: AbortController;
  private timer?: NodeJS.Timeout;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly checker: Checker,
    library?: LibraryPapers,
  ) {
    this.subscriptions = [checker.onDidChange(() => this.prepareSoon()), vscode.window.onDidChangeActiveTextEditor(() => this.prepareSoon())];
    if (library) this.setLibrary(library);
  }

  /** Library papers are asked of `library` from now on. */
  setLibrary(library: LibraryPapers): void {
    this.library = library;
  }

  async provideCompletionItems(document: vscode.TextDocument, position: vscode.Position, token: vscode.CancellationToken): Promise<vscode.CompletionList | undefined> {
    const language = languageOf(document.uri.fsPath) ?? (document.languageId === 'latex' ? 'latex' : 'markdown');
    const line = document.lineAt(position.line).text.slice(0, position.character);
    const from = Math.max(0, line.length - LOOK_BACK);
    const context = keyContext(line.slice(from), language);
    const result = this.checker.resultFor(document.uri.fsPath);
    if (!context || !result) return undefined;
    // The index may still hold another manuscript's bibliographies: their keys are no completions here.
    await this.prepare(result);
    if (token.isCancellationRequested) return undefined;
    const range = new vscode.Range(position.line, from + context.start, position.line, position.character);
    const keys = this.completer.complete(context.typed);
    // Ask for as many more as the bibliographies matched: the library's copies of their works are left out.
    const papers = this.completer.fromLibrary(await this.fromLibrary(context.typed, COMPLETIONS + keys.length, token));
    if (token.isCancellationRequested) return undefined;
    const completions: readonly Completion[] = [...keys, ...papers];
    const items = completions.map((completion, rank) => {
      const item = completion.paper ? libraryItem(completion, completion.paper, document.uri, range, context.typed) : keyItem(completion);
      item.range = range;
      item.detail = [completion.authors, completion.year?.toString(), completion.venue].filter((s) => s).join(', ');
      item.documentation ??= completion.title;
      // Ranked by the searches, not by VS Code's own filter, which would drop "vaswani attent".
      item.filterText = context.typed;
      item.sortText = rank.toString().padStart(4, '0');
      return item;
    });
    return new vscode.CompletionList(items, true);
  }

  /**
   * The library's papers that match `typed`; none when nothing is typed, when the library cannot be
   * read (Find Evidence says why), or when a newer keystroke asked meanwhile (its request is cancelled).
   */
  private async fromLibrary(typed: string, limit: number, token: vscode.CancellationToken): Promise<readonly PaperMatch[]> {
    const library = this.library;
    if (!library || typed.trim() === '') return [];
    this.asking?.abort();
    const asking = new AbortController();
    this.asking = asking;
    const cancelled = token.onCancellationRequested(() => asking.abort());
    try {
      return await library.complete(typed, limit, asking.signal);
    } catch {
      return [];
    } finally {
      cancelled.dispose();
      if (this.asking === asking) this.asking = undefined;
    }
  }

  /** Brings the index up to date for the active manuscript once the writer pauses. */
  private prepareSoon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const document = vscode.window.activeTextEditor?.document;
      const result = document && this.checker.resultFor(document.uri.fsPath);
      if (result) void this.prepare(result);
    }, IDLE_MS);
  }

  /** Resolves once the index holds `result`'s bibliographies. */
  private prepare(result: CheckResult): Promise<void> {
    const { bibliographies } = result;
    if (bibliographies.length === this.indexed.length && bibliographies.every((b, i) => b === this.indexed[i])) return this.indexing;
    this.indexed = bibliographies;
    this.indexing = this.completer.setEntries(bibliographies.flatMap((b) => b.entries)).then(
      // The first search compiles the search's code: better now than at the writer's first keystroke.
      () => void this.completer.complete('warm searches'),
      () => undefined,
    );
    return this.indexing;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.asking?.abort();
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}

function keyItem(candidate: KeyCandidate): vscode.CompletionItem {
  return new vscode.CompletionItem({ label: candidate.key, description: candidate.title }, vscode.CompletionItemKind.Reference);
}

/**
 * A library paper's item. It leaves what was typed as it is and runs `CITE_LIBRARY_PAPER`, which
 * replaces it with the key and adds the entry to the bibliography in one workspace edit: an item's
 * own edits can only change the document being completed, and the entry goes into the .bib.
 */
function libraryItem(completion: Completion, paper: Paper, uri: vscode.Uri, range: vscode.Range, typed: string): vscode.CompletionItem {
  const item = new vscode.CompletionItem({ label: completion.key, detail: ` ${vscode.l10n.t('(library)')}`, description: completion.title }, vscode.CompletionItemKind.Reference);
  item.insertText = typed;
  item.command = { title: vscode.l10n.t('Cite from the library'), command: CITE_LIBRARY_PAPER, arguments: [uri, range.start, typed, paper] };
  item.documentation = `${completion.title ?? ''}\n\n${vscode.l10n.t('From your paper library: choosing it also adds its BibTeX entry to the bibliography.')}`;
  return item;
}

/**
 * `CITE_LIBRARY_PAPER`: replaces `typed` at `at` with the paper's key and adds its entry to the
 * manuscript's bibliography as Add to bibliography does (one edit, one undo), or only cites it when
 * a bibliography has it already.
 */
export async function citeLibraryPaper(actions: EvidenceActions, uri: unknown, at: unknown, typed: unknown, paper: unknown): Promise<void> {
  if (!(uri instanceof vscode.Uri) || !(at instanceof vscode.Position) || typeof typed !== 'string' || !isPaper(paper)) return;
  const document = await vscode.workspace.openTextDocument(uri);
  const offset = document.offsetAt(at);
  const cited = await actions.insertCiting(uri, [paper], (text, keys) =>
    text.slice(offset, offset + typed.length) === typed ? { offset, length: typed.length, text: keys[0] } : { offset, length: 0, text: '' },
  );
  if (!cited.ok) {
    void vscode.window.showWarningMessage(cited.message);
    return;
  }
  const [key] = cited.keys;
  if (!cited.changed) {
    void vscode.window.showWarningMessage(vscode.l10n.t('The citation changed before {0} could be written; nothing was changed.', key));
    return;
  }
  const editor = vscode.window.activeTextEditor;
  if (editor?.document.uri.toString() === uri.toString()) {
    const end = editor.document.positionAt(offset + key.length);
    editor.selection = new vscode.Selection(end, end);
  }
  const message = cited.added ? vscode.l10n.t('Cited as {0}, and added to {1}.', key, vscode.workspace.asRelativePath(cited.added.file)) : vscode.l10n.t('Cited as {0}.', key);
  vscode.window.setStatusBarMessage(message, 5000);
}

function isPaper(value: unknown): value is Paper {
  if (typeof value !== 'object' || value === null) return false;
  const { id, title, authors } = value as Record<string, unknown>;
  return typeof id === 'string' && typeof title === 'string' && Array.isArray(authors);
}

import * as vscode from 'vscode';
import type { Bibliography } from '../core/bibliography/types';
import type { CheckResult } from '../core/check';
import { KeyCompleter, keyContext, type Completion } from '../core/completion/citationKeys';
import { languageOf } from '../core/manuscript/language';
import type { Paper } from '../core/papers/paper';
import type { Checker } from './checker';
import type { EvidenceActions } from './evidenceActions';

/** How far back on its line a citation being typed can start; keeps matching on a huge line cheap. */
const LOOK_BACK = 500;
/** How long after a check the index is brought up to date: the writer has paused by then. */
const IDLE_MS = 300;

/** The command a library paper's completion item runs: it writes the key and the paper's entry in one edit. */
export const CITE_LIBRARY_PAPER = 'attest.completion.citeLibraryPaper';

/** The paper library as completion reads it (Find Evidence's library, Import Papers' papers). */
export interface LibraryPapers {
  /** The papers from the `from`-th on, in the order they were added. */
  papers(from: number): Promise<readonly Paper[]>;
  /** Papers were added. */
  readonly onDidChange: vscode.Event<void>;
}

/**
 * Citation keys inside `\cite{…}` and its relatives, and after `@` in pandoc Markdown: the keys of the
 * manuscript's bibliographies and the papers of the library, ranked together for what is typed, each
 * with its title, authors and year. The index is built ahead, once a check has parsed the
 * bibliographies and the writer pauses, so that the first completion does not wait for it.
 */
export class CitationCompletionProvider implements vscode.CompletionItemProvider, vscode.Disposable {
  static readonly triggerCharacters = ['{', ',', '@'];
  private readonly completer = new KeyCompleter();
  /** The bibliographies the index holds, as parsed objects: while they are the same, an edit of the manuscript changes nothing. */
  private indexed: readonly Bibliography[] = [];
  private library?: LibraryPapers;
  private libraryRead?: Promise<void>;
  /** How many of the library's papers have been read. */
  private libraryCount = 0;
  private libraryListener?: vscode.Disposable;
  private timer?: NodeJS.Timeout;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly checker: Checker,
    library?: LibraryPapers,
  ) {
    this.subscriptions = [checker.onDidChange(() => this.prepareSoon()), vscode.window.onDidChangeActiveTextEditor(() => this.prepareSoon())];
    if (library) this.setLibrary(library);
  }

  /** Library papers are read from `library` from now on. */
  setLibrary(library: LibraryPapers): void {
    this.libraryListener?.dispose();
    this.library = library;
    this.libraryRead = undefined;
    this.libraryCount = 0;
    // Papers added after the library was first read (an import, a search) join the index; before, there is nothing to update.
    // Only those are read: every search fires this, and copying 100,000 papers again each time held the host.
    this.libraryListener = library.onDidChange(() => {
      if (this.libraryRead) this.libraryRead = this.libraryRead.then(() => this.readNewPapers(library));
    });
  }

  provideCompletionItems(document: vscode.TextDocument, position: vscode.Position): vscode.CompletionList | undefined {
    const language = languageOf(document.uri.fsPath) ?? (document.languageId === 'latex' ? 'latex' : 'markdown');
    const line = document.lineAt(position.line).text.slice(0, position.character);
    const from = Math.max(0, line.length - LOOK_BACK);
    const context = keyContext(line.slice(from), language);
    const result = this.checker.resultFor(document.uri.fsPath);
    if (!context || !result) return undefined;
    this.prepare(result);
    this.readLibrary();
    const range = new vscode.Range(position.line, from + context.start, position.line, position.character);
    const items = this.completer.complete(context.typed).map((completion, rank) => {
      const item = completion.paper ? libraryItem(completion, completion.paper, document.uri, range, context.typed) : new vscode.CompletionItem({ label: completion.key, description: completion.title }, vscode.CompletionItemKind.Reference);
      item.range = range;
      item.detail = [completion.authors, completion.year?.toString(), completion.venue].filter((s) => s).join(', ');
      item.documentation ??= completion.title;
      // Ranked by the search, not by VS Code's own filter, which would drop "vaswani attent".
      item.filterText = context.typed;
      item.sortText = rank.toString().padStart(4, '0');
      return item;
    });
    return new vscode.CompletionList(items, true);
  }

  /** Brings the index up to date for the active manuscript once the writer pauses. */
  private prepareSoon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const document = vscode.window.activeTextEditor?.document;
      const result = document && this.checker.resultFor(document.uri.fsPath);
      if (result) this.prepare(result);
    }, IDLE_MS);
  }

  private prepare(result: CheckResult): void {
    const { bibliographies } = result;
    if (bibliographies.length === this.indexed.length && bibliographies.every((b, i) => b === this.indexed[i])) return;
    this.indexed = bibliographies;
    // The first search compiles the search's code: better now than at the writer's first keystroke.
    void this.completer.setEntries(bibliographies.flatMap((b) => b.entries)).then(() => this.completer.complete('warm searches'));
  }

  /**
   * Indexes the library's papers it has not yet, in chunks. Asked by the first completion, not at
   * start-up: opening a large library is work a writer who never completes a citation should not pay.
   */
  private readLibrary(): void {
    const library = this.library;
    if (!library || this.libraryRead) return;
    this.libraryRead = this.readNewPapers(library);
  }

  private async readNewPapers(library: LibraryPapers): Promise<void> {
    try {
      const papers = await library.papers(this.libraryCount);
      if (library !== this.library) return;
      this.libraryCount += papers.length;
      await this.completer.addPapers(papers);
    } catch {
      // The library reports its own problems (Find Evidence says them); completion offers the bibliographies' keys, and reads again when papers are added.
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.libraryListener?.dispose();
    for (const subscription of this.subscriptions) subscription.dispose();
  }
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

import * as vscode from 'vscode';
import type { Bibliography } from '../core/bibliography/types';
import type { CheckResult } from '../core/check';
import { candidateOf, KeyCompleter, keyContext } from '../core/completion/citationKeys';
import { languageOf } from '../core/manuscript/language';
import type { Checker } from './checker';

/** How far back on its line a citation being typed can start; keeps matching on a huge line cheap. */
const LOOK_BACK = 500;

/**
 * Citation keys inside `\cite{…}` and its relatives, and after `@` in pandoc Markdown: the keys of the
 * manuscript's bibliographies, ranked for what is typed, each with its title, authors and year.
 */
export class CitationCompletionProvider implements vscode.CompletionItemProvider {
  static readonly triggerCharacters = ['{', ',', '@'];
  /** The last index built, kept while the bibliographies are the same parsed objects: an edit to the manuscript keeps it. */
  private built?: { readonly bibliographies: readonly Bibliography[]; readonly completer: KeyCompleter };

  constructor(private readonly checker: Checker) {}

  provideCompletionItems(document: vscode.TextDocument, position: vscode.Position): vscode.CompletionList | undefined {
    const language = languageOf(document.uri.fsPath) ?? (document.languageId === 'latex' ? 'latex' : 'markdown');
    const line = document.lineAt(position.line).text.slice(0, position.character);
    const from = Math.max(0, line.length - LOOK_BACK);
    const context = keyContext(line.slice(from), language);
    const result = this.checker.resultFor(document.uri.fsPath);
    if (!context || !result) return undefined;
    const range = new vscode.Range(position.line, from + context.start, position.line, position.character);
    const items = this.completer(result)
      .complete(context.typed)
      .map((candidate, rank) => {
        const item = new vscode.CompletionItem({ label: candidate.key, description: candidate.title }, vscode.CompletionItemKind.Reference);
        item.range = range;
        item.detail = [candidate.authors, candidate.year?.toString(), candidate.venue].filter((s) => s).join(', ');
        item.documentation = candidate.title;
        // Ranked by the search, not by VS Code's own filter, which would drop "vaswani attent".
        item.filterText = context.typed;
        item.sortText = rank.toString().padStart(4, '0');
        return item;
      });
    return new vscode.CompletionList(items, true);
  }

  private completer(result: CheckResult): KeyCompleter {
    const { bibliographies } = result;
    const built = this.built;
    if (built && built.bibliographies.length === bibliographies.length && built.bibliographies.every((b, i) => b === bibliographies[i])) return built.completer;
    const completer = new KeyCompleter(bibliographies.flatMap((b) => b.entries.map(candidateOf)));
    this.built = { bibliographies, completer };
    return completer;
  }
}

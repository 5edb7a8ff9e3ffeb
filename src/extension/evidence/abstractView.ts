import * as vscode from 'vscode';
import { type BibEntry, listAuthors } from '../../core/app/bibliography';

export const ABSTRACT_SCHEME = 'attest-abstract';

/** A part of the evidence view: the abstract, or a section of the full text. */
export interface EvidencePart {
  readonly heading: string;
  readonly lines: string[];
  readonly fromFullText?: boolean;
}

/**
 * Read-only documents showing a cited paper's abstract, one sentence a line, and the passages of its
 * full text by section, with the text a verdict rests on highlighted, so the writer can judge the
 * verdict against the text itself.
 */
export class AbstractView implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly highlight = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.findMatchHighlightBackground'),
    isWholeLine: false,
  });

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? vscode.l10n.t('This evidence is no longer available; run the check again.');
  }

  async show(entry: BibEntry, parts: readonly EvidencePart[], evidence: string | undefined): Promise<void> {
    const header = [`${entry.title ?? entry.key}`, [listAuthors(entry.authors), entry.year].filter(Boolean).join(', '), ''];
    const sentences = parts.flatMap((part) => [`== ${part.heading} ==`, ...part.lines, '']);
    const text = [...header, ...sentences].join('\n');
    const uri = vscode.Uri.from({ scheme: ABSTRACT_SCHEME, path: `/${entry.key}.txt` });
    this.contents.set(uri.toString(), text);
    const document = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    const line = evidence === undefined ? -1 : sentences.findIndex((s) => s !== '' && (s === evidence || s.endsWith(evidence) || evidence.includes(s)));
    if (line >= 0) {
      const range = document.lineAt(header.length + line).range;
      editor.setDecorations(this.highlight, [range]);
      editor.revealRange(range, vscode.TextEditorRevealType.InCenter);
    }
  }

  dispose(): void {
    this.highlight.dispose();
  }
}

import * as vscode from 'vscode';
import type { Checker } from './checker';
import { DIAGNOSTIC_SOURCE, toRange } from './diagnostics';

/** Quick fixes for Attest's findings: replace a mistyped key with the one it probably meant. */
export class CitationCodeActionProvider implements vscode.CodeActionProvider {
  static readonly metadata: vscode.CodeActionProviderMetadata = { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] };

  constructor(private readonly checker: Checker) {}

  provideCodeActions(document: vscode.TextDocument, range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const ours = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && d.code === 'missing-key');
    if (ours.length === 0) return [];
    const findings = this.checker.resultFor(document.uri.fsPath)?.findings ?? [];
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of ours) {
      const finding = findings.find((f) => f.code === 'missing-key' && f.file === document.uri.fsPath && toRange(f.range).isEqual(diagnostic.range));
      for (const [index, replacement] of (finding?.replacements ?? []).entries()) {
        const action = new vscode.CodeAction(vscode.l10n.t("Change to '{0}'", replacement), vscode.CodeActionKind.QuickFix);
        action.edit = new vscode.WorkspaceEdit();
        action.edit.replace(document.uri, diagnostic.range, replacement);
        action.diagnostics = [diagnostic];
        action.isPreferred = index === 0;
        actions.push(action);
      }
    }
    return actions.filter((a) => a.diagnostics?.some((d) => d.range.intersection(range) !== undefined));
  }
}

import * as vscode from 'vscode';
import { describeUnchecked } from '../core/verify/references';
import { missingAbstracts } from '../core/verify/claims';
import type { Checker } from './checker';
import type { ReferenceLookups } from './references';

/** Counts of the active manuscript's problems; a click opens the Problems panel. */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('attest.status', vscode.StatusBarAlignment.Left, 10);

  constructor(
    private readonly checker: Checker,
    private readonly lookups: ReferenceLookups,
  ) {
    this.item.name = vscode.l10n.t('Attest');
    this.item.command = 'workbench.actions.view.problems';
  }

  update(): void {
    const progress = this.lookups.progress;
    if (progress) return this.busy(vscode.l10n.t('Attest: looking up references {0}/{1}', progress.done, progress.total));
    if (this.checker.judging) return this.busy(vscode.l10n.t('Attest: judging citations'));
    this.item.command = 'workbench.actions.view.problems';
    const editor = vscode.window.activeTextEditor;
    const result = editor ? this.checker.resultFor(editor.document.uri.fsPath) : undefined;
    if (!result) {
      this.item.hide();
      return;
    }
    const counts = { error: 0, warning: 0, other: 0 };
    for (const f of result.findings) {
      if (f.severity === 'error') counts.error++;
      else if (f.severity === 'warning') counts.warning++;
      else counts.other++;
    }
    const keys = new Set(result.citations.map((c) => c.key)).size;
    const entries = result.bibliographies.reduce((n, b) => n + b.entries.length, 0);
    const unchecked = result.verdicts ? [...result.verdicts.values()].filter((l) => l.verdict.status === 'unchecked').length : 0;
    // Offline or with every source failing, a clean bar would read as "all references checked".
    const notChecked = unchecked > 0 ? ` $(question) ${vscode.l10n.t('{0} not checked', unchecked)}` : '';
    // Cited works found retracted, each once however often it is cited: the error a writer most needs to see.
    const retracted = new Set(result.findings.filter((f) => f.code === 'retracted').map((f) => f.key)).size;
    const retractedText = retracted > 0 ? ` $(circle-slash) ${vscode.l10n.t('{0} retracted', retracted)}` : '';
    this.item.text =
      counts.error + counts.warning === 0
        ? `$(pass) ${vscode.l10n.t('Attest')}${notChecked}`
        : `$(error) ${counts.error} $(warning) ${counts.warning}${retractedText} ${vscode.l10n.t('Attest')}${notChecked}`;
    const summary = vscode.l10n.t(
      'Citations: {0} (keys: {1}); bibliography entries: {2}. Errors: {3}, warnings: {4}, notes: {5}.',
      result.citations.length,
      keys,
      entries,
      counts.error,
      counts.warning,
      counts.other,
    );
    const why = result.verdicts && describeUnchecked(result.verdicts);
    const missing = result.supports ? missingAbstracts(result.supports) : undefined;
    const noAbstract = missing && missing.withoutAbstract > 0 ? vscode.l10n.t('{0} of {1} cited works have no abstract to check against.', missing.withoutAbstract, missing.cited) : undefined;
    this.item.tooltip = [summary, why, noAbstract].filter((line) => line).join('\n');
    this.item.show();
  }

  /** Long work under way: a spinner, and a click cancels it. */
  private busy(text: string): void {
    this.item.text = `$(sync~spin) ${text}`;
    this.item.tooltip = vscode.l10n.t('Click to cancel.');
    this.item.command = 'attest.cancelReferenceCheck';
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

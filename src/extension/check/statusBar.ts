import * as vscode from 'vscode';
import { type CheckResult, describeUnchecked } from '../../core/app/pipeline';
import { missingAbstracts } from '../../core/app/support';
import type { Checker } from './checker';
import type { ReferenceLookups } from './references';

/** Counts of the active manuscript's problems; a click opens the Problems panel. */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('attest.status', vscode.StatusBarAlignment.Left, 10);
  private visible = false;

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
    const file = vscode.window.activeTextEditor?.document.uri.fsPath;
    // A .bib is no manuscript of its own: the manuscript citing from it speaks for it.
    const result = file === undefined ? undefined : (this.checker.resultFor(file) ?? this.checker.allResults().find((r) => r.bibliographyFiles.includes(file)));
    if (!result) {
      this.item.hide();
      this.visible = false;
      return;
    }
    const counts = { error: 0, warning: 0, information: 0, hint: 0 };
    for (const f of result.findings) counts[f.severity]++;
    const keys = new Set(result.citations.map((c) => c.key)).size;
    const entries = result.bibliographies.reduce((n, b) => n + b.entries.length, 0);
    const unchecked = result.verdicts ? [...result.verdicts.values()].filter((l) => l.verdict.status === 'unchecked').length : 0;
    // Offline or with every source failing, a clean bar would read as "all references checked".
    const notChecked = unchecked > 0 ? ` $(question) ${vscode.l10n.t('{0} not checked', unchecked)}` : '';
    // VS Code's own counts are of every extension's problems; these are Attest's alone. Then the cited works
    // found retracted, each once however often it is cited: the error a writer most needs to see.
    const retracted = new Set(result.findings.filter((f) => f.code === 'retracted').map((f) => f.key)).size;
    const retractedText = retracted > 0 ? ` $(circle-slash) ${vscode.l10n.t('{0} retracted', retracted)}` : '';
    const shown = counts.error + counts.warning + counts.information;
    const counted = shown === 0 ? '$(pass)' : `$(error) ${counts.error} $(warning) ${counts.warning} $(info) ${counts.information}`;
    this.item.text = `${vscode.l10n.t('Attest')} ${counted}${retractedText}${notChecked}`;
    const problems = [
      counts.error === 1 ? vscode.l10n.t('1 error') : vscode.l10n.t('{0} errors', counts.error),
      counts.warning === 1 ? vscode.l10n.t('1 warning') : vscode.l10n.t('{0} warnings', counts.warning),
      counts.information === 1 ? vscode.l10n.t('1 note') : vscode.l10n.t('{0} notes', counts.information),
    ];
    const summary = vscode.l10n.t(
      'Citations: {0} (keys: {1}); bibliography entries: {2}. In the Problems panel: {3}, {4}, {5}.',
      result.citations.length,
      keys,
      entries,
      ...problems,
    );
    // Hints are dotted underlines in the editor, which the Problems panel does not list.
    const hints =
      counts.hint === 0
        ? undefined
        : counts.hint === 1
          ? vscode.l10n.t('1 hint (such as an unused entry) shows in the editor only.')
          : vscode.l10n.t('{0} hints (such as unused entries) show in the editor only.', counts.hint);
    const why = result.verdicts && describeUnchecked(result.verdicts);
    this.item.tooltip = [summary, hints, why, ...abstractLines(result)].filter((line) => line).join('\n');
    this.item.show();
    this.visible = true;
  }

  /** What the item shows, for the tests: an extension cannot read another's status bar items. */
  get shown(): { readonly text: string; readonly tooltip: string } | undefined {
    return this.visible ? { text: this.item.text, tooltip: typeof this.item.tooltip === 'string' ? this.item.tooltip : (this.item.tooltip?.value ?? '') } : undefined;
  }

  /** Long work under way: a spinner, and a click cancels it. */
  private busy(text: string): void {
    this.item.text = `$(sync~spin) ${text}`;
    this.item.tooltip = vscode.l10n.t('Click to cancel.');
    this.item.command = 'attest.cancelReferenceCheck';
    this.item.show();
    this.visible = true;
  }

  dispose(): void {
    this.item.dispose();
  }
}

/** What the support check could not read: works without an abstract, and works whose abstract was never looked for. */
function abstractLines(result: CheckResult): string[] {
  if (!result.supports) return [];
  const { cited, withoutAbstract, notLookedUp } = missingAbstracts(result.supports, result.verdicts);
  const lines: string[] = [];
  const without = withoutAbstract - notLookedUp;
  if (without === 1) lines.push(vscode.l10n.t('1 of {0} cited works has no abstract to check against.', cited));
  else if (without > 1) lines.push(vscode.l10n.t('{0} of {1} cited works have no abstract to check against.', without, cited));
  if (notLookedUp === 1)
    lines.push(vscode.l10n.t('The abstract of 1 of {0} cited works was not looked up (no source answered for it); the support check had nothing to read for it.', cited));
  else if (notLookedUp > 1)
    lines.push(
      vscode.l10n.t(
        'The abstracts of {0} of {1} cited works were not looked up (no source answered for them); the support check had nothing to read for them.',
        notLookedUp,
        cited,
      ),
    );
  return lines;
}

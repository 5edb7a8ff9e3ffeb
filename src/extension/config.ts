import * as vscode from 'vscode';
import type { PipelineSettings } from '../core/app/pipeline';
import { settingOrigin, sourcesConfigFrom, type SourcesConfig } from '../core/sources/config';
import { thresholdsFrom, type SupportThresholds } from '../core/verify/support';

/** Typed access to Attest's settings; one place that knows their names and defaults. */
export class Config {
  private get section(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration('attest');
  }

  get debounceMs(): number {
    return this.section.get<number>('check.debounceMs', 400);
  }

  get maxFileBytes(): number {
    return this.section.get<number>('check.maxFileSizeMB', 20) * 1024 * 1024;
  }

  get extraBibliographies(): string[] {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return this.section
      .get<string[]>('bibliography.extraFiles', [])
      .map((file) => (folder && !file.startsWith('/') && !/^[a-zA-Z]:/.test(file) ? `${folder}/${file}` : file));
  }

  get reportUnused(): boolean {
    return this.section.get<boolean>('diagnostics.unusedEntries', true);
  }

  get checkReferences(): boolean {
    return this.section.get<boolean>('references.check', true);
  }

  get showUnchecked(): boolean {
    return this.section.get<boolean>('references.showUnchecked', false);
  }

  get checkSupport(): boolean {
    return this.section.get<boolean>('support.check', true);
  }

  get reportMissingAbstracts(): boolean {
    return this.section.get<boolean>('support.reportMissingAbstracts', false);
  }

  /** What the check's stages do. */
  get pipeline(): PipelineSettings {
    return { checkReferences: this.checkReferences, showUnchecked: this.showUnchecked, checkSupport: this.checkSupport, reportMissingAbstracts: this.reportMissingAbstracts };
  }

  /** The support thresholds the user set; unset ones are the model's own (its attest.json) or the defaults, not the manifest's. */
  get thresholds(): Partial<SupportThresholds> {
    const all = vscode.workspace.getConfiguration();
    return thresholdsFrom((key) => {
      const set = all.inspect(key);
      return set?.workspaceFolderValue ?? set?.workspaceValue ?? set?.globalValue;
    }).thresholds;
  }

  /**
   * The sources' settings, read by the same code as the CLI's `--config`, with what was not understood;
   * each value with where it was set, so a workspace cannot raise a rate past the service's own.
   */
  sources(): { config: SourcesConfig; problems: string[] } {
    const all = vscode.workspace.getConfiguration();
    return sourcesConfigFrom(
      (key) => all.get(key),
      (key) => settingOrigin(all.inspect(key)),
    );
  }

  /** Whether a change alters which sources are asked or how, so verdicts must be reached afresh. */
  static affectsReferences(event: vscode.ConfigurationChangeEvent): boolean {
    return event.affectsConfiguration('attest.sources') || event.affectsConfiguration('attest.references');
  }

  /** Whether a configuration change affects the results of a check, so open manuscripts must be re-checked. */
  static affectsChecks(event: vscode.ConfigurationChangeEvent): boolean {
    return event.affectsConfiguration('attest');
  }
}

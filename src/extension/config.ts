import * as vscode from 'vscode';
import type { PipelineSettings } from '../core/app/pipeline';
import { readSettings, settingOrigin, type Settings, type SourcesConfig } from '../core/app/settings';
import type { SupportThresholds } from '../core/app/support';

/** Attest's settings as the editor holds them, read by core's one reader of every `attest.*` key. */
export class Config {
  /** Every setting, read afresh: the user may change them at any time. */
  settings(): Settings {
    const all = vscode.workspace.getConfiguration();
    return readSettings((key) => all.get(key), {
      originOf: (key) => settingOrigin(all.inspect(key)),
      // Unset thresholds are the model's own (its attest.json) or the defaults, not the manifest's.
      userSet: (key) => {
        const set = all.inspect(key);
        return set?.workspaceFolderValue ?? set?.workspaceValue ?? set?.globalValue;
      },
      base: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    });
  }

  get debounceMs(): number {
    return this.settings().debounceMs;
  }

  get maxFileBytes(): number {
    return this.settings().maxFileBytes;
  }

  /** What the check's stages do. */
  get pipeline(): PipelineSettings {
    return this.settings().pipeline;
  }

  get checkReferences(): boolean {
    return this.pipeline.checkReferences;
  }

  get showUnchecked(): boolean {
    return this.pipeline.showUnchecked;
  }

  get checkSupport(): boolean {
    return this.pipeline.checkSupport;
  }

  /** The support thresholds the user set; unset ones are the model's own (its attest.json) or the defaults, not the manifest's. */
  get thresholds(): Partial<SupportThresholds> {
    return this.pipeline.thresholds ?? {};
  }

  /**
   * The sources' settings, read by the same code as the CLI's `--config`, with what was not understood;
   * each value with where it was set, so a workspace cannot raise a rate past the service's own.
   */
  sources(): { config: SourcesConfig; problems: readonly string[] } {
    const settings = this.settings();
    return { config: settings.sources, problems: settings.problems.sources };
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

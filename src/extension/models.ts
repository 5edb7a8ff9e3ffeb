import * as os from 'node:os';
import * as vscode from 'vscode';
import { downloadModel, ModelDownloadError } from '../core/models/download';
import { ModelError } from '../core/models/errors';
import { hasFiles, modelLocation, nliModelFiles, type ModelLocation } from '../core/models/location';
import type { NliModel } from '../core/models/nli';
import { WorkerNliModel } from '../core/models/pool';

export interface LoadedNli {
  readonly model: NliModel;
  readonly id: string;
}

/**
 * The NLI model, run in a worker thread: from the folder the user named, or from the hub once the user
 * agreed to the download. Asks at most once a session; without a model, support is judged by
 * relevance alone and the user is told so once.
 */
export class NliModels implements vscode.Disposable {
  private loading?: Promise<LoadedNli | undefined>;
  private declined = false;

  constructor(
    private readonly storage: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The model, loading it on first use; undefined when there is none and the user did not ask for one. */
  nli(): Promise<LoadedNli | undefined> {
    this.loading ??= this.load(false);
    return this.loading;
  }

  /** "Attest: Download the NLI Model": downloads (or re-checks) the configured model whatever was answered before. */
  async download(): Promise<void> {
    await this.reset();
    this.loading = this.load(true);
    const loaded = await this.loading;
    if (loaded) void vscode.window.showInformationMessage(vscode.l10n.t('The NLI model {0} is ready.', loaded.id));
  }

  /** The model setting changed: the next use loads the new one. */
  async reset(): Promise<void> {
    const previous = this.loading;
    this.loading = undefined;
    this.declined = false;
    await (await previous)?.model.dispose();
  }

  private settings(): { model: string; preferQuantized: boolean; threads: number } {
    const section = vscode.workspace.getConfiguration('attest.nli');
    return { model: section.get('model', ''), preferQuantized: section.get('preferQuantized', true), threads: section.get('threads', 2) };
  }

  private async load(userAsked: boolean): Promise<LoadedNli | undefined> {
    const { model, preferQuantized, threads } = this.settings();
    if (model.trim() === '') return undefined;
    const location = modelLocation(model, this.storage.fsPath, os.homedir());
    const files = nliModelFiles(preferQuantized);
    try {
      if (location.kind === 'hub' && !(await hasFiles(location.dir, files))) {
        if (!(await this.fetch(location, files, userAsked))) return undefined;
      }
      const loaded = await WorkerNliModel.start(location.dir, { preferQuantized, threads });
      this.log.info(`NLI model loaded from ${location.dir}`);
      return { model: loaded, id: location.kind === 'hub' ? location.repo : location.dir };
    } catch (error) {
      if (!(error instanceof ModelError) && !(error instanceof ModelDownloadError)) throw error;
      this.log.error(error.message);
      void vscode.window.showErrorMessage(vscode.l10n.t('Attest could not load the NLI model: {0}', error.message));
      return undefined;
    }
  }

  /** Asks before the download (the user decides what leaves and arrives), then downloads with progress and cancel. */
  private async fetch(location: Extract<ModelLocation, { kind: 'hub' }>, files: string[], userAsked: boolean): Promise<boolean> {
    if (!userAsked) {
      if (this.declined) return false;
      const download = vscode.l10n.t('Download');
      const choice = await vscode.window.showInformationMessage(
        vscode.l10n.t(
          'Attest judges whether cited abstracts support your sentences with an NLI model ({0}, about 90 MB, downloaded once from Hugging Face and run on this machine). Without it, only unrelated citations are caught.',
          location.repo,
        ),
        download,
        vscode.l10n.t('Not Now'),
      );
      if (choice !== download) {
        this.declined = true;
        return false;
      }
    }
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Downloading {0}', location.repo), cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        let reported = 0;
        try {
          await downloadModel({
            repo: location.repo,
            files,
            destination: location.dir,
            folderSetting: 'attest.nli.model',
            signal: controller.signal,
            onProgress: ({ file, receivedBytes, totalBytes }) => {
              if (!totalBytes) return;
              const percent = Math.floor((100 * receivedBytes) / totalBytes);
              progress.report({ message: `${file} ${percent}%`, increment: percent - reported });
              reported = percent >= 100 ? 0 : percent;
            },
          });
          return true;
        } catch (error) {
          if (controller.signal.aborted) {
            void vscode.window.showInformationMessage(vscode.l10n.t('Download cancelled; it resumes where it stopped next time.'));
            return false;
          }
          throw error;
        }
      },
    );
  }

  dispose(): void {
    void this.reset();
  }
}

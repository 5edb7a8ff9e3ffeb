import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ModelSettings, Settings } from '../../core/app/settings';
import { Config } from '../config';
import {
  builtInIdentity,
  builtInNliFolder,
  contentDigest,
  copiesFolderOf,
  downloadModel,
  exportFiles,
  hasFiles,
  ModelDownloadError,
  ModelError,
  modelLocation,
  type ModelLocation,
  type ModelOptions,
  NliModelOnFirstUse,
  onnxRuntimeAvailable,
  readFolderJudging,
  withContent,
  LanesEmbedder,
  WorkerNliModel,
} from '../../core/app/models';
import type { Embedder, NliModel } from '../../core/app/onnx';

/** Said once a session, for both models: without ONNX Runtime neither can run. */
let saidNoRuntime = false;

function sayNoRuntimeOnce(): void {
  if (saidNoRuntime) return;
  saidNoRuntime = true;
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'ONNX Runtime has no build for this platform ({0}), so Attest runs without its local models: support verdicts rest on relevance alone, and Find Evidence ranks papers by their words.',
      `${process.platform}-${process.arch}`,
    ),
  );
}

/** A model loaded in its worker, with the id that keys its caches and stored vectors (its name and content, `models/identity.ts`), and the name reports give it. */
export interface Loaded<T> {
  readonly model: T;
  readonly id: string;
  readonly name?: string;
}

/** What differs between the NLI model and the sentence encoder: where the setting is, what it is for, how to start it. */
export interface ModelKind<T extends { dispose(): Promise<void> }> {
  /** The settings section: `attest.nli` or `attest.retrieval.encoder`-style (`model`, `preferQuantized`, `threads`). */
  readonly section: string;
  /** Its settings among all of Attest's. */
  readonly settings: (all: Settings) => ModelSettings;
  /** Why Attest wants it, in the consent prompt. */
  readonly purpose: string;
  /** `failed` hears a failure to load that comes after `start` resolved, for a model that loads on first use. */
  readonly start: (dir: string, options: ModelOptions, failed: (error: unknown) => void) => Promise<T>;
  /**
   * The folder of the model that ships with Attest, used while the setting is empty, and while the model
   * it names is still to be downloaded; undefined when this copy has none.
   */
  readonly builtIn?: () => Promise<string | undefined>;
  /** The command that downloads the model the setting names. */
  readonly downloadCommand: string;
}

/**
 * A local model run in a worker thread: from the folder the user named, or from the hub once the user
 * agreed to the download. Asks at most once a session; without the model, Attest does what it can
 * without it and says so.
 */
export class LocalModel<T extends { dispose(): Promise<void> }> implements vscode.Disposable {
  private loading?: Promise<Loaded<T> | undefined>;
  private declined = false;
  /**
   * Answers the consent prompt shown now, if one is: its notification can sit unanswered in the
   * notification centre, and the download command must not wait on it.
   */
  private answerPrompt?: (download: boolean) => void;

  constructor(
    private readonly kind: ModelKind<T>,
    private readonly storage: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The model, loading it on first use; undefined when there is none and the user did not ask for one. */
  get(): Promise<Loaded<T> | undefined> {
    this.loading ??= this.load(false);
    return this.loading;
  }

  /**
   * The model if it can be had without asking the user: a folder, or a download already complete.
   * For work that must not wait on a consent prompt the user may never answer.
   */
  async withoutAsking(): Promise<Loaded<T> | undefined> {
    return (await this.absence()) === undefined ? this.get() : undefined;
  }

  /** Why `withoutAsking` has no model: none is set, or the one set is still to be downloaded; undefined when neither. */
  async absence(): Promise<'not-configured' | 'not-downloaded' | undefined> {
    const { model, preferQuantized } = this.settings();
    if (model.trim() === '') return (await this.kind.builtIn?.()) === undefined ? 'not-configured' : undefined;
    let location: ModelLocation;
    try {
      location = modelLocation(model, this.storage.fsPath, os.homedir(), workspaceFolder());
    } catch {
      // Loading reports the setting's problem.
      return undefined;
    }
    if (location.kind !== 'hub' || (await hasFiles(location.dir, exportFiles(preferQuantized)))) return undefined;
    // The built-in model stands in until the download (see `load`).
    return (await this.kind.builtIn?.()) === undefined ? 'not-downloaded' : undefined;
  }

  /**
   * The download command: downloads (or re-checks) the configured model whatever was answered before.
   * A consent prompt still unanswered counts as answered "Download": the load that asked goes on.
   */
  async download(): Promise<void> {
    if (this.answerPrompt) this.answerPrompt(true);
    else {
      await this.reset();
      this.loading = this.load(true);
    }
    const loaded = await this.loading;
    if (loaded) void vscode.window.showInformationMessage(vscode.l10n.t('The model {0} is ready.', loaded.name ?? loaded.id));
  }

  /** The model setting changed: the next use loads the new one. */
  async reset(): Promise<void> {
    const previous = this.loading;
    this.loading = undefined;
    this.declined = false;
    await (await previous)?.model.dispose();
  }

  private settings(): ModelSettings {
    return this.kind.settings(new Config().settings());
  }

  private async load(userAsked: boolean): Promise<Loaded<T> | undefined> {
    const { model, preferQuantized, threads } = this.settings();
    const builtIn = model.trim() === '' ? await this.kind.builtIn?.() : undefined;
    if (model.trim() === '' && builtIn === undefined) return undefined;
    if (!onnxRuntimeAvailable()) {
      sayNoRuntimeOnce();
      return undefined;
    }
    const files = exportFiles(preferQuantized);
    try {
      if (builtIn !== undefined) return await this.loadBuiltIn(builtIn, threads);
      const location = modelLocation(model, this.storage.fsPath, os.homedir(), workspaceFolder());
      if (location.kind === 'hub' && !(await hasFiles(location.dir, files))) {
        // Setting a model does not download it: until the user does, the built-in model judges, and Attest says so.
        const standIn = userAsked ? undefined : await this.kind.builtIn?.();
        if (standIn !== undefined) {
          this.offerDownload(location.repo);
          return await this.loadBuiltIn(standIn, threads);
        }
        if (!(await this.fetch(location, files, userAsked))) return undefined;
      }
      // A download's graph is in its onnx/ folder (exportFiles); its copy is kept beside it.
      const loaded = await this.kind.start(location.dir, { preferQuantized, threads, ...(location.kind === 'hub' && { optimizedCopies: path.join(location.dir, 'onnx') }) }, this.failed);
      this.log.info(`Model loaded from ${location.dir}`);
      const name = location.kind === 'folder' ? location.dir : location.revision === undefined ? location.repo : `${location.repo}@${location.revision}`;
      // Keyed by content, not by the setting: another model put in the folder, or one retrained in place, is another model.
      return { model: loaded, id: withContent(name, await contentDigest(location.dir, { preferQuantized })), name };
    } catch (error) {
      if (!(error instanceof ModelError) && !(error instanceof ModelDownloadError)) throw error;
      this.failed(error);
      return undefined;
    }
  }

  private async loadBuiltIn(dir: string, threads: number): Promise<Loaded<T>> {
    const loaded = await this.kind.start(dir, { preferQuantized: true, threads, optimizedCopies: await builtInCopies(this.storage, dir) }, this.failed);
    this.log.info(`Built-in model loaded from ${dir}`);
    return { model: loaded, ...(await builtInIdentity(dir)) };
  }

  /** Says that the model set is not downloaded and the built-in one judges meanwhile, with the download at a click. */
  private offerDownload(repo: string): void {
    const download = vscode.l10n.t('Download');
    const message = vscode.l10n.t('{0} is set as the model but is not downloaded yet: Attest uses its built-in model until it is.', repo);
    this.log.info(message);
    void Promise.resolve(vscode.window.showInformationMessage(message, download)).then((choice) => {
      if (choice === download) void vscode.commands.executeCommand(this.kind.downloadCommand);
    });
  }

  private readonly failed = (error: unknown): void => {
    if (!(error instanceof ModelError) && !(error instanceof ModelDownloadError)) return;
    this.log.error(error.message);
    void vscode.window.showErrorMessage(vscode.l10n.t('Attest could not load the model: {0}', error.message));
  };

  /** Asks before the download (the user decides what leaves and arrives), then downloads with progress and cancel. */
  private async fetch(location: Extract<ModelLocation, { kind: 'hub' }>, files: string[], userAsked: boolean): Promise<boolean> {
    if (!userAsked) {
      if (this.declined) return false;
      if (!(await this.askConsent(location.repo))) {
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
            revision: location.revision,
            files,
            destination: location.dir,
            folderSetting: `${this.kind.section}.model`,
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

  /** Whether the user agrees to the download: by the prompt's button, or by the download command while the prompt waits. */
  private async askConsent(repo: string): Promise<boolean> {
    const download = vscode.l10n.t('Download');
    const answered = new Promise<boolean>((resolve) => (this.answerPrompt = resolve));
    const prompt = vscode.window.showInformationMessage(
      vscode.l10n.t('{0} ({1}, downloaded once from Hugging Face and run on this machine.)', this.kind.purpose, repo),
      download,
      vscode.l10n.t('Not Now'),
    );
    try {
      return await Promise.race([answered, Promise.resolve(prompt).then((choice) => choice === download)]);
    } finally {
      this.answerPrompt = undefined;
    }
  }

  dispose(): void {
    void this.reset();
  }
}

/** The NLI cross-encoder that judges whether a cited abstract supports its sentence. */
export const NLI_MODEL: ModelKind<NliModel> = {
  section: 'attest.nli',
  settings: (all) => all.nli,
  purpose: vscode.l10n.t(
    "Attest judges whether cited abstracts support your sentences with an NLI model (about 90 MB). Without it, only cited abstracts that share none of the sentence's key terms are caught.",
  ),
  // The worker and its session start at the first pair to judge: a manuscript whose cited works have no text costs neither.
  start: async (dir, options, failed) =>
    new NliModelOnFirstUse(
      () =>
        WorkerNliModel.start(dir, options).catch((error: unknown) => {
          failed(error);
          throw error;
        }),
      await readFolderJudging(dir),
    ),
  builtIn: () => builtInNliFolder(),
  downloadCommand: 'attest.downloadNliModel',
};

/** The sentence encoder that adds meaning to Find Evidence's word matching. */
export const ENCODER_MODEL: ModelKind<Embedder> = {
  section: 'attest.retrieval.encoder',
  settings: (all) => all.encoder,
  purpose: vscode.l10n.t('Find Evidence ranks papers by meaning as well as words with a sentence encoder (about 35 MB). Without it, ranking is by words alone.'),
  // The threads the setting allows, as that many one-thread workers: a third more abstracts a second on two cores, twice as many on busy ones.
  start: (dir, options) => LanesEmbedder.start(dir, options.threads ?? 1, options),
  downloadCommand: 'attest.downloadEncoder',
};

/** Where the optimised copy of a model Attest ships is kept: in Attest's storage (see `copiesFolderOf`). */
export function builtInCopies(storage: vscode.Uri, builtIn: string): Promise<string> {
  return copiesFolderOf(path.join(storage.fsPath, 'optimized'), builtIn);
}

/** Where a relative model folder is taken from: the first workspace folder, else the home folder. */
function workspaceFolder(): string {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
}

/**
 * A model Attest runs on this machine, as both adapters have it: the folder its setting leads to (the
 * built-in model, a download, a folder of the user's), checked before it runs, loaded once when first
 * asked for and shared by every caller until the setting changes. What only a host can do (ask before
 * a download, show its progress, say what failed) it gives as a `ModelsHost`:
 *
 *   const nli = new LocalModel(nliKind(openNliInWorker), host, () => settings().nli);
 *   const loaded = await nli.get();    // { model, id, name }, or undefined: none set, declined, or unusable
 *   await nli.reset();                 // the setting changed: the next `get` loads the new one
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { builtInIdentity } from '../models/builtIn';
import { copiesFolderOf } from '../models/copiesFolder';
import { type DownloadProgress, downloadModel, ModelDownloadError } from '../models/download';
import { ModelError } from '../models/errors';
import { contentDigest, variantDigest, withContent } from '../models/identity';
import { exportFiles, hasFiles, modelLocation, type ModelLocation } from '../models/location';
import type { ModelOptions } from '../models/options';
import { onnxRuntimeAvailable } from '../models/runtime';

/** A model loaded, with the id that keys its caches and stored vectors (its name and content, `models/identity.ts`), and the name reports give it. */
export interface Loaded<T> {
  readonly model: T;
  readonly id: string;
  readonly name: string;
}

/** The sections of the model settings: the NLI model's and the sentence encoder's. */
export type ModelSection = 'attest.nli' | 'attest.retrieval.encoder';

/** What differs between the models: where their setting is, the model that ships with Attest, how one is made. */
export interface ModelKind<T extends { dispose(): Promise<void> }> {
  readonly section: ModelSection;
  /**
   * The folder of the model that ships with Attest, used while the setting is empty, and while the model
   * it names is still to be downloaded; undefined when this copy has none.
   */
  readonly builtIn?: () => Promise<string | undefined>;
  /** Makes the model in `dir`; `failed` hears a failure to load that comes after it resolved, for a model made on first use. */
  readonly start: (dir: string, options: ModelOptions, failed: (error: unknown) => void) => Promise<T>;
  /**
   * How the request runs the model in `dir` differently from the model's own way, in words (an
   * encoder's `128 tokens`); undefined when it does not. It joins the model's name and key.
   */
  readonly variant?: (dir: string, request: ModelRequest) => Promise<string | undefined>;
}

/** A model setting as read: a folder or hub repository, empty for the built-in model; `threads` unset for ONNX Runtime's choice. */
export interface ModelRequest {
  readonly model: string;
  readonly preferQuantized: boolean;
  readonly threads?: number;
  /** A sentence encoder's: the most tokens of a text it reads (`ModelOptions.inputTokens`). */
  readonly inputTokens?: number;
}

/** How a host that downloads models keeps them and involves the user: the editor. */
export interface ModelDownloads {
  /** Where the host keeps models: downloads under `models/`, the built-in models' optimised copies under `optimized/`. */
  readonly folder: string;
  /** Whether the user agrees to download `repo` as `section`'s model. */
  readonly consent: (repo: string, section: ModelSection) => Promise<boolean>;
  /** Runs `download` with its progress shown and a way to cancel it (aborting the signal given); false when the user cancelled it. */
  readonly withProgress: (repo: string, download: (signal: AbortSignal, onProgress: (progress: DownloadProgress) => void) => Promise<void>) => Promise<boolean>;
  /** Says that `repo`, set as `section`'s model, is not downloaded, and that the built-in model stands in until it is. */
  readonly offer: (repo: string, section: ModelSection) => void;
}

/** What a host gives for its models. */
export interface ModelsHost {
  /** Where a relative model folder is taken from: the workspace's folder in the editor, the working directory in a terminal. */
  readonly base: () => string;
  /** The name a model in a folder is given in reports and keys: the editor names it by its path, the CLI by the folder's name. */
  readonly folderName: (dir: string) => string;
  /** How the host downloads models; without it (the CLI), every setting names a folder and nothing is written. */
  readonly downloads?: ModelDownloads;
  /** Told that ONNX Runtime has no build for this platform, when a model is asked for; there is then none. Without it, the model's load fails as it may. */
  readonly noRuntime?: () => void;
  /** Told why a model cannot be used (a `ModelError` or `ModelDownloadError`); there is then none. Without it, the error is the caller's. */
  readonly failed?: (error: ModelError | ModelDownloadError) => void;
  readonly log?: (message: string) => void;
}

/**
 * A local model, from the folder the user named, from the hub once the user agreed to the download, or
 * the one built into Attest. Asks at most once for each setting; without the model, Attest does what it
 * can without it.
 */
export class LocalModel<T extends { dispose(): Promise<void> }> {
  /** The one load, shared by every caller until the setting changes: a declined download is not asked for again until then. */
  private loading?: Promise<Loaded<T> | undefined>;
  /**
   * Answers the consent prompt shown now, if one is: the host's prompt can sit unanswered, and the
   * download command must not wait on it.
   */
  private answerPrompt?: (download: boolean) => void;

  constructor(
    private readonly kind: ModelKind<T>,
    private readonly host: ModelsHost,
    private readonly settings: () => ModelRequest,
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
      location = this.location(model);
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
  async download(): Promise<Loaded<T> | undefined> {
    if (this.answerPrompt) this.answerPrompt(true);
    else {
      await this.reset();
      this.loading = this.load(true);
    }
    return this.loading;
  }

  /** The model setting changed: the next use loads the new one. */
  async reset(): Promise<void> {
    const previous = this.loading;
    this.loading = undefined;
    await (await previous?.catch(() => undefined))?.model.dispose();
  }

  dispose(): Promise<void> {
    return this.reset();
  }

  /** Where the setting leads: a host that downloads nothing takes every setting for a folder. */
  private location(model: string): ModelLocation {
    const downloads = this.host.downloads;
    if (downloads === undefined) return { kind: 'folder', dir: path.resolve(this.host.base(), model) };
    return modelLocation(model, downloads.folder, os.homedir(), this.host.base());
  }

  private async load(userAsked: boolean): Promise<Loaded<T> | undefined> {
    const request = this.settings();
    const { model, preferQuantized, threads, inputTokens } = request;
    const builtIn = model.trim() === '' ? await this.kind.builtIn?.() : undefined;
    if (model.trim() === '' && builtIn === undefined) return undefined;
    if (this.host.noRuntime && !onnxRuntimeAvailable()) {
      this.host.noRuntime();
      return undefined;
    }
    const files = exportFiles(preferQuantized);
    try {
      if (builtIn !== undefined) return await this.loadBuiltIn(builtIn, threads);
      const location = this.location(model);
      if (location.kind === 'hub' && this.host.downloads && !(await hasFiles(location.dir, files))) {
        // Setting a model does not download it: until the user does, the built-in model judges, and Attest says so.
        const standIn = userAsked ? undefined : await this.kind.builtIn?.();
        if (standIn !== undefined) {
          this.host.downloads.offer(location.repo, this.kind.section);
          return await this.loadBuiltIn(standIn, threads);
        }
        if (!(await this.fetch(this.host.downloads, location, files, userAsked))) return undefined;
      }
      const named = location.kind === 'folder' ? this.host.folderName(location.dir) : location.revision === undefined ? location.repo : `${location.repo}@${location.revision}`;
      // Keyed by content, not by the setting: another model put in the folder, or one retrained in place, is another model.
      // Read before the model starts, so that a folder without a graph starts nothing.
      const digest = await contentDigest(location.dir, { preferQuantized });
      const variant = await this.kind.variant?.(location.dir, request);
      const name = variant === undefined ? named : `${named} (${variant})`;
      const id = withContent(name, variant === undefined ? digest : variantDigest(digest, variant));
      // A download's graph is in its onnx/ folder (exportFiles); its copy is kept beside it.
      const options = {
        preferQuantized,
        ...(threads !== undefined && { threads }),
        ...(inputTokens !== undefined && { inputTokens }),
        ...(location.kind === 'hub' && { optimizedCopies: path.join(location.dir, 'onnx') }),
      };
      const loaded = await this.kind.start(location.dir, options, this.failed);
      this.host.log?.(`Model loaded from ${location.dir}`);
      return { model: loaded, id, name };
    } catch (error) {
      if (this.host.failed === undefined || !(error instanceof ModelError || error instanceof ModelDownloadError)) throw error;
      this.host.failed(error);
      return undefined;
    }
  }

  private async loadBuiltIn(dir: string, threads: number | undefined): Promise<Loaded<T>> {
    const identity = await builtInIdentity(dir);
    const copies = await builtInCopies(this.host, dir);
    const options = { preferQuantized: true, ...(threads !== undefined && { threads }), ...(copies !== undefined && { optimizedCopies: copies }) };
    const loaded = await this.kind.start(dir, options, this.failed);
    this.host.log?.(`Built-in model loaded from ${dir}`);
    return { model: loaded, ...identity };
  }

  private readonly failed = (error: unknown): void => {
    if (error instanceof ModelError || error instanceof ModelDownloadError) this.host.failed?.(error);
  };

  /** Asks before the download (the user decides what leaves and arrives), then downloads with progress and cancel. */
  private async fetch(downloads: ModelDownloads, location: Extract<ModelLocation, { kind: 'hub' }>, files: string[], userAsked: boolean): Promise<boolean> {
    if (!userAsked && !(await this.askConsent(downloads, location.repo))) return false;
    return downloads.withProgress(location.repo, (signal, onProgress) =>
      downloadModel({
        repo: location.repo,
        revision: location.revision,
        files,
        destination: location.dir,
        folderSetting: `${this.kind.section}.model`,
        signal,
        onProgress,
      }),
    );
  }

  /** Whether the user agrees to the download: by the host's prompt, or by the download command while the prompt waits. */
  private async askConsent(downloads: ModelDownloads, repo: string): Promise<boolean> {
    const answered = new Promise<boolean>((resolve) => (this.answerPrompt = resolve));
    try {
      return await Promise.race([answered, downloads.consent(repo, this.kind.section)]);
    } finally {
      this.answerPrompt = undefined;
    }
  }
}

/**
 * Where the optimised copy of a model Attest ships is kept: the folder Attest ships is not Attest's to
 * write, so in the host's folder of models (see `copiesFolderOf`); none for a host that keeps none.
 */
export function builtInCopies(host: ModelsHost, builtIn: string): Promise<string | undefined> {
  return host.downloads ? copiesFolderOf(path.join(host.downloads.folder, 'optimized'), builtIn) : Promise.resolve(undefined);
}

import * as path from 'node:path';
import * as vscode from 'vscode';
import { Config } from '../config';
import type { CheckResult } from '../../core/app/pipeline';
import { type EvidenceFinder, LibraryThread, type PaperMatch } from '../../core/app/evidence';
import type { SolrTarget } from '../../core/app/solr';
import type { Models } from '../../core/app/models';
import { formatOf, papersFromBibliography } from '../../core/app/library';
import { EmbeddingProgress } from './embeddingProgress';
import { solrCredentials } from './solrCredentials';
import type { ReferenceLookups } from '../check/references';

/**
 * The paper library Find Evidence searches, kept in the extension's global storage: papers imported by
 * the user, the abstracts of the workspace's bibliographies, and what live searches found.
 */
export class EvidenceLibrary implements vscode.Disposable {
  /**
   * The library lives in a worker thread of its own: loading, indexing and searching 100,000 papers
   * there leaves the editor responsive. The store is loaded once per session; other windows' saves
   * are merged at each save.
   */
  private readonly thread = new LibraryThread();
  private opening?: Promise<LibraryThread>;
  /**
   * The setup that opens the store, without the encoder, the sources or the reranker: for completion
   * before any search, and for the first search while the encoder loads. Once: a later setup over the
   * same store keeps the reranker the worker loaded.
   */
  private bare?: Promise<readonly string[]>;
  /**
   * Embedding in the background with the encoder of the last setup, stopped when the settings change
   * or the user stops it.
   */
  private embedding?: EmbeddingRun;
  /** Whether the last setup has an encoder, which papers added unembedded are left for. */
  private embeds = false;
  /** The user stopped the background embedding: nothing starts it again until Resume (the message's or the command), an import or the next session. */
  private paused = false;

  constructor(
    private readonly storage: vscode.Uri,
    private readonly models: Models,
    private readonly lookups: ReferenceLookups,
    private readonly checked: () => readonly CheckResult[],
    private readonly log: vscode.LogOutputChannel,
    private readonly secrets: vscode.SecretStorage,
  ) {}

  /**
   * What Find Evidence asks: the library, with the abstracts of the open manuscripts' bibliographies
   * added first, restricted to open-access papers when the setting says so.
   */
  async finder(): Promise<EvidenceFinder> {
    const library = await this.library();
    const papers = this.checked().flatMap((result) => result.bibliographies.flatMap((b) => papersFromBibliography(b).papers));
    // A bibliography's new abstracts are embedded in the background: the search would otherwise wait
    // for them (a hundred take about ten seconds on two cores), and meanwhile they rank by their words.
    if (papers.length > 0 && (await library.add(papers, { onlyNew: true, embedLater: true })) > 0 && this.embeds) this.embedInBackground();
    return {
      find: (query) => library.find({ ...query, openAccessOnly: query.openAccessOnly ?? new Config().settings().retrieval.openAccessOnly }),
    };
  }

  /**
   * Citation completion's matches for `typed`, found in the library's thread. Before any search, the
   * thread opens the store without the encoder or the sources a search needs, and without offering to
   * download the encoder; once.
   */
  async complete(typed: string, limit: number, signal: AbortSignal): Promise<readonly PaperMatch[]> {
    if (!this.opening) await (this.bare ??= this.setUpBare());
    return this.thread.complete(typed, limit, signal);
  }

  private setUpBare(): Promise<readonly string[]> {
    const setup = this.solrTarget().then((solr) => this.thread.setUp({ ...(solr !== undefined && { solr }), dir: this.dir, liveSources: [] }));
    setup.then(
      // What had to be repaired is said by the setup that opened the store, whatever asked for it.
      (messages) => this.report(messages),
      // Unreadable now is not unreadable for good: the next completion or search tries again.
      () => {
        if (this.bare === setup) this.bare = undefined;
      },
    );
    return setup;
  }

  private report(messages: readonly string[]): void {
    for (const message of messages) {
      this.log.warn(message);
      void vscode.window.showWarningMessage(message);
    }
  }

  /**
   * "Attest: Import Papers": JSONL, BibTeX or RIS files (`given`, or chosen in a dialog), read and
   * indexed in the library's thread, with progress and cancel. The papers are embedded after, in the
   * background: an import of 100,000 is searchable by words in about a minute, where embedding them
   * takes hours of both cores.
   */
  async importFiles(given?: readonly vscode.Uri[]): Promise<void> {
    const files =
      given ??
      (await vscode.window.showOpenDialog({
        canSelectMany: true,
        title: vscode.l10n.t('Import papers into the evidence library'),
        filters: { [vscode.l10n.t('Papers')]: ['jsonl', 'bib', 'ris'] },
      }));
    if (!files?.length) return;
    const library = await this.library();
    try {
      await this.importWithProgress(library, files);
    } finally {
      // What was imported, all of it or up to a cancel, is embedded now: an import asks for it, as Resume does.
      this.paused = false;
      if (this.embeds) this.embedInBackground();
    }
  }

  private async importWithProgress(library: LibraryThread, files: readonly vscode.Uri[]): Promise<void> {
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Importing papers'), cancellable: true }, async (progress, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      for (const file of files) {
        const format = formatOf(file.fsPath);
        if (!format) {
          void vscode.window.showWarningMessage(vscode.l10n.t('{0} is not a JSONL, BibTeX or RIS file.', path.basename(file.fsPath)));
          continue;
        }
        const summary = await library.importFile(file.fsPath, format, {
          signal: controller.signal,
          embedLater: true,
          onProgress: (done, total) => progress.report({ message: `${path.basename(file.fsPath)} ${done}/${total}` }),
        });
        if ('unreadable' in summary) {
          void vscode.window.showWarningMessage(summary.unreadable);
          continue;
        }
        for (const problem of summary.problems) this.log.warn(`${path.basename(file.fsPath)}: ${JSON.stringify(problem)}`);
        void vscode.window.showInformationMessage(
          [
            summary.added === 1
              ? vscode.l10n.t('Imported 1 paper from {0}.', path.basename(file.fsPath))
              : vscode.l10n.t('Imported {0} papers from {1}.', summary.added, path.basename(file.fsPath)),
            ...(summary.problemCount === 0
              ? []
              : [
                  summary.problemCount === 1
                    ? vscode.l10n.t('1 record could not be read (see the Attest output).')
                    : vscode.l10n.t('{0} records could not be read (see the Attest output).', summary.problemCount),
                ]),
          ].join(' '),
        );
      }
    });
  }

  /** Settings changed: the next search uses the same store with the new encoder and sources. */
  reset(): void {
    this.opening = undefined;
    this.embeds = false;
    this.embedding?.stop.abort();
    this.embedding = undefined;
  }

  private library(): Promise<LibraryThread> {
    if (this.opening) return this.opening;
    const opening = this.open();
    // Unreadable now (permissions, I/O) is not unreadable for good: the next search tries again.
    opening.catch(() => {
      if (this.opening === opening) this.opening = undefined;
    });
    this.opening = opening;
    return opening;
  }

  private async open(): Promise<LibraryThread> {
    const settings = new Config().settings();
    // The store opens in the library's thread while the encoder loads in its own: at 100,000 papers,
    // each takes about half a second, which the first search would otherwise wait for twice.
    const opening = (this.bare ??= this.setUpBare());
    const encoder = await this.models.encoder.withoutAsking();
    // Without it, search by words now and offer the encoder; once it is there, the next search uses it.
    if (!encoder) void this.models.encoder.get().then((loaded) => loaded && this.reset());
    const solr = await this.solrTarget();
    // An institution's collection is searched instead of the library, and the papers live searches find would not join it.
    const liveSources = solr === undefined && settings.retrieval.liveSearch ? await this.lookups.sources() : [];
    await opening;
    const messages = await this.thread.setUp({
      ...(solr !== undefined && { solr }),
      dir: this.dir,
      encoder: encoder && { model: encoder.id, embedder: encoder.model },
      missingEncoder: encoder ? undefined : await this.models.encoder.absence(),
      reranker: await this.models.reranker(settings),
      liveSources,
    });
    this.report(messages);
    // Papers saved before this encoder are embedded in the background; meanwhile they rank by words.
    this.embeds = encoder !== undefined;
    if (this.embeds) this.embedInBackground();
    return this.thread;
  }

  /**
   * Embeds the library's papers that have no vector from the encoder, in the library's thread, with
   * its progress (`EmbeddingProgress`); asked again while it runs, it runs once more after, for the
   * papers added meanwhile.
   */
  private embedInBackground(): void {
    if (this.paused) return;
    if (this.embedding) {
      this.embedding.again = true;
      return;
    }
    const run: EmbeddingRun = { stop: new AbortController(), again: false, stoppedByUser: false };
    this.embedding = run;
    void this.embedAll(run);
  }

  private async embedAll(run: EmbeddingRun): Promise<void> {
    const progress = new EmbeddingProgress(() => this.stop(run));
    try {
      do {
        run.again = false;
        await this.thread.embedMissing({ signal: run.stop.signal, onProgress: (done, total) => progress.report(done, total) });
      } while (run.again && !run.stop.signal.aborted);
    } catch (error) {
      if (!run.stop.signal.aborted) this.log.error('Embedding papers failed', error);
    } finally {
      progress.end();
      if (this.embedding === run) this.embedding = undefined;
    }
    if (!run.stoppedByUser) return;
    const resume = vscode.l10n.t('Resume');
    // Counted by the library's thread once it has taken the stop: the progress last reported may be a chunk behind.
    const left = await this.thread.unembedded().catch(() => undefined);
    const answer = await vscode.window.showInformationMessage(
      left === undefined
        ? vscode.l10n.t('Attest stopped embedding the library: Find Evidence ranks the papers not embedded yet by their words alone until they are.')
        : left === 1
          ? vscode.l10n.t('Attest stopped embedding the library: 1 paper is not embedded yet, and Find Evidence ranks it by its words alone until it is.')
          : vscode.l10n.t('Attest stopped embedding the library: {0} papers are not embedded yet, and Find Evidence ranks them by their words alone until they are.', left),
      resume,
    );
    if (answer === resume) this.resumeEmbedding();
  }

  /** "Attest: Resume Embedding the Evidence Library's Papers", and the Resume of the message a stop shows. */
  resumeEmbedding(): void {
    this.paused = false;
    // With the settings of now: those the stopped run had may have changed since.
    void this.library().then(
      () => this.embeds && this.embedInBackground(),
      () => undefined,
    );
  }

  /** "Attest: Stop Embedding the Evidence Library's Papers", and the Cancel of the embedding's notification. */
  stopEmbedding(): void {
    if (this.embedding) this.stop(this.embedding);
    else void vscode.window.showInformationMessage(vscode.l10n.t('Attest is not embedding papers now.'));
  }

  private stop(run: EmbeddingRun): void {
    run.stoppedByUser = true;
    this.paused = true;
    run.stop.abort();
  }

  /** The collection on SolrCloud that `attest.library.solr.url` names, with the credentials kept for that address. */
  private async solrTarget(): Promise<SolrTarget | undefined> {
    const { url, collection } = new Config().settings().solr;
    if (url === '') return undefined;
    const credentials = await solrCredentials(this.secrets, url);
    return { url, collection, ...(credentials && { credentials }) };
  }

  private get dir(): string {
    return path.join(this.storage.fsPath, 'library');
  }

  dispose(): void {
    this.reset();
    void this.thread.dispose();
  }
}

/** One background embedding, from its start until it ends or is stopped; `again` when papers came in after it listed those to embed. */
interface EmbeddingRun {
  readonly stop: AbortController;
  again: boolean;
  stoppedByUser: boolean;
}

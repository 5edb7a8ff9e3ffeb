import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckResult } from '../core/check';
import type { EvidenceFinder } from '../core/evidence';
import { PaperLibrary } from '../core/index/library';
import { PaperStore } from '../core/index/store';
import type { Embedder } from '../core/models/embedder';
import type { Paper } from '../core/papers/paper';
import { formatOf, importPapers, papersFromBibliography } from '../core/papers/import';
import { UnreadableFileError } from '../core/text/decode';
import { LARGEST_TEXT_BYTES, readNamedTextFile } from '../core/text/readFile';
import type { LocalModel } from './models';
import type { ReferenceLookups } from './references';

/**
 * The paper library Find Evidence searches, kept in the extension's global storage: papers imported by
 * the user, the abstracts of the workspace's bibliographies, and what live searches found.
 */
export class EvidenceLibrary implements vscode.Disposable {
  /** One store for the session, so that its papers are loaded once; other windows' saves are merged at each save. */
  private store?: Promise<PaperStore>;
  private opening?: Promise<PaperLibrary>;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Papers were added: imported, or found by a search. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly storage: vscode.Uri,
    private readonly encoder: LocalModel<Embedder>,
    private readonly lookups: ReferenceLookups,
    private readonly checked: () => readonly CheckResult[],
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /**
   * What Find Evidence asks: the library, with the abstracts of the open manuscripts' bibliographies
   * added first, restricted to open-access papers when the setting says so.
   */
  async finder(): Promise<EvidenceFinder> {
    const library = await this.library();
    const papers = this.checked().flatMap((result) => result.bibliographies.flatMap((b) => papersFromBibliography(b).papers));
    const fresh = papers.filter((p) => !library.store.get(p.id));
    if (fresh.length > 0) await library.add(fresh);
    return {
      find: async (query) => {
        try {
          return await library.find({ ...query, openAccessOnly: query.openAccessOnly ?? vscode.workspace.getConfiguration('attest.retrieval').get('openAccessOnly', false) });
        } finally {
          // A live search adds what the sources found.
          this.changed.fire();
        }
      },
    };
  }

  /** The library's papers, for citation completion: only the store is opened, not the encoder or the sources a search needs. */
  async papers(): Promise<Iterable<Paper>> {
    return (await this.openStore()).papers();
  }

  /** "Attest: Import Papers": JSONL, BibTeX or RIS files, with progress and cancel; bad records are reported. */
  async importFiles(): Promise<void> {
    const files = await vscode.window.showOpenDialog({
      canSelectMany: true,
      title: vscode.l10n.t('Import papers into the evidence library'),
      filters: { [vscode.l10n.t('Papers')]: ['jsonl', 'bib', 'ris'] },
    });
    if (!files?.length) return;
    const library = await this.library();
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Importing papers'), cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        for (const file of files) {
          const format = formatOf(file.fsPath);
          if (!format) {
            void vscode.window.showWarningMessage(vscode.l10n.t('{0} is not a JSONL, BibTeX or RIS file.', path.basename(file.fsPath)));
            continue;
          }
          let text: string;
          try {
            text = await readNamedTextFile(file.fsPath, LARGEST_TEXT_BYTES);
          } catch (error) {
            if (!(error instanceof UnreadableFileError)) throw error;
            void vscode.window.showWarningMessage(error.message);
            continue;
          }
          const { papers, problems } = importPapers(text, format, file.fsPath);
          for (const problem of problems.slice(0, 20)) this.log.warn(`${path.basename(file.fsPath)}: ${JSON.stringify(problem)}`);
          await library.add(papers, {
            signal: controller.signal,
            onProgress: (done, total) => progress.report({ message: `${path.basename(file.fsPath)} ${done}/${total}` }),
          });
          this.changed.fire();
          void vscode.window.showInformationMessage(
            vscode.l10n.t('Imported {0} papers from {1}; {2} records could not be read (see the Attest output).', papers.length, path.basename(file.fsPath), problems.length),
          );
        }
      },
    );
  }

  /** Settings changed: the next search uses the same store with the new encoder and sources. */
  reset(): void {
    this.opening = undefined;
  }

  private library(): Promise<PaperLibrary> {
    this.opening ??= this.open();
    return this.opening;
  }

  private async open(): Promise<PaperLibrary> {
    const settings = vscode.workspace.getConfiguration('attest.retrieval');
    const encoder = await this.encoder.withoutAsking();
    // Without it, search by words now and offer the encoder; once it is there, the next search uses it.
    if (!encoder) void this.encoder.get().then((loaded) => loaded && this.reset());
    const liveSources = settings.get('liveSearch', true) ? await this.lookups.sources() : [];
    const library = new PaperLibrary(await this.openStore(), {
      encoder: encoder && { model: encoder.id, embedder: encoder.model },
      missingEncoder: encoder ? undefined : await this.encoder.absence(),
      liveSources,
    });
    // Papers saved before this encoder are embedded in the background; meanwhile they rank by words.
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Attest: embedding papers') }, (progress) =>
      library.embedMissing({ onProgress: (done, total) => progress.report({ message: `${done}/${total}` }) }).catch((error: unknown) => this.log.error('Embedding papers failed', error)),
    );
    return library;
  }

  private openStore(): Promise<PaperStore> {
    this.store ??= PaperStore.open(path.join(this.storage.fsPath, 'library')).then(({ store, messages }) => {
      for (const message of messages) {
        this.log.warn(message);
        void vscode.window.showWarningMessage(message);
      }
      return store;
    });
    // Unreadable now (permissions, I/O) is not unreadable for good: the next search tries again.
    this.store.catch(() => {
      this.store = undefined;
      this.opening = undefined;
    });
    return this.store;
  }

  dispose(): void {
    this.opening = undefined;
    this.changed.dispose();
  }
}

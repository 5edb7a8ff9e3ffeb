import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BibEntry } from '../../core/app/bibliography';
import {
  createSources,
  keyOrigin,
  LookupCache,
  type PaperSource,
  type PrepareProgress,
  publicOrigin,
  readSecrets,
  SECRET_SOURCE,
  type SecretReader,
  SOURCE_NAMES,
  SourceError,
  type SourceGates,
  type SourceSecrets,
} from '../../core/app/services';
import { failureReasons, unreachedSources, VerdictCache, verifyEntries } from '../../core/app/pipeline';
import type { Verdicts } from '../../core/app/verdicts';
import type { Config } from '../config';

/** Where each credential for a source's public API is kept in the editor's secret storage. */
const SECRET_KEYS: Readonly<Record<keyof SourceSecrets, string>> = {
  openalexApiKey: 'attest.sources.openalex.apiKey',
  semanticscholarApiKey: 'attest.sources.semanticscholar.apiKey',
  coreApiKey: 'attest.sources.core.apiKey',
  crossrefPlusToken: 'attest.sources.crossref.plusToken',
};

/**
 * Where a credential for `origin` is kept: a key is stored for the origin it was given for, so a
 * base URL that a workspace points elsewhere never receives it. Keys for the public APIs keep the
 * names they had before keys were kept by origin.
 */
export function secretName(name: keyof SourceSecrets, origin: string): string {
  return origin === publicOrigin(SECRET_SOURCE[name]) ? SECRET_KEYS[name] : `${SECRET_KEYS[name]}:${origin}`;
}

/** The credentials as the editor's secret storage keeps them, for the services core builds. */
export function secretReader(secrets: vscode.SecretStorage): SecretReader {
  return (name, origin) => Promise.resolve(secrets.get(secretName(name, origin)));
}

/** How long before a source failure seen again is written to the output again. */
const RELOG_AFTER_MS = 5 * 60_000;

export interface Progress {
  readonly done: number;
  readonly total: number;
}

/**
 * Looks references up in the open sources, off the typing path: one run per manuscript or bibliography
 * at a time (a newer one cancels the older), verdicts remembered so that only new or edited entries are
 * looked up again, and lookups cached on disk across sessions.
 */
export class ReferenceLookups implements vscode.Disposable {
  private clients?: Promise<PaperSource[]>;
  private readonly verdicts = new VerdictCache();
  private readonly runs = new Map<string, AbortController>();
  private readonly progressById = new Map<string, Progress>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** When each source failure was last written to the output, so a check every few seconds does not repeat it. */
  private readonly logged = new Map<string, number>();
  /** Whether the user has been told that no source could be reached, since the last answer. */
  private saidUnreached = false;
  /** Fires when lookups start, advance or end: the status bar shows them. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly config: Config,
    private readonly secrets: vscode.SecretStorage,
    private readonly storage: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    /** The session's, which its full texts pass too. */
    private readonly gates: SourceGates,
  ) {}

  /** Lookups under way, summed over all runs; undefined when none is. */
  get progress(): Progress | undefined {
    if (this.progressById.size === 0) return undefined;
    let done = 0;
    let total = 0;
    for (const p of this.progressById.values()) {
      done += p.done;
      total += p.total;
    }
    return { done, total };
  }

  /**
   * Verdicts for `entries`, as run `id` (a manuscript root or a .bib file). Undefined when reference
   * checks are turned off or the run was cancelled or superseded.
   */
  async verify(id: string, entries: readonly BibEntry[], token?: vscode.CancellationToken): Promise<Verdicts | undefined> {
    if (!this.config.checkReferences || entries.length === 0) return undefined;
    this.runs.get(id)?.abort();
    const controller = new AbortController();
    this.runs.set(id, controller);
    const onCancel = token?.onCancellationRequested(() => controller.abort());
    try {
      const verdicts = await verifyEntries(entries, await this.activeSources(), {
        signal: controller.signal,
        cache: this.verdicts,
        timeLimitMs: this.config.sources().config.timeLimitMs,
        onProgress: (done, total) => {
          this.progressById.set(id, { done, total });
          this.changed.fire();
        },
      });
      this.report(verdicts);
      return verdicts;
    } catch (error) {
      if (error instanceof SourceError && error.kind === 'cancelled') return undefined;
      this.log.error(`Looking up references failed`, error);
      return undefined;
    } finally {
      onCancel?.dispose();
      if (this.runs.get(id) === controller) {
        this.runs.delete(id);
        this.progressById.delete(id);
        this.changed.fire();
      }
    }
  }

  /**
   * Writes why sources could not answer to the Attest output (each reason once a few minutes, with the
   * time the channel stamps), and says once, plainly, when no source could be reached at all: that is
   * the machine's network, not Attest and not the references.
   */
  private report(verdicts: Verdicts): void {
    const now = Date.now();
    for (const [reason, count] of failureReasons(verdicts)) {
      if (now - (this.logged.get(reason) ?? -Infinity) < RELOG_AFTER_MS) continue;
      this.logged.set(reason, now);
      this.log.warn(count === 1 ? vscode.l10n.t('{0} (for 1 reference)', reason) : vscode.l10n.t('{0} (for {1} references)', reason, count));
    }
    const unreached = unreachedSources(verdicts);
    if (!unreached) {
      // Answers came: should the network go again, that is worth saying again.
      if ([...verdicts.values()].some((l) => l.verdict.status !== 'unchecked')) this.saidUnreached = false;
      return;
    }
    if (this.saidUnreached) return;
    this.saidUnreached = true;
    const show = vscode.l10n.t('Show Details');
    const message = vscode.l10n.t(
      'Attest could not reach {0}, so your references are not checked yet; none is marked wrong. Check the internet connection, or a proxy or firewall. Attest asks again in a few minutes.',
      unreached.map((source) => SOURCE_NAMES[source]).join(', '),
    );
    void vscode.window.showWarningMessage(message, show).then((choice) => {
      if (choice === show) this.log.show(true);
    });
  }

  cancelAll(): void {
    for (const run of this.runs.values()) run.abort();
  }

  /** Settings or credentials changed: later lookups use new clients, and verdicts are reached afresh. */
  reset(): void {
    this.cancelAll();
    this.clients = undefined;
    this.verdicts.clear();
  }

  /** The origin a credential is stored for and sent to: that of its source's configured base URL. */
  keyOrigin(name: keyof SourceSecrets): string {
    return keyOrigin(this.config.sources().config, name);
  }

  /** The enabled sources, sharing this session's rate limits and cache, for live searches too. */
  sources(): Promise<PaperSource[]> {
    return this.activeSources();
  }

  private activeSources(): Promise<PaperSource[]> {
    this.clients ??= this.createSources();
    return this.clients;
  }

  private async createSources(): Promise<PaperSource[]> {
    const { config, problems } = this.config.sources();
    for (const problem of problems) this.log.warn(problem);
    const secrets = await readSecrets(config, secretReader(this.secrets));
    const sources = createSources(config, secrets, new LookupCache(path.join(this.storage.fsPath, 'lookups')), this.gates, path.join(this.storage.fsPath, 'indexes'));
    for (const source of sources) if (source.prepare) this.prepareInBackground(source);
    return sources;
  }

  /**
   * A local source made ready while lookups go on (DBLP's dump indexed, once): a cancellable
   * notification shows how far it is, and the source answers meanwhile that it is not ready.
   */
  private prepareInBackground(source: PaperSource): void {
    const cancel = new AbortController();
    let finish = (): void => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    let report: ((step: PrepareProgress) => void) | undefined;
    let shown = false;
    const show = (first: PrepareProgress): void => {
      shown = true;
      let reported = 0;
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Attest: {0}', first.task), cancellable: true }, (progress, token) => {
        token.onCancellationRequested(() => cancel.abort());
        report = (step) => {
          const percent = Math.floor(step.fraction * 100);
          progress.report({ increment: percent - reported, message: vscode.l10n.t('{0} records', step.records.toLocaleString()) });
          reported = percent;
        };
        return finished;
      });
    };
    source
      .prepare?.({ signal: cancel.signal, onProgress: (step) => (shown ? report?.(step) : show(step)) })
      .then(
        () => shown && this.log.info(`${source.name}: its local index is built.`),
        (error: Error) => {
          this.log.warn(error.message);
          if (!cancel.signal.aborted) void vscode.window.showWarningMessage(error.message);
        },
      )
      .finally(finish);
  }

  dispose(): void {
    this.cancelAll();
    this.changed.dispose();
  }
}

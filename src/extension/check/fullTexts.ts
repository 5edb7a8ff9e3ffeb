import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BibEntry } from '../../core/app/bibliography';
import {
  fullTextConfigFrom,
  type FullTextOptions,
  fullTextProvider,
  type FullTextProvider,
  type FullTextResult,
  FullTextSession,
  type PassageAtHand,
  passagesAtHand,
  readSecrets,
  type SourceGates,
  type WorkIds,
} from '../../core/app/services';
import type { Paper } from '../../core/app/evidence';
import type { Config } from '../config';
import { secretReader } from './references';

/**
 * The cited works' full texts as the settings ask for them (`attest.fullText.*`, the sources' own
 * settings and the CORE key), stored in the extension's storage. The settings and the key are read at
 * each judging run, so a change counts at once; while they stay the same, the runs share one set of
 * HTTP clients, with their memory of failing services; each service's requests pass the one gate its
 * reference lookups pass.
 */
export class FullTextAccess {
  private readonly session: FullTextSession;

  /** @param gates the session's, which the reference lookups pass too */
  constructor(
    private readonly config: Config,
    private readonly secrets: vscode.SecretStorage,
    private readonly storage: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    gates: SourceGates,
  ) {
    this.session = new FullTextSession(gates);
  }

  /** The provider for one judging run. */
  async provider(): Promise<FullTextProvider | undefined> {
    const options = await this.options();
    return options && fullTextProvider(options, (message) => this.log.warn(message));
  }

  /**
   * For Find Evidence: each found paper's best passage for the claim, when its full text is at hand.
   * The settings are read, and the PDF folder walked, once for the whole search.
   */
  async passagesAtHand(claim: string, papers: readonly Paper[]): Promise<(PassageAtHand | undefined)[]> {
    const options = await this.options();
    return options ? passagesAtHand(claim, papers, options) : papers.map(() => undefined);
  }

  private async options(): Promise<FullTextOptions | undefined> {
    const all = vscode.workspace.getConfiguration();
    const base = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? this.storage.fsPath;
    const { config, problems } = fullTextConfigFrom((key) => all.get(key), base);
    for (const problem of problems) this.log.warn(problem);
    const sources = this.config.sources().config;
    const secrets = await readSecrets(sources, secretReader(this.secrets), ['coreApiKey']);
    return this.session.options(config, sources, secrets, path.join(this.storage.fsPath, 'fulltexts'));
  }

  /** The full text of an entry as the last check read it (from the store), for Show the Evidence. */
  async read(entry: BibEntry, ids: WorkIds): Promise<FullTextResult | undefined> {
    return (await this.provider())?.(entry, ids);
  }
}

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BibEntry, Bibliography } from '../../core/app/bibliography';
import {
  bibliographyFindings,
  checkInStages,
  type CheckResult,
  CheckSession,
  type Finding,
  IgnoreFileError,
  type IgnoreList,
  ignoreListOf,
  languageOf,
  manuscriptRootOf,
  mergeFindings,
  ParserThread,
  type PipelineHost,
  type VerdictSubject,
  withoutAccepted,
} from '../../core/app/pipeline';
import { LookupCache } from '../../core/app/services';
import { UnreadableFileError } from '../../core/app/text';
import type { ExistenceVerdict, Verdicts } from '../../core/app/verdicts';
import type { Config } from '../config';
import { toDiagnostic } from './diagnostics';
import { EditorWorkspace } from '../editorWorkspace';
import type { LocalModel, NliModel } from '../../core/app/models';
import type { ReferenceLookups } from './references';
import type { FullTextAccess } from './fullTexts';

/** The VS Code languages whose documents are manuscripts. */
export const MANUSCRIPT_LANGUAGES = ['latex', 'markdown', 'rmd', 'quarto'];

/**
 * Keeps one check result per manuscript root and the Problems panel in step with them: checks on open,
 * on edit (debounced), and when a file a manuscript depends on changes on disk.
 */
/** Enough for any real project; a bound keeps a huge workspace from being read for one open file. */
const MAX_ROOT_CANDIDATES = 2000;

export class Checker implements vscode.Disposable {
  /** Parsing runs in a worker thread: a large .tex or .bib must not freeze the editor. */
  private readonly parsers = new ParserThread();
  private readonly session = new CheckSession(this.parsers);
  private readonly workspace: EditorWorkspace;
  private readonly results = new Map<string, CheckResult>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Incremented per scheduled check of a root, so a slow, superseded check does not overwrite a newer one. */
  private readonly generations = new Map<string, number>();
  private readonly publishedFindings = new Map<string, readonly Finding[]>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires after results were published: the status bar and hovers read them. */
  readonly onDidChange = this.changed.event;

  /** The check under way of each root, and those of them that are judging citations. */
  private readonly runs = new Map<string, AbortController>();
  private readonly judgingRuns = new Set<AbortController>();
  private modelOffered = false;
  private readonly reportedIgnoreFiles = new Set<string>();
  /** Judgements by model, claim and abstract, kept across sessions. */
  private readonly judgements: LookupCache;

  /**
   * Where the writer is typing in a manuscript: a key being typed is not in any bibliography until it
   * is finished, so its missing-key error waits until the cursor leaves it (or the editor, or the file
   * is saved) rather than flashing at every pause.
   */
  private typing?: { readonly file: string; readonly position: vscode.Position };

  /** Reference checks of whole bibliographies ("Attest: Check References"), by .bib file. */
  private readonly bibliographyVerdicts = new Map<string, Verdicts>();

  constructor(
    private readonly config: Config,
    private readonly diagnostics: vscode.DiagnosticCollection,
    private readonly references: ReferenceLookups,
    private readonly nli: LocalModel<NliModel>,
    storage: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly fullTexts: FullTextAccess,
  ) {
    this.judgements = new LookupCache(path.join(storage.fsPath, 'judgements'));
    this.workspace = new EditorWorkspace(() => config.maxFileBytes);
  }

  /** The result of the manuscript a file belongs to, if it has been checked. */
  resultFor(file: string): CheckResult | undefined {
    return this.results.get(file) ?? [...this.results.values()].find((r) => r.manuscript.sources.some((s) => s.file === file));
  }

  allResults(): CheckResult[] {
    return [...this.results.values()];
  }

  /** A manuscript document was opened or edited: check its manuscript after the debounce delay. */
  async documentChanged(document: vscode.TextDocument, immediately = false): Promise<void> {
    if (!isManuscript(document)) return;
    const file = document.uri.fsPath;
    const roots = this.rootsContaining(file);
    if (roots.length === 0) roots.push(await manuscriptRootOf(file, this.workspace, this.session.manuscripts, workspaceTexFiles));
    for (const root of roots) this.schedule(root, immediately ? 0 : this.config.debounceMs);
  }

  /**
   * The writer typed in a manuscript: the cursor is where the last change ends. An undo or redo is not
   * typing: it puts back a finished key, and VS Code puts the cursor back where it was before the edit.
   */
  typed(event: vscode.TextDocumentChangeEvent): void {
    const last = event.contentChanges.at(-1);
    if (!last) return;
    if (event.reason !== undefined) {
      if (this.typing?.file === event.document.uri.fsPath) this.typing = undefined;
      return;
    }
    const lines = last.text.split('\n');
    const line = last.range.start.line + lines.length - 1;
    const character = (lines.length === 1 ? last.range.start.character : 0) + (lines.at(-1)?.length ?? 0);
    this.typing = { file: event.document.uri.fsPath, position: new vscode.Position(line, character) };
  }

  /** The cursor moved, the writer saved or went to another editor: the key they typed is finished. */
  stoppedTyping(file?: string, position?: vscode.Position): void {
    const typing = this.typing;
    if (!typing || (file === typing.file && position?.isEqual(typing.position))) return;
    this.typing = undefined;
    this.publish();
  }

  /** A file changed, was created or deleted on disk, or in an editor: re-check every manuscript that depends on it. */
  dependencyChanged(file: string): void {
    this.session.bibliographies.forget(file);
    this.session.manuscripts.forget(file);
    for (const result of this.results.values()) {
      const dependsOn =
        result.bibliographyFiles.includes(file) ||
        result.manuscript.sources.some((s) => s.file === file) ||
        result.manuscript.missingIncludes.some((m) => m.reference.path === file);
      if (dependsOn) this.schedule(result.root, this.config.debounceMs);
    }
  }

  /** Drops manuscripts none of whose files is open any more, with their diagnostics. */
  documentClosed(): void {
    const open = new Set(vscode.workspace.textDocuments.filter((d) => !d.isClosed).map((d) => d.uri.fsPath));
    for (const [root, result] of this.results) {
      if (!result.manuscript.sources.some((s) => open.has(s.file))) {
        this.results.delete(root);
        this.generations.set(root, (this.generations.get(root) ?? 0) + 1);
      }
    }
    this.publish();
  }

  recheckAll(): void {
    // A model setting may have changed: the new model may be offered again (a declined one is not asked for twice).
    this.modelOffered = false;
    for (const root of this.results.keys()) this.schedule(root, 0);
  }

  private rootsContaining(file: string): string[] {
    return [...this.results.values()].filter((r) => r.manuscript.sources.some((s) => s.file === file)).map((r) => r.root);
  }

  private schedule(root: string, delay: number): void {
    clearTimeout(this.timers.get(root));
    const generation = (this.generations.get(root) ?? 0) + 1;
    this.generations.set(root, generation);
    this.timers.set(
      root,
      setTimeout(() => {
        this.timers.delete(root);
        void this.run(root, generation);
      }, delay),
    );
  }

  /**
   * Runs the check's stages, publishing each as it completes; a newer check of the root stops this one
   * (its results would be stale), and Cancel stops its support stage.
   */
  private async run(root: string, generation: number): Promise<void> {
    this.runs.get(root)?.abort();
    const controller = new AbortController();
    this.runs.set(root, controller);
    const host: PipelineHost = {
      lookUp: (id, entries) => this.references.verify(id, entries),
      ignored: (id) => this.ignoreList(id),
      model: async () => {
        this.judgingRuns.add(controller);
        const nli = await this.nli.withoutAsking();
        if (nli) this.changed.fire();
        else this.offerModel();
        return nli;
      },
      judgements: this.judgements,
      fullTexts: () => this.fullTexts.provider(),
    };
    const settings = this.config.settings();
    // The environment VS Code was started with, as the CLI reads its own: BIBINPUTS and TEXINPUTS as LaTeX Workshop's builds see them.
    const options = { extraBibliographies: settings.extraBibliographies, reportUnused: settings.reportUnused, environment: process.env };
    try {
      const result = await checkInStages(
        root,
        this.workspace,
        this.session,
        options,
        settings.pipeline,
        host,
        (_stage, staged) => {
          if (this.generations.get(root) !== generation) return controller.abort();
          this.results.set(root, staged);
          this.publish();
        },
        controller.signal,
      );
      if (!result && !controller.signal.aborted && this.generations.get(root) === generation) {
        this.results.delete(root);
        this.publish();
      }
    } catch (error) {
      if (error instanceof UnreadableFileError) {
        this.log.warn(error.message);
        void vscode.window.showWarningMessage(error.message);
        return;
      }
      this.log.error(`Checking ${root} failed`, error);
    } finally {
      if (this.runs.get(root) === controller) this.runs.delete(root);
      if (this.judgingRuns.delete(controller)) this.changed.fire();
    }
  }

  /**
   * Asks once whether to get the NLI model, without holding up the checks: they go on by relevance
   * and are run again when the model is ready.
   */
  private offerModel(): void {
    if (this.modelOffered) return;
    this.modelOffered = true;
    void this.nli.get().then((loaded) => {
      if (loaded) this.recheckAll();
    });
  }

  /** Whether citations are being judged, for the status bar. */
  get judging(): boolean {
    return this.judgingRuns.size > 0;
  }

  /** Stops the support checks under way; their citations keep the verdicts they had. */
  cancelJudging(): void {
    for (const run of this.judgingRuns) run.abort();
  }

  /** The user ignored a verdict: it is stored beside the manuscript, where the CLI honours it too. */
  async ignoreVerdict(file: string, citation: VerdictSubject, ignore?: Parameters<IgnoreList['add']>[1]): Promise<void> {
    const result = this.resultFor(file);
    if (!result) return;
    const list = await this.ignoreList(result.root);
    if (!list) return;
    await list.add(citation, ignore);
    this.schedule(result.root, 0);
  }

  /** The manuscript's ignored verdicts; a damaged list is reported and left as it is for the user to repair. */
  private async ignoreList(root: string): Promise<IgnoreList | undefined> {
    try {
      return await ignoreListOf(root);
    } catch (error) {
      if (!(error instanceof IgnoreFileError)) throw error;
      // Checks run on every pause in typing: say it once, not each time.
      if (!this.reportedIgnoreFiles.has(error.message)) {
        this.reportedIgnoreFiles.add(error.message);
        this.log.warn(error.message);
        void vscode.window.showWarningMessage(error.message);
      }
      return undefined;
    }
  }

  /**
   * Looks every entry of a bibliography up, cited or not, with a cancellable notification; returns the
   * verdicts, or undefined when cancelled or turned off.
   */
  async checkBibliography(file: string): Promise<Verdicts | undefined> {
    const text = await this.workspace.readText(file);
    if (text === undefined) return undefined;
    const { entries } = await this.session.bibliographies.parse(file, text);
    const verdicts = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: entries.length === 1 ? vscode.l10n.t('Looking up 1 reference') : vscode.l10n.t('Looking up {0} references', entries.length),
        cancellable: true,
      },
      (_progress, token) => this.references.verify(`bibliography:${file}`, entries, token),
    );
    if (verdicts) {
      this.bibliographyVerdicts.set(file, verdicts);
      this.publish();
    }
    return verdicts;
  }

  /** What the sources said about an entry of a .bib file, from whichever check looked it up. */
  lookupOf(file: string, key: string): { readonly entry: BibEntry; readonly verdict: ExistenceVerdict } | undefined {
    const fromBibliography = this.bibliographyVerdicts.get(file)?.get(key);
    if (fromBibliography) return fromBibliography;
    for (const result of this.results.values()) {
      const found = result.verdicts?.get(key);
      if (found && found.entry.file === file) return found;
    }
    return undefined;
  }

  /** The findings published for a file. */
  findingsIn(file: string): readonly Finding[] {
    return this.publishedFindings.get(file) ?? [];
  }

  /** Settings or credentials changed: verdicts are reached afresh. */
  referencesChanged(): void {
    this.references.reset();
    this.bibliographyVerdicts.clear();
    this.recheckAll();
  }

  private publish(): void {
    const extra = [...this.bibliographyVerdicts.values()].flatMap((v) => bibliographyFindings(v, this.config.showUnchecked));
    const merged = mergeFindings([...this.results.values()].map(withoutAccepted), extra);
    for (const file of this.publishedFindings.keys()) {
      if (!merged.has(file)) this.diagnostics.delete(vscode.Uri.file(file));
    }
    this.publishedFindings.clear();
    const typing = this.typing;
    const beingTyped = (f: Finding): boolean =>
      f.code === 'missing-key' &&
      f.file === typing?.file &&
      f.range.start.line === typing.position.line &&
      f.range.end.line === typing.position.line &&
      f.range.start.character <= typing.position.character &&
      typing.position.character <= f.range.end.character;
    for (const [file, findings] of merged) {
      this.diagnostics.set(vscode.Uri.file(file), findings.filter((f) => !beingTyped(f)).map(toDiagnostic));
      this.publishedFindings.set(file, findings);
    }
    this.changed.fire();
  }

  /** A .bib file's entries, parsed off the extension host's thread and cached with the checks' own. */
  parseBibliography(file: string, text: string): Promise<Bibliography> {
    return this.session.bibliographies.parse(file, text);
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.changed.dispose();
    void this.parsers.dispose();
  }
}

export function isManuscript(document: vscode.TextDocument): boolean {
  return document.uri.scheme === 'file' && (MANUSCRIPT_LANGUAGES.includes(document.languageId) || languageOf(document.uri.fsPath) !== undefined);
}

/** The workspace's .tex files, where a root that includes a file without a magic comment is looked for. */
async function workspaceTexFiles(): Promise<string[]> {
  const files = await vscode.workspace.findFiles('**/*.tex', '**/{node_modules,.git}/**', MAX_ROOT_CANDIDATES);
  return files.filter((uri) => uri.scheme === 'file').map((uri) => uri.fsPath);
}

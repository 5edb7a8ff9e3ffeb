import * as vscode from 'vscode';
import type { BibEntry } from '../../core/app/bibliography';
import { type CheckResult, languageOf, parseLatex, parseMarkdown } from '../../core/app/pipeline';
import type { EvidenceFinder, EvidenceResults, Paper } from '../../core/app/evidence';
import { ENCODER_NOT_DOWNLOADED_NOTE } from '../../core/app/library';
import type { PassageAtHand } from '../../core/app/services';
import type { Checker } from '../check/checker';
import { EvidenceActions, type CitationTarget, type Outcome } from './evidenceActions';
import { EVIDENCE_PANEL, highlight, itemOf } from './evidencePanel';
import { PanelHost } from '../panelHost';
import { parseWebviewMessage, RESULT_ACTIONS, type PanelMessage, type ResultAction, type ResultsMessage, type VerdictView } from '../../webview/protocol/evidence';

/** What the extension offers other code (and its tests) about Find Evidence. */
export interface EvidenceApi {
  /** Searches from now on go to `finder` instead of the one the extension built; undefined gives that one back. */
  setEvidenceFinder(finder: EvidenceFinder | undefined): void;
  /** Results are judged from now on by `judge` instead of the NLI model; undefined gives the model back. */
  setEvidenceJudge(judge: EvidenceJudge | undefined): void;
}

/**
 * Registers "Attest: Find Evidence for Selection" and its panel. `finder` is asked for the finder
 * at each search, so that building it (loading an index, a model) waits until someone searches.
 * The panel's buttons run `attest.evidence.citeHere`, `.addToBibliography` and `.openPaper` with
 * the result's index, through the same handler as the page's messages.
 */
/** Each found paper's best full-text passage for the claim, when its full text is at hand without asking a service. */
export type PassagesAtHand = (claim: string, papers: readonly Paper[]) => Promise<(PassageAtHand | undefined)[]>;

export function registerFindEvidence(
  context: vscode.ExtensionContext,
  checker: Checker,
  finder: () => Promise<EvidenceFinder>,
  judge?: EvidenceJudge,
  passages?: PassagesAtHand,
): EvidenceApi {
  const feature = new FindEvidence(context.extensionUri, checker, finder, judge, passages);
  context.subscriptions.push(
    feature,
    vscode.commands.registerCommand('attest.findEvidence', () => feature.run()),
    ...RESULT_ACTIONS.map((action) =>
      vscode.commands.registerCommand(`attest.evidence.${action}`, (index: unknown, list?: unknown) =>
        feature.receive({ type: action, index, ...(list !== undefined && { list }) }),
      ),
    ),
  );
  context.subscriptions.push(
    vscode.commands.registerCommand('attest.findEvidenceFor', (uri: vscode.Uri, claim: vscode.Range, replacing?: vscode.Range) => feature.runFor(uri, claim, replacing)),
  );
  return {
    setEvidenceFinder: (replacement) => feature.setFinder(replacement === undefined ? finder : async () => replacement),
    setEvidenceJudge: (replacement) => feature.setJudge(replacement ?? judge),
  };
}

/** The NLI verdict of each result's abstract on the claim, when a model is at hand; undefined where there is none. */
export type EvidenceJudge = (claim: string, papers: readonly Paper[], signal: AbortSignal) => Promise<(VerdictView | undefined)[]>;

/** How many papers a search lists. */
const RESULT_LIMIT = 10;

interface Search {
  readonly claim: string;
  readonly target: Anchor;
  /** Replaced, with a note added, when the run that a first list waited for ends without its final list. */
  results: EvidenceResults;
  /** The run that found it: a first list, from the library alone, is shown while that run goes on. */
  readonly by: AbortController;
  /** A first list, from the library alone, while the open sources are still searched. */
  updating: boolean;
  /** Counts the lists shown, for the page to say which one an action is for. */
  readonly list: number;
  /** Stops the verdicts still being worked out; undefined once they are in, or when none are asked. */
  judging: AbortController | undefined;
  /** The verdicts of the run's papers so far, by `judgedAs`, which the list shows: its first list and its final one share most papers. */
  readonly judged: Map<string, VerdictView | undefined>;
  /** The run's first list, which the final one replaced: a button pressed there before the page had the final list still means its paper. */
  readonly replaced?: Search;
}

/** A paper as its verdict stands for it: a source may give the same paper with a fuller abstract. */
function judgedAs(paper: Paper): string {
  return JSON.stringify([paper.id, paper.title, paper.abstract ?? null]);
}

class FindEvidence implements vscode.Disposable {
  private readonly panel: PanelHost<PanelMessage>;
  private readonly actions: EvidenceActions;
  /** The search the panel shows; its actions refer to it by result index. */
  private search: Search | undefined;
  /** The list as last shown, and what it was composed from: to tell whether a refresh changes it, and to add the verdicts to it. */
  private shown: { readonly view: ResultsMessage; readonly parts: ViewParts } | undefined;
  private running: AbortController | undefined;
  private lists = 0;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    extensionUri: vscode.Uri,
    private readonly checker: Checker,
    private finder: () => Promise<EvidenceFinder>,
    private judge: EvidenceJudge | undefined,
    private readonly passages: PassagesAtHand | undefined,
  ) {
    this.actions = new EvidenceActions(checker);
    this.panel = new PanelHost<PanelMessage>(EVIDENCE_PANEL, extensionUri, (message) => void this.receive(message));
    this.subscriptions.push(
      this.panel,
      this.panel.onDidClose(() => this.closed()),
      // An entry added or removed elsewhere (an undo, a reference manager) changes what the list says is in the bibliography.
      checker.onDidChange(() => void this.refresh()),
    );
  }

  setFinder(finder: () => Promise<EvidenceFinder>): void {
    this.finder = finder;
  }

  setJudge(judge: EvidenceJudge | undefined): void {
    this.judge = judge;
  }

  /** Searches for the active editor's selection; resolves to what the panel then lists. */
  async run(): Promise<ResultsMessage | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.selection.isEmpty) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Select the sentence to find evidence for.'));
      return undefined;
    }
    const { document, selection } = editor;
    const claim = plainText(document, selection);
    if (claim === '') {
      void vscode.window.showInformationMessage(vscode.l10n.t('The selection holds no text to search for.'));
      return undefined;
    }
    return this.find(claim, new Anchor(document.uri, document.offsetAt(selection.end)));
  }

  /**
   * Searches for the sentence at `claim` in `uri`; with `replacing`, the range of a cited key (one no
   * source knows), Cite here replaces that key instead of citing after the sentence.
   */
  async runFor(uri: vscode.Uri, claim: vscode.Range, replacing?: vscode.Range): Promise<ResultsMessage | undefined> {
    const editor = await vscode.window.showTextDocument(uri);
    editor.selection = new vscode.Selection(claim.start, claim.end);
    if (!replacing) return this.run();
    const text = plainText(editor.document, editor.selection);
    if (text === '') return undefined;
    return this.find(text, new Anchor(uri, editor.document.offsetAt(replacing.end), editor.document.getText(replacing)));
  }

  /**
   * Searches for `claim`, to be cited at `target`. The papers are listed as soon as they are found,
   * ready to cite; each one's verdict follows once the NLI model has judged it. Resolves to what the
   * panel then lists, verdicts included.
   */
  private async find(claim: string, target: Anchor): Promise<ResultsMessage | undefined> {
    this.running?.abort();
    this.search?.judging?.abort();
    const controller = new AbortController();
    this.running = controller;
    this.panel.show({ type: 'searching', claim });
    const judged = new Map<string, VerdictView | undefined>();
    // The library's papers, listed while the open sources are searched; the list with theirs replaces it.
    const onLibraryResults = (first: EvidenceResults): void => {
      // A first list that cannot be shown leaves the page as it was until the final one.
      if (this.running === controller) this.present(this.searchOf(claim, target, first, controller, true, judged)).catch(() => undefined);
    };
    let results: EvidenceResults;
    try {
      results = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Finding evidence'), cancellable: true },
        async (_progress, token) => {
          const cancel = token.onCancellationRequested(() => controller.abort());
          try {
            const finder = await this.finder();
            return await finder.find({ text: claim, limit: RESULT_LIMIT, signal: controller.signal, onLibraryResults });
          } finally {
            cancel.dispose();
          }
        },
      );
      controller.signal.throwIfAborted();
    } catch (error) {
      const first = this.search?.by === controller ? this.search : undefined;
      // A newer search has taken over the panel, or nobody is looking any more.
      if (this.running !== controller) {
        if (first === undefined) target.dispose();
        return undefined;
      }
      if (first) {
        // Cancelled, or failed, while the open sources were searched: the library's list stays, saying so.
        first.updating = false;
        const why = controller.signal.aborted
          ? vscode.l10n.t('The search of the open sources was cancelled: the papers are from your library alone.')
          : vscode.l10n.t('The search of the open sources failed ({0}): the papers are from your library alone.', error instanceof Error ? error.message : String(error));
        first.results = { ...first.results, notes: [...first.results.notes, why] };
        return this.showList(first, await this.actions.resultOf(target.uri));
      }
      // The list before it is gone from the page, its judging stopped: nothing may show it again.
      this.clear();
      target.dispose();
      const message = controller.signal.aborted
        ? vscode.l10n.t('The search was cancelled.')
        : vscode.l10n.t('The search failed: {0}', error instanceof Error ? error.message : String(error));
      this.panel.show({ type: 'failed', claim, message });
      return undefined;
    } finally {
      if (this.running === controller) this.running = undefined;
    }
    const replaced = this.search?.by === controller ? this.search : undefined;
    return this.present({ ...this.searchOf(claim, target, results, controller, false, judged), replaced });
  }

  /** A list to show; judged where the run's first list has not judged its papers already. */
  private searchOf(claim: string, target: Anchor, results: EvidenceResults, by: AbortController, updating: boolean, judged: Map<string, VerdictView | undefined>): Search {
    const papers = results.results.map((r) => r.paper);
    const unjudged = this.judge !== undefined && papers.some((paper) => !judged.has(judgedAs(paper)));
    return {
      claim,
      target,
      results,
      by,
      updating,
      list: ++this.lists,
      judging: unjudged ? new AbortController() : undefined,
      judged,
    };
  }

  /**
   * Shows `search`'s list in place of the one before, then works out its verdicts; resolves to the list
   * as it then stands, or undefined once the panel has moved on.
   */
  private async present(search: Search): Promise<ResultsMessage | undefined> {
    this.clear(search.target);
    this.search = search;
    const listed = await this.showList(search, await this.actions.resultOf(search.target.uri));
    return search.judging && listed ? this.judgeResults(search, search.judging.signal) : listed;
  }

  /** Works out the verdicts of `search`'s results and adds them to the list the page shows, in place. */
  private async judgeResults(search: Search, signal: AbortSignal): Promise<ResultsMessage | undefined> {
    const papers = search.results.results.map((r) => r.paper);
    const unjudged = papers.filter((paper) => !search.judged.has(judgedAs(paper)));
    // A verdict that cannot be reached leaves the result without one; the list itself stands.
    const verdicts = await this.judge?.(search.claim, unjudged, signal).catch(() => undefined);
    // A newer search or list, or the panel's closing, stopped this one's judging.
    if (signal.aborted) return undefined;
    // A judging that failed is not a verdict: the run's final list asks again.
    if (verdicts) unjudged.forEach((paper, at) => search.judged.set(judgedAs(paper), verdicts[at]));
    if (this.search !== search) return undefined;
    search.judging = undefined;
    // In the same step as the verdicts are set: a list composed from now on has them, and the one the
    // page has gets them. Only the verdicts change: the page keeps what the user did meanwhile.
    const parts = this.shown?.parts;
    if (parts === undefined) return undefined;
    const view = compose(search, parts);
    this.shown = { view, parts };
    this.panel.post({ type: 'verdicts', list: search.list, verdicts: view.items.map((item) => item.verdict ?? null) }, view);
    return view;
  }

  /** A message from the page, or a command standing in for one: checked, then acted on. */
  async receive(value: unknown): Promise<Outcome | undefined> {
    const message = parseWebviewMessage(value);
    if (message === undefined) return undefined;
    if (message.type === 'ready') {
      this.panel.resend();
      return undefined;
    }
    if (message.type === 'downloadEncoder') {
      await this.downloadEncoder();
      return undefined;
    }
    const search = this.search;
    // Pressed in the list the page shows, which may still be the run's first list while its final one is composed.
    const pressedIn = message.list === undefined || message.list === search?.list ? search : search?.replaced?.list === message.list ? search.replaced : undefined;
    const evidence = pressedIn?.results.results[message.index];
    if (!search || !evidence) return undefined;
    const outcome = await this.act(message.type, search.target, evidence.paper);
    // The list moved on to another search while the action ran, or the page now shows another list: its indices mean other papers.
    if (this.search !== search || pressedIn !== search) return outcome;
    if (message.type !== 'openPaper' && !(await this.showList(search, this.checker.resultFor(search.target.uri.fsPath)))) return outcome;
    this.panel.post({ type: 'outcome', index: message.index, ...outcome });
    return outcome;
  }

  private async act(action: ResultAction, target: Anchor, paper: Paper): Promise<Outcome> {
    try {
      switch (action) {
        case 'citeHere':
          return await (target.replacing === undefined ? this.actions.citeHere(target, paper) : this.actions.replaceCitation(target, target.replacing, paper));
        case 'addToBibliography':
          return await this.actions.addToBibliography(target.uri, paper);
        case 'openPaper':
          return await this.actions.openPaper(paper);
      }
    } catch (error) {
      return { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Shows `search`'s list; undefined when, by then, the panel has moved on to another search or was closed. */
  private async showList(search: Search, manuscript: CheckResult | undefined): Promise<ResultsMessage | undefined> {
    const parts = await this.viewParts(search, manuscript);
    // A newer search shows "Looking for evidence…" until its own list replaces this one.
    if (!this.showing(search)) return undefined;
    const view = compose(search, parts);
    this.shown = { view, parts };
    this.panel.show(view);
    return view;
  }

  /** Whether `search` is the panel's: the last list, and no newer search under way. */
  private showing(search: Search): boolean {
    return this.search === search && (this.running === undefined || this.running === search.by);
  }

  /** Shows the list again when which papers the bibliographies have changed; otherwise leaves the page (and its outcome lines) alone. */
  private async refresh(): Promise<void> {
    const search = this.search;
    const manuscript = search && this.checker.resultFor(search.target.uri.fsPath);
    if (!search || !manuscript || !this.showing(search)) return;
    const parts = await this.viewParts(search, manuscript);
    if (!this.showing(search)) return;
    const view = compose(search, parts);
    const before = this.shown?.view.items.map((i) => i.existing);
    if (JSON.stringify(view.items.map((i) => i.existing)) !== JSON.stringify(before)) {
      this.shown = { view, parts };
      this.panel.show(view);
    }
  }

  /** What the list shows beside the search's own results: each paper's entry if a bibliography of the manuscript has it already, and its full-text passage. */
  private async viewParts(search: Search, manuscript: CheckResult | undefined): Promise<ViewParts> {
    const papers = search.results.results.map((r) => r.paper);
    const existing = manuscript ? await this.actions.existingEntries(manuscript, papers) : [];
    const passages = (await this.passages?.(search.claim, papers).catch(() => undefined)) ?? [];
    const cited = manuscript ? await keysCitedAt(manuscript, search.target) : new Set<string>();
    return { existing, passages, citedHere: existing.map((entry) => entry !== undefined && cited.has(entry.key)) };
  }

  /**
   * The page's Download button: the encoder's download, with the progress and cancel of the command,
   * then the same search again, now also by meaning once the library's papers are embedded.
   */
  private async downloadEncoder(): Promise<void> {
    await vscode.commands.executeCommand('attest.downloadEncoder');
    const search = this.search;
    // From a first list, the search under way ranks without the encoder: the new one takes its place.
    if (search && this.showing(search)) await this.find(search.claim, new Anchor(search.target.uri, search.target.offset, search.target.replacing));
  }

  /** Nobody is looking any more: a search under way is of no use, and must not open the panel again. */
  private closed(): void {
    this.running?.abort();
    this.running = undefined;
    this.clear();
  }

  /** Forgets the list shown and stops its judging; its place in the manuscript too, unless the next list cites there (`keeping`). */
  private clear(keeping?: Anchor): void {
    this.search?.judging?.abort();
    if (this.search?.target !== keeping) this.search?.target.dispose();
    this.search = undefined;
    this.shown = undefined;
  }

  dispose(): void {
    this.running?.abort();
    this.clear();
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}

interface ViewParts {
  readonly existing: readonly (BibEntry | undefined)[];
  readonly passages: readonly (PassageAtHand | undefined)[];
  /** Whether the sentence searched for cites each paper already (by its existing entry's key). */
  readonly citedHere: readonly boolean[];
}

/** The keys the sentence around `target` cites: Cite here would only cite one of them again. */
async function keysCitedAt(manuscript: CheckResult, target: CitationTarget): Promise<Set<string>> {
  const file = target.uri.fsPath;
  const document = await vscode.workspace.openTextDocument(target.uri);
  const at = document.positionAt(target.offset);
  const around = manuscript.citations.filter(({ claim, file: cited }) => {
    if (cited !== file || !claim) return false;
    const { start, end } = claim.range;
    return new vscode.Range(start.line, start.character, end.line, end.character).contains(at);
  });
  return new Set(around.map((c) => c.key));
}

/**
 * The search as the page lists it, with its verdicts as they are now: composed in one step with the
 * page's being sent it, so that verdicts set meanwhile are never left out.
 */
function compose(search: Search, { existing, passages, citedHere }: ViewParts): ResultsMessage {
  const { claim, results, judged, judging } = search;
  return {
    type: 'results',
    list: search.list,
    claim,
    mode: results.mode,
    notes: results.notes,
    ...(results.notes.includes(ENCODER_NOT_DOWNLOADED_NOTE) && { encoderDownload: true }),
    ...(search.target.replacing !== undefined && { replacing: search.target.replacing }),
    ...(judging && { judging: true }),
    ...(search.updating && { updating: true }),
    items: results.results.map((evidence, i) => {
      const passage = passages[i];
      const verdict = judged.get(judgedAs(evidence.paper));
      return {
        ...itemOf(evidence, claim, existing[i]),
        ...(verdict !== undefined && { verdict }),
        ...(citedHere[i] && { citedHere: true }),
        ...(passage && { passage: { place: passage.place, text: highlight(passage.text, claim) } }),
      };
    }),
  };
}

/**
 * The end of the selection a search was made for, kept in place while the document is edited, so
 * that "Cite here" still cites after the same words when the user has typed elsewhere meanwhile.
 */
class Anchor implements CitationTarget, vscode.Disposable {
  private current: number;
  private readonly listener: vscode.Disposable;

  /** @param replacing the cited key that ends at `offset`, when the search is to replace it */
  constructor(
    readonly uri: vscode.Uri,
    offset: number,
    readonly replacing?: string,
  ) {
    this.current = offset;
    this.listener = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.toString() === uri.toString()) this.current = shifted(this.current, e.contentChanges);
    });
  }

  get offset(): number {
    return this.current;
  }

  dispose(): void {
    this.listener.dispose();
  }
}

/**
 * `offset` after `changes`, whose ranges all refer to the text before them: text inserted at or
 * before it pushes it on, text replaced across it puts it at the end of the replacement.
 */
function shifted(offset: number, changes: readonly vscode.TextDocumentContentChangeEvent[]): number {
  let delta = 0;
  for (const change of changes) {
    const end = change.rangeOffset + change.rangeLength;
    if (end <= offset) delta += change.text.length - change.rangeLength;
    else if (change.rangeOffset < offset) delta += change.rangeOffset + change.text.length - offset;
  }
  return offset + delta;
}

/** The selection with markup and citations removed, as the manuscript's parser reads prose. */
/** The selection as a claim: its sentences with markup and citation commands removed. */
export function plainText(document: vscode.TextDocument, selection: vscode.Selection): string {
  const text = document.getText(selection);
  const file = document.uri.fsPath;
  const language = languageOf(file) ?? (document.languageId === 'latex' ? 'latex' : 'markdown');
  const parsed = language === 'markdown' ? parseMarkdown(text, file) : parseLatex(text, file);
  return parsed.claims
    .map((c) => c.text)
    .join(' ')
    .trim();
}

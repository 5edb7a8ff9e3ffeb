/**
 * "Attest: Suggest Cited Text": a language model drafts text for the selection from papers Attest
 * retrieved, the core keeps only citations of those papers and checks each sentence, and the panel
 * shows the result. The document changes only on Accept, in one edit with the new .bib entries.
 * Nothing is sent before the user has seen what will be, once per workspace and endpoint.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { distinctPapers, type EvidenceFinder } from '../../core/app/evidence';
import type { LocalModel, NliModel } from '../../core/app/models';
import {
  acceptedSentences,
  describeOutgoing,
  type DraftLimits,
  endpointName,
  insertionText,
  type Llm,
  LlmError,
  type LlmSettings,
  MAX_SOURCES,
  OpenAiLlm,
  type SentenceJudge,
  suggest,
  type SuggestedSentence,
  type Suggestion,
  type SuggestProgress,
  supportJudge,
} from '../../core/app/suggest';
import { SOURCE_NAMES } from '../../core/app/services';
import type { Checker } from '../check/checker';
import { Config } from '../config';
import { EvidenceActions, type Outcome } from '../evidence/evidenceActions';
import { plainText, type EvidenceApi } from '../evidence/findEvidence';
import { SUGGEST_PANEL, suggestionView } from './suggestPanel';
import { PanelHost } from '../panelHost';
import { parseWebviewMessage, type Fix, type PanelMessage, type SuggestionMessage } from '../../webview/protocol/suggest';

export interface SuggestDependencies {
  readonly checker: Checker;
  readonly config: Config;
  readonly nli: LocalModel<NliModel>;
  /** Asked at each suggestion, so that building it (an index, a model) waits until someone asks. */
  readonly finder: () => Promise<EvidenceFinder>;
}

/**
 * Registers "Attest: Suggest Cited Text" and its panel, "Attest: Set LLM API Key" and "Attest: Allow
 * Requests to the Language Model". The panel's Accept runs `attest.suggest.accept`, through the same
 * handler as the page's message. Returns the way to give suggestions a fixed finder, as Find Evidence's.
 */
/** What the extension offers its tests about suggestions, besides the finder. */
export interface SuggestApi extends Pick<EvidenceApi, 'setEvidenceFinder'> {
  /** Sentences are judged from now on by `judge` instead of the support check (undefined: the support check again). */
  setSentenceJudge(judge: SentenceJudge | undefined): void;
}

export function registerSuggest(context: vscode.ExtensionContext, deps: SuggestDependencies): SuggestApi {
  const feature = new SuggestCitedText(context, deps);
  context.subscriptions.push(
    feature,
    vscode.commands.registerCommand('attest.suggestCitedText', () => feature.run()),
    // A plain Accept inserts the supported sentences; `unconfirmed` names the unconfirmed ones ticked besides.
    vscode.commands.registerCommand('attest.suggest.accept', (choice?: { unconfirmed?: unknown }) => feature.receive({ type: 'accept', unconfirmed: choice?.unconfirmed ?? [] })),
    vscode.commands.registerCommand('attest.allowLlmRequests', () => feature.allow()),
    vscode.commands.registerCommand('attest.setLlmApiKey', () => setLlmApiKey(context.secrets)),
  );
  return {
    setEvidenceFinder: (replacement) => feature.setFinder(replacement === undefined ? deps.finder : async () => replacement),
    setSentenceJudge: (judge) => feature.setJudge(judge),
  };
}

/** The endpoint the user allowed requests to, in this workspace. */
const CONSENT_KEY = 'attest.llm.allowedEndpoint';

/** A suggestion on show, and where it was asked for. */
interface Shown {
  readonly uri: vscode.Uri;
  readonly selection: SelectedText;
  readonly suggestion: Suggestion;
  view: SuggestionMessage;
}

/** A consent prompt on show in the panel, waiting for Send or Cancel. */
interface PendingConsent {
  readonly endpoint: string;
  readonly answer: (allowed: boolean) => void;
}

class SuggestCitedText implements vscode.Disposable {
  private readonly panel: PanelHost<PanelMessage>;
  private readonly actions: EvidenceActions;
  private shown: Shown | undefined;
  private running: AbortController | undefined;
  private consent: PendingConsent | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  private finder: () => Promise<EvidenceFinder>;
  private fixedJudge: SentenceJudge | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly deps: SuggestDependencies,
  ) {
    this.finder = deps.finder;
    this.actions = new EvidenceActions(deps.checker);
    this.panel = new PanelHost<PanelMessage>(SUGGEST_PANEL, context.extensionUri, (message) => void this.receive(message));
    this.subscriptions.push(
      this.panel,
      this.panel.onDidClose(() => this.closed()),
    );
  }

  setFinder(finder: () => Promise<EvidenceFinder>): void {
    this.finder = finder;
  }

  setJudge(judge: SentenceJudge | undefined): void {
    this.fixedJudge = judge;
  }

  /** Suggests text for the active editor's selection; resolves to what the panel then shows. */
  async run(): Promise<SuggestionMessage | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.selection.isEmpty) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Select the claim or note to suggest cited text for.'));
      return undefined;
    }
    const { document } = editor;
    const selection = selectedText(document, editor.selection);
    if (selection.plain === '') {
      void vscode.window.showInformationMessage(vscode.l10n.t('The selection holds no text to suggest for.'));
      return undefined;
    }
    const settings = await this.settings();
    if (!settings) return undefined;
    let llm: Llm;
    try {
      llm = new OpenAiLlm(settings);
    } catch (error) {
      if (error instanceof LlmError) notConfigured(error.message);
      else throw error;
      return undefined;
    }

    this.stop();
    this.shown = undefined;
    const claim = selection.plain;
    if (!(await this.allowed(claim, settings))) return undefined;
    const controller = new AbortController();
    this.running = controller;
    try {
      const suggestion = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Suggesting cited text'), cancellable: true },
        async (progress, token) => {
          const cancel = token.onCancellationRequested(() => controller.abort());
          // A token may still arrive after the panel was closed; it must not open the panel again.
          const show = (state: PanelMessage): void => {
            if (!controller.signal.aborted) this.panel.show(state);
          };
          const draft = new DraftView(claim, { show, post: (message, state) => !controller.signal.aborted && this.panel.post(message, state) }, (stage) =>
            progress.report({ message: stage }),
          );
          try {
            draft.starting(vscode.l10n.t('Opening the paper library…'));
            return await suggest({
              selection: claim,
              finder: await this.finder(),
              llm: draft.streaming(llm),
              judge: this.fixedJudge ?? this.judge(),
              limits: settings.limits,
              signal: controller.signal,
              onProgress: (p) => draft.progress(p),
            });
          } finally {
            cancel.dispose();
            draft.dispose();
          }
        },
      );
      const view = await this.view(document.uri, claim, suggestion);
      controller.signal.throwIfAborted();
      this.shown = { uri: document.uri, selection, suggestion, view };
      this.panel.show(view);
      return view;
    } catch (error) {
      // A newer suggestion has taken over the panel, or nobody is looking any more.
      if (this.running !== controller) return undefined;
      this.panel.show(failure(claim, controller.signal.aborted ? undefined : error));
      return undefined;
    } finally {
      if (this.running === controller) this.running = undefined;
    }
  }

  /** A message from the page, or a command standing in for one: checked, then acted on. */
  async receive(value: unknown): Promise<Outcome | undefined> {
    const message = parseWebviewMessage(value);
    switch (message?.type) {
      case 'ready':
        this.panel.resend();
        return undefined;
      case 'send':
        if (this.consent) await this.allow(this.consent.endpoint);
        return undefined;
      case 'cancel':
        if (this.consent) this.panel.close();
        else this.running?.abort();
        return undefined;
      case 'discard':
        this.panel.close();
        return undefined;
      case 'accept':
        return this.accept(new Set(message.unconfirmed));
      case 'openPaper': {
        const paper = this.shown?.suggestion.sources[message.source - 1];
        return paper && this.actions.openPaper(paper);
      }
      case 'openSettings':
        await openLlmSettings();
        return undefined;
      case 'setApiKey':
        await vscode.commands.executeCommand('attest.setLlmApiKey');
        return undefined;
      case undefined:
        return undefined;
    }
  }

  /**
   * "Attest: Allow Requests to the Language Model", and the panel's Send: from now on, suggestions in
   * this workspace may send to `endpoint` (by default the configured one) without asking.
   */
  async allow(endpoint?: string): Promise<void> {
    const configured = endpoint === undefined ? await this.settings() : undefined;
    const allowed = endpoint ?? (configured && endpointName(configured.baseUrl));
    if (allowed === undefined) return;
    await this.context.workspaceState.update(CONSENT_KEY, allowed);
    const pending = this.consent;
    if (pending?.endpoint === allowed) {
      this.consent = undefined;
      pending.answer(true);
    } else if (endpoint === undefined) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Suggestions in this workspace may now send requests to {0}.', allowed));
    }
  }

  /** Inserts the suggestion after the selection it was made for, citing in the manuscript's style, with the new .bib entries, as one edit. */
  private async accept(unconfirmed: ReadonlySet<number>): Promise<Outcome | undefined> {
    const shown = this.shown;
    if (!shown || shown.suggestion.outcome !== 'drafted') return undefined;
    if (shown.view.accepted?.ok) return { ok: false, message: vscode.l10n.t('This suggestion is in the document already.') };
    let outcome: Outcome;
    try {
      outcome = await this.insert(shown, acceptedSentences(shown.suggestion.sentences, unconfirmed));
    } catch (error) {
      outcome = { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    // Another suggestion has taken over the panel meanwhile.
    if (this.shown !== shown) return outcome;
    // The sources just added are in the bibliography now.
    shown.view = { ...(outcome.ok ? await this.view(shown.uri, shown.view.selection, shown.suggestion) : shown.view), accepted: outcome };
    this.panel.show(shown.view);
    return outcome;
  }

  private async insert({ uri, selection }: Shown, sentences: readonly SuggestedSentence[]): Promise<Outcome> {
    if (sentences.length === 0) {
      return { ok: false, message: vscode.l10n.t('Nothing to insert: no sentence is supported. Tick the unconfirmed sentences you want, then Accept.') };
    }
    const papers = distinctPapers(sentences.flatMap((s) => s.citations));
    const cited = await this.actions.insertCiting(uri, papers, (text, keys, style) => {
      const at = followingText(text, selection);
      const keyOf = new Map(papers.map((paper, i) => [paper.id, keys[i]]));
      const written = insertionText(
        sentences.map((s) => ({ text: s.text, keys: s.citations.flatMap((paper) => keyOf.get(paper.id) ?? []) })),
        style,
      );
      return { offset: at, length: 0, text: (/\s/.test(text[at - 1] ?? ' ') ? '' : ' ') + written };
    });
    if (!cited.ok) return cited;
    const inserted = cited.keys.length > 0 ? vscode.l10n.t('Inserted after the selection, citing {0}.', cited.keys.join(', ')) : vscode.l10n.t('Inserted after the selection.');
    return {
      ok: true,
      message: cited.added ? `${inserted} ${vscode.l10n.t('Added {0} to {1}.', cited.added.keys.join(', '), path.basename(cited.added.file))}` : inserted,
    };
  }

  /** The suggestion as the panel shows it, with the entries the manuscript's bibliographies have for its sources. */
  private async view(uri: vscode.Uri, selection: string, suggestion: Suggestion): Promise<SuggestionMessage> {
    const result = await this.actions.resultOf(uri);
    const existing = result ? await this.actions.existingEntries(result, suggestion.sources) : [];
    return suggestionView(selection, suggestion, existing);
  }

  /** Whether requests may go to the settings' endpoint: asked in the panel the first time, and whenever the endpoint changes. */
  private async allowed(claim: string, settings: LlmSettings & { readonly limits: DraftLimits }): Promise<boolean> {
    const endpoint = endpointName(settings.baseUrl);
    if (this.context.workspaceState.get<string>(CONSENT_KEY) === endpoint) return true;
    const outgoing = await describeOutgoing(claim, settings, MAX_SOURCES, settings.limits.maxSentences);
    this.panel.show({ type: 'consent', selection: claim, endpoint: outgoing.endpoint, outgoing: outgoing.text, liveSearch: this.liveSearch() });
    return new Promise((answer) => (this.consent = { endpoint, answer }));
  }

  /** Where the search queries go besides the model, in words for the consent prompt. */
  private liveSearch(): string {
    const { config } = this.deps.config.sources();
    const live = this.deps.config.settings().retrieval.liveSearch && !config.offline && config.enabled.length > 0;
    return live
      ? vscode.l10n.t(
          'Live source searches are on (attest.retrieval.liveSearch): the search queries are also sent to {0}.',
          config.enabled.map((id) => SOURCE_NAMES[id]).join(', '),
        )
      : vscode.l10n.t('Live source searches are off (attest.retrieval.liveSearch): papers are searched for on this machine only.');
  }

  /** The model's settings with the key stored for its endpoint, and the draft limits; undefined (and the user told) when no model is configured. */
  private async settings(): Promise<(LlmSettings & { readonly limits: DraftLimits }) | undefined> {
    const { llm, limits } = this.deps.config.settings().suggest;
    if (!llm.baseUrl || !llm.model) {
      notConfigured(
        vscode.l10n.t(
          'Suggest Cited Text needs a language model: set attest.llm.model, and attest.llm.baseUrl for a server other than OpenAI (e.g. http://localhost:11434/v1 for Ollama).',
        ),
      );
      return undefined;
    }
    return { ...llm, limits, apiKey: (await this.context.secrets.get(secretKey(llm.baseUrl))) || undefined };
  }

  /**
   * The support check with the NLI model when there is one. The model is asked for only when the
   * first sentence is checked, so the draft need not wait for it to load (or for an answer to its
   * download prompt), and a cancel does not wait for it either.
   */
  private judge(): SentenceJudge {
    let judge: Promise<SentenceJudge> | undefined;
    return async (claim, passages, signal) => {
      judge ??= this.deps.nli.get().then((nli) => supportJudge({ nli, thresholds: this.deps.config.thresholds }));
      return (await abortable(judge, signal))(claim, passages, signal);
    };
  }

  /** A suggestion under way or waiting for consent is of no use any more. */
  private stop(): void {
    this.running?.abort();
    this.running = undefined;
    const pending = this.consent;
    this.consent = undefined;
    pending?.answer(false);
  }

  private closed(): void {
    this.stop();
    this.shown = undefined;
  }

  dispose(): void {
    this.stop();
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}

/** How often the panel hears of a streaming draft: often enough to read along, rarely enough not to flood it. */
const DRAFT_UPDATE_MS = 150;

/**
 * The panel's view of a suggestion under way: the stage, and the draft as the model writes it. The
 * draft is streamed through the model's `onToken` and sent on in pieces, at most every
 * DRAFT_UPDATE_MS; the core's progress says when a draft starts over.
 */
class DraftView implements vscode.Disposable {
  private draft = '';
  /** How much of `draft` the page has. */
  private sent = 0;
  private stage = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly selection: string,
    private readonly panel: { show(state: PanelMessage): void; post(message: PanelMessage, state: PanelMessage): void },
    private readonly report: (stage: string) => void,
  ) {}

  /** `llm`, with the pieces of each streamed reply also kept for the panel. */
  streaming(llm: Llm): Llm {
    return {
      complete: (messages, options) => {
        const onToken = options?.onToken;
        if (!onToken) return llm.complete(messages, options);
        return llm.complete(messages, {
          ...options,
          onToken: (piece) => {
            this.draft += piece;
            this.timer ??= setTimeout(() => this.flush(), DRAFT_UPDATE_MS);
            onToken(piece);
          },
        });
      },
    };
  }

  /** What happens before the core reports progress of its own. */
  starting(stage: string): void {
    this.update(stage);
  }

  progress(progress: SuggestProgress): void {
    if (progress.stage === 'drafting' && progress.characters === 0) this.draft = '';
    const stage = stageText(progress);
    // Each streamed piece reports progress too; only a new stage, or a draft starting over, redraws the page.
    if (stage !== this.stage || this.sent > this.draft.length) this.update(stage);
  }

  private update(stage: string): void {
    if (stage !== this.stage) this.report(stage);
    this.stage = stage;
    this.sent = this.draft.length;
    this.panel.show(this.state());
  }

  private flush(): void {
    this.timer = undefined;
    if (this.draft.length <= this.sent) return;
    const text = this.draft.slice(this.sent);
    this.sent = this.draft.length;
    this.panel.post({ type: 'draftMore', selection: this.selection, text }, this.state());
  }

  private state(): PanelMessage {
    return { type: 'working', selection: this.selection, stage: this.stage, draft: this.draft };
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}

function stageText(progress: SuggestProgress): string {
  switch (progress.stage) {
    case 'queries':
      return vscode.l10n.t('Asking the model for search queries…');
    case 'searching':
      return vscode.l10n.t('Searching for papers: {0}', progress.queries.join('; '));
    case 'drafting':
      return progress.sources === 1 ? vscode.l10n.t('Drafting from 1 source…') : vscode.l10n.t('Drafting from {0} sources…', progress.sources);
    case 'checking':
      return progress.sentences === 1
        ? vscode.l10n.t('Checking 1 sentence against the passages it cites…')
        : vscode.l10n.t('Checking {0} sentences against the passages they cite…', progress.sentences);
  }
}

/** Why there is no suggestion, for the panel; `error` undefined when the user cancelled. */
function failure(selection: string, error: unknown): PanelMessage {
  if (error === undefined) return { type: 'failed', selection, message: vscode.l10n.t('The suggestion was cancelled; nothing was changed.') };
  if (!(error instanceof LlmError)) {
    return { type: 'failed', selection, message: vscode.l10n.t('The suggestion failed: {0}', error instanceof Error ? error.message : String(error)) };
  }
  const fixes: Partial<Record<LlmError['kind'], Fix>> = { auth: 'apiKey', 'not-configured': 'settings', 'not-found': 'settings', unreachable: 'settings' };
  return { type: 'failed', selection, message: error.message, fix: fixes[error.kind] };
}

function notConfigured(message: string): void {
  const open = vscode.l10n.t('Open Settings');
  void vscode.window.showInformationMessage(message, open).then((choice) => (choice === open ? openLlmSettings() : undefined));
}

async function openLlmSettings(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.openSettings', 'attest.llm');
}

/** The key is kept for the endpoint it was given for: an endpoint a workspace's settings point elsewhere never receives it. */
function secretKey(baseUrl: string): string {
  return `attest.llm.apiKey:${endpointName(baseUrl)}`;
}

/** "Attest: Set LLM API Key": kept in the editor's secret storage for the configured endpoint, never in settings. */
async function setLlmApiKey(secrets: vscode.SecretStorage): Promise<void> {
  const baseUrl = new Config().settings().suggest.llm.baseUrl;
  if (!baseUrl) {
    notConfigured(vscode.l10n.t('Set attest.llm.baseUrl first: the key is kept for that endpoint.'));
    return;
  }
  const endpoint = endpointName(baseUrl);
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('API key for {0}', endpoint),
    prompt: vscode.l10n.t('Leave empty to remove the stored key. Servers on this machine usually need none.'),
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) return;
  if (value.trim() === '') await secrets.delete(secretKey(baseUrl));
  else await secrets.store(secretKey(baseUrl), value.trim());
  void vscode.window.showInformationMessage(
    value.trim() === '' ? vscode.l10n.t('The API key for {0} was removed.', endpoint) : vscode.l10n.t('The API key for {0} was saved.', endpoint),
  );
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The selection as written, where it was, and as prose. */
interface SelectedText {
  readonly source: string;
  readonly offset: number;
  /** Markup and citations removed, as the manuscript's parser reads prose: what the model is given. */
  readonly plain: string;
}

function selectedText(document: vscode.TextDocument, selection: vscode.Selection): SelectedText {
  return { source: document.getText(selection), offset: document.offsetAt(selection.start), plain: plainText(document, selection) };
}

/**
 * Where the suggestion goes in `text`: after the selected text (its occurrence nearest to where it
 * was, since the document may have been edited meanwhile), and after a citation and the full stop
 * that close it, which belong to the selected sentence.
 */
function followingText(text: string, selection: SelectedText): number {
  let best = -1;
  for (let at = text.indexOf(selection.source); at >= 0; at = text.indexOf(selection.source, at + 1)) {
    if (best < 0 || Math.abs(at - selection.offset) < Math.abs(best - selection.offset)) best = at;
  }
  if (best < 0) throw new Error(vscode.l10n.t('The selected text is no longer in the document, so there is nowhere to put the suggestion; select it again and ask anew.'));
  let end = best + selection.source.length;
  while (end > best && /\s/.test(text[end - 1])) end--;
  return end + (CLOSING.exec(text.slice(end))?.[0].length ?? 0);
}

/** Citations attached to the end of a sentence (`~\citep{a}`, ` [@a]`), then its closing punctuation. */
const CLOSING = /^(?:[ \t]*~?\\[A-Za-z]*cite[A-Za-z]*\*?(?:\s*\[[^\]]*\])*\s*\{[^}]*\}|[ \t]*\[[^\]]*@[^\]]*\])*[.!?]?/;

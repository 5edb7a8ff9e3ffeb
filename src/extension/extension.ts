import * as vscode from 'vscode';
import { analyze, judgePapers } from '../core/app/support';
import { SourceGates } from '../core/app/services';
import type { VerdictSubject } from '../core/app/pipeline';
import { createModels } from '../core/app/models';
import { ABSTRACT_SCHEME, AbstractView } from './evidence/abstractView';
import { Checker, isManuscript, MANUSCRIPT_LANGUAGES } from './check/checker';
import { CitationCodeActionProvider } from './check/codeActions';
import { ignoreRetraction } from './check/retraction';
import { checkReferencesCommand, setSourceApiKeyCommand, showEvidence } from './commands';
import { setSolrCredentialsCommand } from './library/solrCredentials';
import { FullTextAccess } from './check/fullTexts';
import { Config } from './config';
import { DIAGNOSTIC_SOURCE } from './check/diagnostics';
import { verdictView } from './evidence/verdictView';
import { registerFindEvidence, type EvidenceApi, type EvidenceJudge } from './evidence/findEvidence';
import { CITE_LIBRARY_PAPER, CitationCompletionProvider, citeLibraryPaper, type LibraryPapers } from './completion/citationCompletion';
import { EvidenceActions } from './evidence/evidenceActions';
import { CitationHoverProvider } from './check/hover';
import { EvidenceLibrary } from './library/library';
import { editorModelsHost, sayReady } from './models/models';
import { FIND_REAL_PAPER, findRealPaper } from './check/realPaper';
import { ReferenceLookups } from './check/references';
import { StatusBar } from './check/statusBar';
import { registerSuggest, type SuggestApi } from './suggest/suggest';

/** The extension's API: tests give Find Evidence a fixed finder and judge, and completion a fixed library, through it. */
export interface AttestApi extends SuggestApi, EvidenceApi {
  /** Citation completion offers the papers of `library` from now on. */
  setCitationLibrary(library: LibraryPapers): void;
  /** What Attest's status bar item shows, if it shows. */
  statusBar(): StatusBar['shown'];
}

export function activate(context: vscode.ExtensionContext): AttestApi {
  const config = new Config();
  const log = vscode.window.createOutputChannel('Attest', { log: true });
  const diagnostics = vscode.languages.createDiagnosticCollection(DIAGNOSTIC_SOURCE);
  // One gate per service for the session: lookups and full texts share each service's allowance.
  const gates = new SourceGates();
  const lookups = new ReferenceLookups(config, context.secrets, context.globalStorageUri, log, gates);
  // One of each model for the session, loaded when first needed: the check, Find Evidence and Suggest share them.
  const models = createModels(editorModelsHost(context.globalStorageUri, log), () => config.settings());
  const { nli, encoder } = models;
  const abstracts = new AbstractView();
  const fullTexts = new FullTextAccess(config, context.secrets, context.globalStorageUri, log, gates);
  const checker = new Checker(config, diagnostics, lookups, nli, context.globalStorageUri, log, fullTexts);
  const library = new EvidenceLibrary(context.globalStorageUri, models, lookups, () => checker.allResults(), log, context.secrets);
  const statusBar = new StatusBar(checker, lookups);
  const actions = new EvidenceActions(checker);
  const completion = new CitationCompletionProvider(checker, library);
  const selector = MANUSCRIPT_LANGUAGES.map((language) => ({ language, scheme: 'file' }));

  // Files a manuscript depends on change outside the editor too: a reference manager rewriting the .bib.
  const watcher = vscode.workspace.createFileSystemWatcher('**/*.{bib,tex,ltx,md,rmd,qmd}');
  const onDisk = (uri: vscode.Uri): void => checker.dependencyChanged(uri.fsPath);

  context.subscriptions.push(
    log,
    diagnostics,
    checker,
    statusBar,
    watcher,
    watcher.onDidChange(onDisk),
    watcher.onDidCreate(onDisk),
    watcher.onDidDelete(onDisk),
    lookups,
    nli,
    encoder,
    library,
    abstracts,
    vscode.workspace.registerTextDocumentContentProvider(ABSTRACT_SCHEME, abstracts),
    checker.onDidChange(() => statusBar.update()),
    lookups.onDidChange(() => statusBar.update()),
    context.secrets.onDidChange(() => checker.referencesChanged()),
    vscode.window.onDidChangeActiveTextEditor(() => {
      statusBar.update();
      checker.stoppedTyping();
    }),
    vscode.window.onDidChangeTextEditorSelection((e) => checker.stoppedTyping(e.textEditor.document.uri.fsPath, e.selections[0]?.active)),
    vscode.workspace.onDidSaveTextDocument(() => checker.stoppedTyping()),
    vscode.workspace.onDidOpenTextDocument((d) => void checker.documentChanged(d, true)),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length === 0) return;
      if (isManuscript(e.document)) {
        checker.typed(e);
        void checker.documentChanged(e.document);
      } else if (e.document.languageId === 'bibtex') checker.dependencyChanged(e.document.uri.fsPath);
    }),
    vscode.workspace.onDidCloseTextDocument(() => checker.documentClosed()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('attest.retrieval')) void encoder.reset().then(() => library.reset());
      else if (e.affectsConfiguration('attest.library.solr')) library.reset();
      if (e.affectsConfiguration('attest.nli')) void nli.reset().then(() => checker.recheckAll());
      else if (Config.affectsReferences(e)) checker.referencesChanged();
      else if (Config.affectsChecks(e)) checker.recheckAll();
    }),
    vscode.languages.registerHoverProvider(selector, new CitationHoverProvider(checker)),
    completion,
    vscode.languages.registerCompletionItemProvider(selector, completion, ...CitationCompletionProvider.triggerCharacters),
    vscode.commands.registerCommand(CITE_LIBRARY_PAPER, (uri: unknown, at: unknown, typed: unknown, paper: unknown) => citeLibraryPaper(actions, uri, at, typed, paper)),
    vscode.languages.registerCodeActionsProvider(
      [...selector, { language: 'bibtex', scheme: 'file' }],
      new CitationCodeActionProvider(checker),
      CitationCodeActionProvider.metadata,
    ),
    vscode.commands.registerCommand('attest.downloadNliModel', async () => {
      sayReady(await nli.download());
      checker.recheckAll();
    }),
    vscode.commands.registerCommand(FIND_REAL_PAPER, (file: unknown, key: unknown) => findRealPaper(checker, lookups, file, key)),
    vscode.commands.registerCommand('attest.showCitedAbstract', (file: string, key: string, evidence?: string) => showEvidence(checker, fullTexts, abstracts, file, key, evidence)),
    vscode.commands.registerCommand('attest.ignoreVerdict', (file: string, subject: VerdictSubject) => checker.ignoreVerdict(file, subject)),
    vscode.commands.registerCommand('attest.ignoreRetraction', (file: string, subject: VerdictSubject) => ignoreRetraction(checker, file, subject)),
    // Files given as arguments are imported without asking: how the host bench imports its papers.
    vscode.commands.registerCommand('attest.importPapers', (files?: unknown) => library.importFiles(urisIn(files))),
    vscode.commands.registerCommand('attest.stopEmbedding', () => library.stopEmbedding()),
    vscode.commands.registerCommand('attest.resumeEmbedding', () => library.resumeEmbedding()),
    vscode.commands.registerCommand('attest.downloadEncoder', async () => {
      sayReady(await encoder.download());
      library.reset();
    }),
    vscode.commands.registerCommand('attest.checkReferences', () => checkReferencesCommand(checker)),
    vscode.commands.registerCommand('attest.cancelReferenceCheck', () => {
      lookups.cancelAll();
      checker.cancelJudging();
    }),
    vscode.commands.registerCommand('attest.setSourceApiKey', () => setSourceApiKeyCommand(context.secrets, lookups)),
    vscode.commands.registerCommand('attest.setSolrCredentials', () => setSolrCredentialsCommand(context.secrets, () => library.reset())),
    vscode.commands.registerCommand('attest.checkDocument', async () => {
      const document = vscode.window.activeTextEditor?.document;
      if (!document || !isManuscript(document)) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Open a LaTeX or Markdown manuscript to check it.'));
        return;
      }
      await checker.documentChanged(document, true);
    }),
  );

  for (const document of vscode.workspace.textDocuments) void checker.documentChanged(document, true);
  // Verdicts beside the results only with a model: relevance alone cannot say that a paper supports a claim.
  const judgeEvidence: EvidenceJudge = async (claim, papers, signal) => {
    const model = await nli.withoutAsking();
    if (!model) return [];
    const judgements = await judgePapers(claim, papers, { analyze, nli: model, thresholds: config.thresholds, signal });
    return judgements.map((j) => j && verdictView(j));
  };
  const evidence = registerFindEvidence(
    context,
    checker,
    () => library.finder(),
    judgeEvidence,
    (claim, papers) => fullTexts.passagesAtHand(claim, papers),
  );
  const suggestions = registerSuggest(context, { checker, config, nli, finder: () => library.finder() });
  return {
    setEvidenceFinder: (finder) => {
      evidence.setEvidenceFinder(finder);
      suggestions.setEvidenceFinder(finder);
    },
    setEvidenceJudge: (judge) => evidence.setEvidenceJudge(judge),
    setSentenceJudge: (judge) => suggestions.setSentenceJudge(judge),
    setCitationLibrary: (papers) => completion.setLibrary(papers),
    statusBar: () => statusBar.shown,
  };
}

export function deactivate(): void {}

function urisIn(value: unknown): vscode.Uri[] | undefined {
  return Array.isArray(value) && value.length > 0 && value.every((item) => item instanceof vscode.Uri) ? value : undefined;
}

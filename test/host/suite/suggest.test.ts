import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { parseBibliography } from '../../../src/core/bibliography/parse';
import type { EvidenceFinder, EvidenceQuery, EvidenceResults } from '../../../src/core/evidence';
import type { Paper } from '../../../src/core/papers/paper';
import type { Outcome } from '../../../src/extension/evidence/evidenceActions';
import type { EvidenceApi } from '../../../src/extension/evidence/findEvidence';
import type { SuggestApi } from '../../../src/extension/suggest/suggest';
import type { SupportJudgement } from '../../../src/core/verify/support';
import type { SuggestionMessage } from '../../../src/webview/protocol/suggest';
import { ChatServer, type ChatReply, type ReceivedChat } from '../../unit/support/chatServer';
import { nliConfig, writeModelFolder } from '../../unit/support/onnx/folders';
import { nliGraph } from '../../unit/support/onnx/graphs';
import { fixtureUri, screenshot, sleep, uniqueRange, waitFor } from './harness';

const TRANSFORMER: Paper = {
  id: 'arxiv:1706.03762',
  title: 'Attention Is All You Need',
  abstract:
    'The dominant sequence transduction models are based on complex recurrent or convolutional neural networks. We propose a new simple network architecture, the Transformer, based solely on attention mechanisms, dispensing with recurrence and convolutions entirely. Experiments on two machine translation tasks show these models to be superior in quality while being more parallelizable.',
  authors: [
    { given: 'Ashish', family: 'Vaswani' },
    { given: 'Noam', family: 'Shazeer' },
    { given: 'Niki', family: 'Parmar' },
  ],
  year: 2017,
  venue: 'Advances in Neural Information Processing Systems',
  arxivId: '1706.03762',
  openAccessUrl: 'https://arxiv.org/pdf/1706.03762',
  source: { id: 'arxiv', recordId: '1706.03762', url: 'https://arxiv.org/abs/1706.03762' },
};

const LSTM: Paper = {
  id: 'doi:10.1162/neco.1997.9.8.1735',
  title: 'Long Short-Term Memory',
  abstract:
    'Learning to store information over extended time intervals by recurrent backpropagation takes a very long time. We introduce a novel, efficient, gradient-based method called long short-term memory. LSTM can learn to bridge minimal time lags in excess of 1000 discrete time steps.',
  authors: [
    { given: 'Sepp', family: 'Hochreiter' },
    { given: 'Jürgen', family: 'Schmidhuber' },
  ],
  year: 1997,
  venue: 'Neural Computation',
  doi: '10.1162/neco.1997.9.8.1735',
  source: { id: 'crossref', recordId: '10.1162/neco.1997.9.8.1735' },
};

const QUERIES = ['attention sequence transduction', 'recurrence-free translation'];

/**
 * Cites source 1 and source 2, then says something without citing, then cites a source 7 there is
 * none of, and a work by name the model was never given.
 */
const DRAFT =
  'The Transformer relies on attention alone & dispenses with recurrence [1]. Gated memory cells carry information across long time lags [2]. Recurrent networks remain common in speech recognition. Attention also beats recurrence on speech [2][7]. Convolutions were dropped as well (Smith et al., 2020) [1].';

/** What a plain Accept puts in the manuscript: the supported sentences, escaped, with Attest's citations; not the uncited one. */
const INSERTED =
  ' The Transformer relies on attention alone \\& dispenses with recurrence~\\citep{vaswani2017attention}. Gated memory cells carry information across long time lags~\\citep{hochreiter1997long}.';

/** A supported, a contradicted and an unconfirmed sentence, as the judge below has them. */
const MIXED = 'The Transformer uses attention alone [1]. Gated cells forget at once [2]. Long time lags are bridged [2].';
const VERDICTS: Readonly<Record<string, SupportJudgement['label']>> = {
  'The Transformer uses attention alone.': 'supported',
  'Gated cells forget at once.': 'contradicted',
  'Long time lags are bridged.': 'unsupported',
};

class FixtureFinder implements EvidenceFinder {
  readonly queries: EvidenceQuery[] = [];

  async find(query: EvidenceQuery): Promise<EvidenceResults> {
    this.queries.push(query);
    return { mode: 'lexical', results: [TRANSFORMER, LSTM].map((paper, i) => ({ paper, score: 2 - i })), notes: [] };
  }
}

/** The draft the scripted model writes next. */
let draftText = DRAFT;

/** The queries to the request that asks for them, the draft to the streamed one that asks for it. */
function script(request: ReceivedChat): ChatReply {
  return { text: request.body.stream ? draftText : JSON.stringify(QUERIES) };
}

/**
 * The suggestion end to end in the editor: a chat-completions server the test scripts stands in for
 * the model, a fixed finder for the library, and a small ONNX model the test builds for the support
 * check, with thresholds that make every sentence it judges supported.
 */
suite('suggest cited text', () => {
  const texUri = (): vscode.Uri => fixtureUri('suggest', 'paper.tex');
  const bibUri = (): vscode.Uri => fixtureUri('suggest', 'refs.bib');
  const attest = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('attest');
  const selected = 'Sequence transduction no longer needs \\emph{recurrence}.';
  const finder = new FixtureFinder();
  let server: ChatServer;
  let modelDir = '';
  let original = '';
  let originalBib = '';
  let settings: [string, unknown][] = [];

  suiteSetup(async () => {
    server = await ChatServer.start(script);
    modelDir = await writeModelFolder(await fs.promises.mkdtemp(path.join(os.tmpdir(), 'attest-nli-')), { model: nliGraph(), config: nliConfig() });
    // The endpoint and the model are user settings only (machine scope): a workspace cannot set them.
    await attest().update('llm.baseUrl', server.baseUrl, vscode.ConfigurationTarget.Global);
    await attest().update('nli.model', modelDir, vscode.ConfigurationTarget.Global);
    settings = [
      ['support.entailmentThreshold', 0],
      ['support.contradictionThreshold', 1],
    ];
    for (const [key, value] of settings) await attest().update(key, value, vscode.ConfigurationTarget.Workspace);
    const extension = vscode.extensions.getExtension<EvidenceApi>('attest.attest');
    assert.ok(extension, 'the extension is installed');
    (await extension.activate()).setEvidenceFinder(finder);
    original = (await vscode.workspace.openTextDocument(texUri())).getText();
    originalBib = (await vscode.workspace.openTextDocument(bibUri())).getText();
  });

  suiteTeardown(async () => {
    for (const key of ['llm.model', ...settings.map(([k]) => k)]) await attest().update(key, undefined, vscode.ConfigurationTarget.Workspace);
    await attest().update('llm.baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await attest().update('nli.model', undefined, vscode.ConfigurationTarget.Global);
    for (const uri of [texUri(), bibUri()]) {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    await vscode.window.tabGroups.close(allTabs().filter(isSuggestionPanel));
    await server.close();
    await fs.promises.rm(modelDir, { recursive: true, force: true });
  });

  test('without a model configured, nothing is sent', async () => {
    await select(texUri(), selected);
    const view = await vscode.commands.executeCommand<SuggestionMessage | undefined>('attest.suggestCitedText');
    assert.strictEqual(view, undefined);
    assert.strictEqual(server.received.length, 0);
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  test('asks before the first request, then drafts from the sources found, keeping only their citations', async () => {
    await attest().update('llm.model', 'test-model', vscode.ConfigurationTarget.Workspace);
    await select(texUri(), selected);
    const running = vscode.commands.executeCommand<SuggestionMessage | undefined>('attest.suggestCitedText');
    await waitFor(
      'the consent prompt',
      () => (allTabs().some(isSuggestionPanel) ? true : undefined),
      () => allTabs().map(describeTab).join(', '),
    );
    await sleep(500);
    assert.strictEqual(server.received.length, 0, 'nothing is sent before the user allows it');
    await vscode.commands.executeCommand('attest.allowLlmRequests');
    const view = await running;
    assert.ok(view, 'the command resolves to the suggestion shown');

    const [queries, draft] = server.received;
    assert.strictEqual(server.received.length, 2);
    assert.strictEqual(queries.body.model, 'test-model');
    assert.strictEqual(queries.body.messages.at(-1)?.content, 'Sequence transduction no longer needs recurrence.', 'markup removed');
    assert.strictEqual(draft.body.stream, true, 'the draft streams into the panel');
    assert.match(draft.body.messages.at(-1)?.content ?? '', /\[1\] Attention Is All You Need \(2017\)/);
    assert.deepStrictEqual(
      finder.queries.map((q) => q.text),
      QUERIES,
    );

    assert.strictEqual(view.outcome, 'drafted');
    assert.deepStrictEqual(
      view.sentences.map((s) => [s.text, s.status, s.sources]),
      [
        ['The Transformer relies on attention alone & dispenses with recurrence.', 'supported', [1]],
        ['Gated memory cells carry information across long time lags.', 'supported', [2]],
        ['Recurrent networks remain common in speech recognition.', 'uncited', []],
      ],
    );
    assert.strictEqual(view.sentences[0].evidence?.source, 1);
    assert.strictEqual(view.sentences[2].reason, 'it cites none of the sources, so it is never inserted');
    assert.deepStrictEqual(
      view.removed.map((r) => [r.text, r.reason]),
      [
        ['Attention also beats recurrence on speech [2][7].', 'it cites source 7, but there are 2 sources'],
        ['Convolutions were dropped as well (Smith et al., 2020) [1].', 'works named by "et al."'],
      ],
    );
    assert.deepStrictEqual(
      view.sources.map((s) => [s.number, s.title, s.existing?.key]),
      [
        [1, 'Attention Is All You Need', undefined],
        [2, 'Long Short-Term Memory', 'hochreiter1997long'],
      ],
    );
    assert.strictEqual((await vscode.workspace.openTextDocument(texUri())).getText(), original, 'nothing changes before Accept');

    // The page draws once a service worker has started, which nothing here can observe; the picture is for people to look at.
    await sleep(4000);
    await vscode.commands.executeCommand('notifications.clearAll');
    // Earlier suites leave the Problems panel open across the preview's lower half.
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await screenshot('suggest-preview');
  });

  test("Accept inserts the sentences cited in the manuscript's style and adds the new source to the .bib; one undo takes both back", async () => {
    const tex = await vscode.workspace.openTextDocument(texUri());
    const bib = await vscode.workspace.openTextDocument(bibUri());
    const outcome = await vscode.commands.executeCommand<Outcome>('attest.suggest.accept');
    assert.deepStrictEqual(outcome, {
      ok: true,
      message: 'Inserted after the selection, citing vaswani2017attention, hochreiter1997long. Added vaswani2017attention to refs.bib.',
    });
    assert.strictEqual(tex.getText(), original.replace(selected, selected + INSERTED));
    assert.ok(!/\[7\]|Smith|speech recognition/.test(tex.getText()), tex.getText());

    assert.ok(bib.getText().startsWith(originalBib), 'the existing entry is kept as it was');
    const parsed = parseBibliography(bib.getText(), bibUri().fsPath);
    assert.deepStrictEqual(parsed.problems, []);
    assert.deepStrictEqual(
      parsed.entries.map((e) => e.key),
      ['hochreiter1997long', 'vaswani2017attention'],
    );
    assert.strictEqual(parsed.entries[1].title, 'Attention Is All You Need');

    const again = await vscode.commands.executeCommand<Outcome>('attest.suggest.accept');
    assert.strictEqual(again?.ok, false, 'a suggestion goes in once');

    await vscode.window.showTextDocument(tex, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('undo');
    assert.strictEqual(tex.getText(), original);
    assert.strictEqual(bib.getText(), originalBib, 'the entry went with the text');
  });

  test('a plain Accept leaves out a contradicted and an unconfirmed sentence; a ticked unconfirmed one goes in, a contradicted one never', async () => {
    const api = vscode.extensions.getExtension<SuggestApi>('attest.attest')?.exports;
    assert.ok(api);
    api.setSentenceJudge(async (claim, passages) => ({ label: VERDICTS[claim] ?? 'unsupported', relevance: 1, entailment: 0.5, sentence: passages[0] }));
    draftText = MIXED;
    const tex = await vscode.workspace.openTextDocument(texUri());
    try {
      await select(texUri(), selected);
      const view = await vscode.commands.executeCommand<SuggestionMessage | undefined>('attest.suggestCitedText');
      assert.deepStrictEqual(
        view?.sentences.map((s) => s.status),
        ['supported', 'contradicted', 'unconfirmed'],
      );
      await sleep(3000);
      await screenshot('suggest-statuses');

      const plain = await vscode.commands.executeCommand<Outcome>('attest.suggest.accept');
      assert.strictEqual(plain?.ok, true, plain?.message);
      assert.strictEqual(tex.getText(), original.replace(selected, `${selected} The Transformer uses attention alone~\\citep{vaswani2017attention}.`));
      await vscode.window.showTextDocument(tex, vscode.ViewColumn.One);
      await vscode.commands.executeCommand('undo');
      assert.strictEqual(tex.getText(), original);

      await select(texUri(), selected);
      await vscode.commands.executeCommand('attest.suggestCitedText');
      // The page sends the indices of the ticked sentences; ticking the contradicted one changes nothing.
      const ticked = await vscode.commands.executeCommand<Outcome>('attest.suggest.accept', { unconfirmed: [1, 2] });
      assert.strictEqual(ticked?.ok, true, ticked?.message);
      assert.strictEqual(
        tex.getText(),
        original.replace(selected, `${selected} The Transformer uses attention alone~\\citep{vaswani2017attention}. Long time lags are bridged~\\citep{hochreiter1997long}.`),
      );
      assert.ok(!tex.getText().includes('forget'), 'the contradicted sentence is never inserted');
      await vscode.window.showTextDocument(tex, vscode.ViewColumn.One);
      await vscode.commands.executeCommand('undo');
    } finally {
      api.setSentenceJudge(undefined);
      draftText = DRAFT;
    }
  });
});

/** Selects `text` in the file, as the user does before running the command from the context menu. */
async function select(uri: vscode.Uri, text: string): Promise<void> {
  const document = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(document, vscode.ViewColumn.One);
  const range = uniqueRange(document, text);
  editor.selection = new vscode.Selection(range.start, range.end);
}

function allTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs);
}

function describeTab(tab: vscode.Tab): string {
  return tab.input instanceof vscode.TabInputWebview ? `webview ${tab.input.viewType}` : tab.label;
}

function isSuggestionPanel(tab: vscode.Tab): boolean {
  return tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('attest.suggest');
}

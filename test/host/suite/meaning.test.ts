import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ResultsMessage } from '../../../src/webview/protocol/evidence';
import type { EvidenceApi } from '../../../src/extension/evidence/findEvidence';
import { FIXTURES } from '../../unit/support/helpers';
import { encoderGraph } from '../../unit/support/onnx/graphs';
import { writeModelFolder } from '../../unit/support/onnx/folders';
import { CLAIM, syntheticPaper } from '../../../bench/syntheticPapers';
import { fixtureUri, sleep, uniqueRange, waitFor } from './harness';

/**
 * Find Evidence by meaning and by words together, in the real extension host: the papers come in
 * through Import Papers, a sentence encoder the test builds (real weights cannot be downloaded here)
 * embeds them in its worker, and the library's worker scores them with ONNX Runtime, which this is
 * the only test to load in the editor's threads.
 */
suite('find evidence by meaning', () => {
  const attest = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('attest');
  let dir = '';
  let model = '';

  suiteSetup(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'attest-encoder-'));
    model = await tinyEncoder(path.join(dir, 'tiny-encoder'));
    // A model runs what it holds: its folder is a user setting only (machine scope).
    await attest().update('retrieval.encoder.model', model, vscode.ConfigurationTarget.Global);
    await attest().update('retrieval.liveSearch', false, vscode.ConfigurationTarget.Workspace);
    const extension = vscode.extensions.getExtension<EvidenceApi>('attest.attest');
    assert.ok(extension, 'the extension is installed');
    (await extension.activate()).setEvidenceFinder(undefined);
  });

  suiteTeardown(async () => {
    await attest().update('retrieval.encoder.model', undefined, vscode.ConfigurationTarget.Global);
    await attest().update('retrieval.liveSearch', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await fs.promises.rm(dir, { recursive: true, force: true });
  });

  test('ranks imported papers by words and meaning once the encoder has embedded them', async () => {
    await vscode.commands.executeCommand('attest.importPapers', [vscode.Uri.file(path.join(FIXTURES, 'papers', 'corpus.jsonl'))]);
    const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: 'Caffeine taken in the evening shortens sleep.\n' });
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(0, 0, 0, document.lineAt(0).text.length);
    let last: ResultsMessage | undefined;
    // The papers are embedded in the background after the import; until then the search says how many are not.
    const view = await waitFor(
      'a search by words and meaning over every paper',
      async () => {
        last = await vscode.commands.executeCommand<ResultsMessage | undefined>('attest.findEvidence');
        return last?.mode === 'hybrid' && last.notes.length === 0 ? last : undefined;
      },
      () => JSON.stringify(last && { mode: last.mode, notes: last.notes, titles: last.items.map((i) => i.title) }),
      60_000,
    );
    assert.strictEqual(view.items[0]?.title, 'Evening coffee and sleep');
  });

  test("the abstracts of a manuscript's bibliography are embedded in the background once they join the library", async () => {
    const document = await vscode.workspace.openTextDocument(fixtureUri('support', 'paper.tex'));
    const editor = await vscode.window.showTextDocument(document);
    const range = uniqueRange(document, 'Daily aspirin lowers the risk of stroke in older adults');
    editor.selection = new vscode.Selection(range.start, range.end);
    let last: ResultsMessage | undefined;
    await waitFor(
      "the bibliography's abstract searched by words and meaning",
      async () => {
        last = await vscode.commands.executeCommand<ResultsMessage | undefined>('attest.findEvidence');
        return last?.mode === 'hybrid' && last.notes.length === 0 && last.items.some((i) => i.title === 'Aspirin and stroke in older adults') ? last : undefined;
      },
      () => JSON.stringify(last && { mode: last.mode, notes: last.notes, titles: last.items.map((i) => i.title) }),
      60_000,
    );
  });

  test('a long embedding, as after a change of encoder, can be stopped: the papers left rank by their words, and stay so until it is resumed', async function () {
    // Its waits add up to 92 s on a busy machine: the whole test may take them, not the 60 s default.
    this.timeout(120_000);
    const file = path.join(dir, 'many.jsonl');
    await fs.promises.writeFile(file, Array.from({ length: 5_000 }, (_, i) => JSON.stringify(syntheticPaper(i))).join('\n'));
    await vscode.commands.executeCommand('attest.importPapers', [vscode.Uri.file(file)]);
    // The same graph in another folder is another encoder: every paper is to be embedded again, in the background.
    await attest().update('retrieval.encoder.model', await tinyEncoder(path.join(dir, 'other-encoder')), vscode.ConfigurationTarget.Global);
    try {
      const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: `${CLAIM}.\n` });
      const editor = await vscode.window.showTextDocument(document);
      editor.selection = new vscode.Selection(0, 0, 0, document.lineAt(0).text.length);
      const search = async (): Promise<number> => {
        const view = await vscode.commands.executeCommand<ResultsMessage | undefined>('attest.findEvidence');
        const note = view?.notes.map((n) => /^(\d+) of \d+ papers are not embedded/.exec(n)).find((m) => m !== null);
        return note ? Number(note[1]) : 0;
      };
      // The settings change reaches the library a moment later; the first search after it embeds everything again.
      let first = 0;
      await waitFor(
        'a search with the other encoder',
        async () => ((first = await search()) > 1_000 ? true : undefined),
        () => `${first} papers not embedded`,
        30_000,
      );
      await vscode.commands.executeCommand('attest.stopEmbedding');
      const left = await search();
      assert.ok(left > 0, 'stopped before the end');
      await sleep(2_000);
      assert.strictEqual(await search(), left, 'no paper embedded since it stopped');
      await vscode.commands.executeCommand('attest.resumeEmbedding');
      let now = left;
      await waitFor(
        'every paper embedded after Resume',
        async () => ((now = await search()) === 0 ? true : undefined),
        () => `${now} papers not embedded`,
        60_000,
      );
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await attest().update('retrieval.encoder.model', model, vscode.ConfigurationTarget.Global);
    }
  });
});

/** A sentence encoder the test builds, in `dir`: its name, to Attest, is its folder's. */
function tinyEncoder(dir: string): Promise<string> {
  return writeModelFolder(dir, {
    model: encoderGraph(),
    config: { model_type: 'bert', _name_or_path: 'sentence-transformers/all-MiniLM-L6-v2', max_position_embeddings: 512, pad_token_id: 0 },
  });
}

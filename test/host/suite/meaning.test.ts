import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ResultsMessage } from '../../../src/extension/evidenceProtocol';
import type { EvidenceApi } from '../../../src/extension/findEvidence';
import { FIXTURES } from '../../unit/helpers';
import { encoderGraph } from '../../unit/support/onnx/graphs';
import { writeModelFolder } from '../../unit/support/onnx/folders';
import { fixtureUri, uniqueRange, waitFor } from './harness';

/**
 * Find Evidence by meaning and by words together, in the real extension host: the papers come in
 * through Import Papers, a sentence encoder the test builds (real weights cannot be downloaded here)
 * embeds them in its worker, and the library's worker scores them with ONNX Runtime, which this is
 * the only test to load in the editor's threads.
 */
suite('find evidence by meaning', () => {
  const attest = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('attest');
  let dir = '';

  suiteSetup(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'attest-encoder-'));
    const model = await writeModelFolder(path.join(dir, 'tiny-encoder'), {
      model: encoderGraph(),
      config: { model_type: 'bert', _name_or_path: 'sentence-transformers/all-MiniLM-L6-v2', max_position_embeddings: 512, pad_token_id: 0 },
    });
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

  test("a manuscript's bibliography joins the library unembedded, so the search does not wait for the encoder, and is embedded in the background", async () => {
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
});

import * as assert from 'assert';
import * as vscode from 'vscode';
import { attestDiagnostics, describeDiagnostics, fixtureUri, sleep, uniqueRange, waitFor } from './harness';

const label = (item: vscode.CompletionItem): string => (typeof item.label === 'string' ? item.label : item.label.label);

// What a writer meets first: the model download from the Command Palette, keys as reference
// managers write them (`Name:2019ab`), and a key that is still being typed.
suite('a new user', () => {
  const texUri = (): vscode.Uri => fixtureUri('newcomer', 'paper.tex');

  test('Download the NLI Model runs to its end while the startup prompt to download it is unanswered', async () => {
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(texUri()));
    // The support check has run once an unrelated abstract is flagged; it asked about the model before
    // judging, and nobody answers that notification here.
    await waitFor(
      'an unsupported note on the glacier sentence',
      () => (attestDiagnostics(texUri(), 'unsupported').length > 0 ? true : undefined),
      () => describeDiagnostics(texUri()),
      30_000,
    );
    await sleep(1000);
    // The hub cannot be reached from here: the download fails and says so, but the command must end
    // rather than wait on the prompt for ever.
    let ended = false;
    const download = Promise.resolve(vscode.commands.executeCommand('attest.downloadNliModel')).then(
      () => (ended = true),
      () => (ended = true),
    );
    await waitFor(
      'the download command to end',
      () => (ended ? true : undefined),
      () => 'still waiting',
      45_000,
    );
    await download;
    assert.strictEqual(editor.document.isDirty, false);
  });

  test('completion goes on past the colon of Name:2019ab keys, and a key being typed is not an error until the cursor leaves it', async () => {
    const doc = await vscode.workspace.openTextDocument(texUri());
    const editor = await vscode.window.showTextDocument(doc);
    try {
      const line = uniqueRange(doc, 'Low-dose aspirin').start.line;
      await editor.edit((e) => e.insert(doc.lineAt(line).range.end, ' See \\citep{}'));
      const inside = doc.lineAt(line).range.end.translate(0, -1);
      editor.selection = new vscode.Selection(inside, inside);
      // One change, as a paste or a completion would make it: a key that exists nowhere, and one being typed.
      await editor.edit((e) => e.insert(inside, 'nosuchkey2000,Rivera:201'));
      const cursor = doc.lineAt(line).range.end.translate(0, -1);
      assert.ok(editor.selection.active.isEqual(cursor), `cursor at ${editor.selection.active.character}, not ${cursor.character}`);

      await waitFor(
        'the error on nosuchkey2000',
        () => (attestDiagnostics(texUri(), 'missing-key').some((d) => d.message.includes("'nosuchkey2000'")) ? true : undefined),
        () => describeDiagnostics(texUri()),
        20_000,
      );
      assert.ok(!attestDiagnostics(texUri(), 'missing-key').some((d) => d.message.includes("'Rivera:201'")), describeDiagnostics(texUri()));

      let seen = '';
      const item = await waitFor(
        'the Rivera:2019as completion after the colon',
        async () => {
          const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', texUri(), cursor, ':', 20);
          seen = list.items.map((i) => `${label(i)} (${i.kind})`).join(', ');
          return list.items.find((i) => label(i) === 'Rivera:2019as' && i.kind === vscode.CompletionItemKind.Reference);
        },
        () => seen,
        20_000,
      );
      const range = item.range instanceof vscode.Range ? item.range : item.range?.replacing;
      assert.ok(range);
      assert.strictEqual(doc.getText(range), 'Rivera:201', 'the item replaces the whole key typed, colon included');
      assert.ok(!seen.includes('Rivera:2021hf'), `only the key that matches: ${seen}`);

      // The writer moves on without finishing the key: now it is an error.
      const start = new vscode.Position(line, 0);
      editor.selection = new vscode.Selection(start, start);
      await waitFor(
        'the error on Rivera:201',
        () => (attestDiagnostics(texUri(), 'missing-key').some((d) => d.message.includes("'Rivera:201'")) ? true : undefined),
        () => describeDiagnostics(texUri()),
        20_000,
      );
    } finally {
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  });
});

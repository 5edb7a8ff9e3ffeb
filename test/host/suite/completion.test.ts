import * as assert from 'assert';
import * as vscode from 'vscode';
import { fixtureUri, uniqueRange, waitFor } from './harness';

const label = (item: vscode.CompletionItem): string => (typeof item.label === 'string' ? item.label : item.label.label);

suite('citation completion', () => {
  test('words of a title typed inside \\citep{ offer its key with title and authors; accepting it writes the key', async () => {
    const uri = fixtureUri('support', 'paper.tex');
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    try {
      const lineNumber = uniqueRange(doc, 'Caching halves').start.line;
      await editor.edit((e) => e.insert(doc.lineAt(lineNumber).range.end, ' See \\citep{stroke aspi'));
      const position = doc.lineAt(lineNumber).range.end;
      let seen = '';
      const item = await waitFor(
        'the aspirin2019 completion',
        async () => {
          const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, position, undefined, 20);
          seen = list.items.map((i) => `${label(i)} (${i.kind})`).join(', ');
          // Word-based suggestions also offer "aspirin2019", a word of the file: Attest's item is a reference.
          return list.items.find((i) => label(i) === 'aspirin2019' && i.kind === vscode.CompletionItemKind.Reference);
        },
        () => seen,
        30_000,
      );
      assert.match(item.detail ?? '', /Rivera.*2019/, JSON.stringify(item));
      assert.strictEqual(typeof item.label === 'string' ? undefined : item.label.description, 'Aspirin and stroke in older adults');
      const range = item.range instanceof vscode.Range ? item.range : item.range?.replacing;
      assert.ok(range, 'the item replaces what was typed');
      await editor.edit((e) => e.replace(range, label(item)));
      assert.ok(doc.lineAt(lineNumber).text.endsWith(' See \\citep{aspirin2019'), doc.lineAt(lineNumber).text);
    } finally {
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  });
});

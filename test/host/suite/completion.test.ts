import * as assert from 'assert';
import * as vscode from 'vscode';
import { parseBibliography } from '../../../src/core/bibliography/parse';
import { PaperKeyIndex } from '../../../src/core/completion/libraryKeys';
import type { Paper } from '../../../src/core/papers/paper';
import type { AttestApi } from '../../../src/extension/extension';
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
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
  });
});

/** A paper of the library that no bibliography of the fixture has. */
const LIBRARY_PAPER: Paper = {
  id: 'doi:10.1109/cvpr.2016.90',
  title: 'Deep Residual Learning for Image Recognition',
  authors: [
    { given: 'Kaiming', family: 'He' },
    { given: 'Xiangyu', family: 'Zhang' },
  ],
  year: 2016,
  venue: 'IEEE Conference on Computer Vision and Pattern Recognition',
  doi: '10.1109/cvpr.2016.90',
};

suite('citation completion from the library', () => {
  const texUri = fixtureUri('support', 'paper.tex');
  const bibUri = fixtureUri('support', 'refs.bib');
  const entriesOf = (text: string, key: string) => parseBibliography(text, bibUri.fsPath).entries.filter((e) => e.key === key);

  suiteSetup(async () => {
    const extension = vscode.extensions.getExtension<AttestApi>('attest.attest');
    assert.ok(extension);
    const library = new PaperKeyIndex();
    library.add([LIBRARY_PAPER]);
    (await extension.activate()).setCitationLibrary({ complete: async (typed, limit) => library.complete(typed, limit) });
  });

  /** Types `typed` at the end of the line holding `needle`, and accepts the completion `key` as the suggest widget does: its text, then its command. */
  async function typeAndAccept(editor: vscode.TextEditor, needle: string, typed: string, key: string): Promise<vscode.CompletionItem> {
    const doc = editor.document;
    const lineNumber = uniqueRange(doc, needle).start.line;
    await editor.edit((e) => e.insert(doc.lineAt(lineNumber).range.end, typed));
    const position = doc.lineAt(lineNumber).range.end;
    let seen = '';
    const item = await waitFor(
      `the ${key} completion`,
      async () => {
        const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', doc.uri, position, undefined, 20);
        seen = list.items.map((i) => `${label(i)} (${i.kind})`).join(', ');
        return list.items.find((i) => label(i) === key && i.kind === vscode.CompletionItemKind.Reference);
      },
      () => seen,
      30_000,
    );
    const range = item.range instanceof vscode.Range ? item.range : item.range?.replacing;
    assert.ok(range, 'the item replaces what was typed');
    await editor.edit((e) => e.replace(range, typeof item.insertText === 'string' ? item.insertText : label(item)));
    if (item.command) await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
    return item;
  }

  test("part of a library paper's title inside \\citep{ offers it; accepting it cites its new key and adds its BibTeX to the .bib, in one undo", async () => {
    const tex = await vscode.workspace.openTextDocument(texUri);
    const bib = await vscode.workspace.openTextDocument(bibUri);
    const before = bib.getText();
    const editor = await vscode.window.showTextDocument(tex);
    try {
      const item = await typeAndAccept(editor, 'Caching halves', ' See \\citep{residual lear', 'he2016deep');
      assert.match(item.detail ?? '', /Kaiming He, Xiangyu Zhang, 2016/, JSON.stringify(item));
      assert.strictEqual(typeof item.label === 'string' ? undefined : item.label.description, 'Deep Residual Learning for Image Recognition');
      const line = () => tex.lineAt(uniqueRange(tex, 'Caching halves').start.line).text;
      assert.ok(line().endsWith(' See \\citep{he2016deep'), line());
      const [entry, ...others] = entriesOf(bib.getText(), 'he2016deep');
      assert.deepStrictEqual(
        [entry?.title, entry?.doi, entry?.year, others.length],
        ['Deep Residual Learning for Image Recognition', '10.1109/cvpr.2016.90', 2016, 0],
        bib.getText(),
      );
      assert.deepStrictEqual(parseBibliography(bib.getText(), bibUri.fsPath).problems, [], 'the .bib still parses');

      // One undo in the manuscript takes back the key and the entry together: they were one edit.
      await vscode.commands.executeCommand('undo');
      await waitFor(
        'the undo',
        async () => (line().endsWith('\\citep{residual lear') && bib.getText() === before) || undefined,
        () => `${line()}\n${bib.getText()}`,
        10_000,
      );
      await vscode.commands.executeCommand('redo');
      await waitFor(
        'the redo',
        async () => (line().endsWith('\\citep{he2016deep') && entriesOf(bib.getText(), 'he2016deep').length === 1) || undefined,
        () => line(),
        10_000,
      );

      // Chosen again, it is cited by the key it now has, and the .bib keeps one entry.
      await typeAndAccept(editor, 'Daily aspirin lowers', ' \\citep{residual lear', 'he2016deep');
      assert.ok(tex.lineAt(uniqueRange(tex, 'Daily aspirin lowers').start.line).text.endsWith(' \\citep{he2016deep'));
      assert.strictEqual(entriesOf(bib.getText(), 'he2016deep').length, 1, bib.getText());
    } finally {
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await vscode.window.showTextDocument(bib);
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
  });
});

import * as assert from 'assert';
import * as vscode from 'vscode';
import { attestDiagnostics, describeDiagnostics, fixtureUri, uniqueRange, waitFor } from './harness';

const TYPO = 'hochreiter1997lnog';
const MEANT = 'hochreiter1997long';

suite('code actions', () => {
  test('a mistyped key offers the key it probably meant, and applying it clears the error', async () => {
    const uri = fixtureUri('typo', 'notes.tex');
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const [diagnostic] = await waitFor(
      `a missing-key diagnostic for ${TYPO}`,
      () => {
        const found = attestDiagnostics(uri, 'missing-key');
        return found.length > 0 ? found : undefined;
      },
      () => describeDiagnostics(uri),
    );
    assert.ok(diagnostic.message.includes(`Did you mean '${MEANT}'?`), diagnostic.message);

    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, uniqueRange(doc, TYPO));
    const fix = actions.find((a) => a.title === `Change to '${MEANT}'`);
    assert.ok(fix?.edit, `no fix among: ${actions.map((a) => a.title).join(', ')}`);
    assert.strictEqual(fix.isPreferred, true);
    assert.ok(await vscode.workspace.applyEdit(fix.edit));

    assert.ok(doc.getText().includes(`\\citep{${MEANT}}`), doc.getText());
    await waitFor(
      'the missing-key error to clear',
      () => (attestDiagnostics(uri, 'missing-key').length === 0 ? true : undefined),
      () => describeDiagnostics(uri),
    );
    await vscode.commands.executeCommand('undo');
    assert.ok(doc.getText().includes(`\\citep{${TYPO}}`), 'undo restores the typed key');
  });

  test('any finding can be accepted where it is: the quick fix writes the attest-ignore comment and the finding goes', async () => {
    const uri = fixtureUri('typo', 'notes.tex');
    const doc = await vscode.workspace.openTextDocument(uri);
    // The test before ends with an undo of the fix, which puts the key back; an undo is not typing, so
    // its error is not held back as that of a key being typed.
    await vscode.window.showTextDocument(doc);
    await waitFor(
      'a missing-key diagnostic',
      () => (attestDiagnostics(uri, 'missing-key').length > 0 ? true : undefined),
      () => describeDiagnostics(uri),
    );
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, uniqueRange(doc, TYPO));
    const accept = actions.find((a) => a.title === 'Accept this missing-key here (attest-ignore comment)');
    assert.ok(accept?.edit, `no accept among: ${actions.map((a) => a.title).join(', ')}`);
    assert.ok(await vscode.workspace.applyEdit(accept.edit));
    const line =
      doc
        .getText()
        .split('\n')
        .find((l) => l.includes(TYPO)) ?? '';
    assert.ok(line.endsWith(' % attest-ignore missing-key'), line);
    await waitFor(
      'the accepted missing-key error to go',
      () => (attestDiagnostics(uri, 'missing-key').length === 0 ? true : undefined),
      () => describeDiagnostics(uri),
    );
    await vscode.commands.executeCommand('undo');
    assert.ok(!doc.getText().includes('attest-ignore'), 'one undo takes the comment back');
  });
});

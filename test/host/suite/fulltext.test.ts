import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import { makePdf } from '../../unit/support/pdfs';
import { attestDiagnostics, describeDiagnostics, fixturePath, fixtureUri, hoverText, nonEmpty, uniqueRange, useUnsupportingNliModel, waitFor } from './harness';

const PASSAGE = 'Daily aspirin reduced the risk of stroke by a fifth in adults over seventy.';

/**
 * A verdict on the full text end to end: the .bib entry's `file` field names a PDF the suite
 * generates, a small ONNX model the suite builds judges its passages (see useUnsupportingNliModel),
 * and the hover, the finding and
 * "Show the evidence" all name the page and section the passage is on. The entry has no abstract, so
 * the only text the verdict can rest on is the PDF's.
 */
suite('support check on the full text', () => {
  const texUri = (): vscode.Uri => fixtureUri('fulltext', 'paper.tex');
  let restore: () => Promise<void> = async () => undefined;

  suiteSetup(async () => {
    await fs.promises.mkdir(fixturePath('fulltext', 'papers'), { recursive: true });
    const pdf = await makePdf([{ header: 'Journal of Fictional Medicine 12 (2019) 1-9', columns: [['Results', PASSAGE, '', 'References', '[1] A. Author. Aspirin. 2001.']] }]);
    await fs.promises.writeFile(fixturePath('fulltext', 'papers', 'rivera2019.pdf'), pdf);
    ({ restore } = await useUnsupportingNliModel());
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(texUri()));
  });

  suiteTeardown(async () => restore());

  test('the verdict reads the PDF of the file field, and the hover and the finding say where its evidence is', async () => {
    const [unsupported] = await waitFor(
      'an unsupported verdict on rivera2019 from its full text',
      () => nonEmpty(attestDiagnostics(texUri(), 'unsupported').filter((d) => d.message.includes('full text'))),
      () => describeDiagnostics(texUri()),
      60_000,
    );
    const tex = await vscode.workspace.openTextDocument(texUri());
    assert.ok(unsupported.range.isEqual(uniqueRange(tex, 'rivera2019')));
    assert.match(unsupported.message, /^The abstract and full text of 'rivera2019' do not support this sentence\b/);
    assert.ok(unsupported.message.endsWith(`Closest (Results, p. 1): "${PASSAGE}"`), unsupported.message);

    const text = hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', texUri(), unsupported.range.start.translate(0, 2)));
    assert.match(text, /Abstract and full text \(PDF\): unsupported/);
    assert.ok(text.includes(`Results, p. 1: ${PASSAGE}`), text);
    assert.doesNotMatch(text, /No full text/);
  });

  test('"Show the evidence" opens the full text at the passage the verdict rests on', async () => {
    let titles = '';
    const show = await waitFor(
      'the "Show the evidence" action',
      async () => {
        const [unsupported] = attestDiagnostics(texUri(), 'unsupported');
        if (!unsupported) return undefined;
        const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', texUri(), unsupported.range);
        titles = actions.map((a) => a.title).join(', ');
        return actions.find((a) => a.title === 'Show the evidence' && a.command)?.command;
      },
      () => `${titles}; ${describeDiagnostics(texUri())}`,
      15_000,
    );
    await vscode.commands.executeCommand(show.command, ...(show.arguments ?? []));
    const editor = vscode.window.activeTextEditor;
    assert.strictEqual(editor?.document.uri.scheme, 'attest-abstract');
    const lines = editor.document.getText().split('\n');
    const at = lines.indexOf(`[p. 1] ${PASSAGE}`);
    assert.ok(at > 0 && lines[at - 1] === '== Results ==', lines.join('\n'));
    assert.ok(!lines.some((line) => line.includes('Journal of Fictional Medicine 12') || line.includes('A. Author')), 'no running head nor reference list');
  });
});

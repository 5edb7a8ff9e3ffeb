import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { SourceRecord } from '../../../src/core/sources/types';
import { attestDiagnostics, describeDiagnostics, fixtureUri, hoverText, nonEmpty, screenshot, showProblems, uniqueRange, serveSources, waitFor } from './harness';

const RECORDS: SourceRecord[] = [
  {
    source: 'crossref',
    id: 'lstm',
    title: 'Long Short-Term Memory',
    authors: [
      { family: 'Hochreiter', given: 'Sepp' },
      { family: 'Schmidhuber', given: 'Jürgen' },
    ],
    year: 1997,
    venue: 'Neural Computation',
    doi: '10.1162/neco.1997.9.8.1735',
  },
  {
    source: 'crossref',
    id: 'resnet',
    title: 'Deep Residual Learning for Image Recognition',
    authors: [
      { family: 'He', given: 'Kaiming' },
      { family: 'Zhang', given: 'Xiangyu' },
      { family: 'Ren', given: 'Shaoqing' },
      { family: 'Sun', given: 'Jian' },
    ],
    year: 2016,
    venue: '2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)',
    doi: '10.1109/cvpr.2016.90',
  },
  { source: 'crossref', id: 'other', title: 'Gated Feedback Recurrent Neural Networks', authors: [{ family: 'Chung', given: 'Junyoung' }], year: 2015 },
  {
    source: 'crossref',
    id: 'spindles',
    title: 'Sleep Spindles and Overnight Memory Consolidation',
    authors: [
      { family: 'Kim', given: 'Sun' },
      { family: 'Park', given: 'Ji' },
    ],
    year: 2019,
    venue: 'Journal of Sleep Research',
    doi: '10.1111/jsr_12345',
  },
];

suite('reference check', () => {
  const texUri = (): vscode.Uri => fixtureUri('refcheck', 'paper.tex');
  const bibUri = (): vscode.Uri => fixtureUri('refcheck', 'refs.bib');
  const attest = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('attest');

  serveSources(RECORDS, texUri);

  test('a reference no source knows is an error on its citation and its entry', async () => {
    const [onCitation] = await waitFor(
      'a not-found error on the citation',
      () => nonEmpty(attestDiagnostics(texUri(), 'not-found')),
      () => describeDiagnostics(texUri()),
      20_000,
    );
    const tex = await vscode.workspace.openTextDocument(texUri());
    assert.ok(onCitation.range.isEqual(uniqueRange(tex, 'smith2023equivalence')), `at ${tex.getText(onCitation.range)}`);
    assert.strictEqual(onCitation.severity, vscode.DiagnosticSeverity.Error);
    assert.match(onCitation.message, /No record of 'smith2023equivalence' in Crossref, OpenAlex; possibly fabricated/);
    const onEntry = attestDiagnostics(bibUri(), 'not-found');
    assert.strictEqual(onEntry.length, 1, describeDiagnostics(bibUri()));
    assert.strictEqual(attestDiagnostics(bibUri()).filter((d) => /hochreiter1997lstm/.test(d.message)).length, 0, 'the correct entry is not flagged');
  });

  test('the hover of a reference no source knows says so, without lines on its full text, which nobody has', async () => {
    // A PDF folder without the works' PDFs: each cited work gets a reason why it has no full text.
    const folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'attest-pdfs-'));
    await attest().update('fullText.pdfFolder', folder, vscode.ConfigurationTarget.Workspace);
    try {
      const tex = await vscode.workspace.openTextDocument(texUri());
      const hoverOn = async (key: string): Promise<string> =>
        hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', texUri(), uniqueRange(tex, key).start.translate(0, 2)));
      let found = '';
      await waitFor(
        "a found reference's hover to say why it has no full text",
        async () => (/No full text/.test((found = await hoverOn('hochreiter1997lstm'))) ? true : undefined),
        () => found,
        30_000,
      );
      const notFound = await hoverOn('smith2023equivalence');
      assert.match(notFound, /possibly fabricated/);
      assert.doesNotMatch(notFound, /full text/i, notFound);
    } finally {
      await attest().update('fullText.pdfFolder', undefined, vscode.ConfigurationTarget.Workspace);
      await fs.promises.rm(folder, { recursive: true, force: true });
    }
  });

  test('metadata that differs from the matched record is a warning, and the hover shows the record', async () => {
    const [mismatch] = await waitFor(
      'a metadata-mismatch warning',
      () => nonEmpty(attestDiagnostics(bibUri(), 'metadata-mismatch')),
      () => describeDiagnostics(bibUri()),
      20_000,
    );
    assert.strictEqual(mismatch.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(mismatch.message, /year "2013" here, "2016" in Crossref/);
    const tex = await vscode.workspace.openTextDocument(texUri());
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', texUri(), uniqueRange(tex, 'he2015residual').start.translate(0, 2));
    assert.match(hoverText(hovers), /Matches a record in Crossref whose metadata differs/);
    await showProblems();
    await screenshot('references-problems');
  });

  test('"Use the metadata of the matched record" fixes the entry in one undoable edit', async () => {
    const bib = await vscode.workspace.openTextDocument(bibUri());
    await vscode.window.showTextDocument(bib);
    const original = bib.getText();
    const [mismatch] = attestDiagnostics(bibUri(), 'metadata-mismatch');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', bibUri(), mismatch.range);
    const fix = actions.find((a) => a.title === 'Use the metadata of the matched record');
    assert.ok(fix?.edit, `actions: ${actions.map((a) => a.title).join(', ')}`);
    assert.ok(actions.some((a) => a.title === 'Open the matched record'));
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    assert.match(bib.getText(), /year {6}= \{2016\}/);
    assert.strictEqual(bib.getText().replace(/\{2016\}/, '{2013}'), original, 'only the year changed');
    await waitFor(
      'the warning to clear',
      () => (attestDiagnostics(bibUri(), 'metadata-mismatch').length === 0 ? true : undefined),
      () => describeDiagnostics(bibUri()),
      20_000,
    );
    await vscode.commands.executeCommand('undo');
    assert.strictEqual(bib.getText(), original, 'one undo restores the entry');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  test('the fix writes a DOI with an underscore as it is, and the hover then shows the record found', async () => {
    const doiTex = fixtureUri('refcheck', 'doi.tex');
    const doiBib = fixtureUri('refcheck', 'doi.bib');
    const tex = await vscode.workspace.openTextDocument(doiTex);
    await vscode.window.showTextDocument(tex);
    const [mismatch] = await waitFor(
      'a metadata-mismatch warning on the DOI',
      () => nonEmpty(attestDiagnostics(doiBib, 'metadata-mismatch')),
      () => describeDiagnostics(doiBib),
      20_000,
    );
    // The package's page shows this moment: a hover on the citation and the Problems panel.
    const texEditor = await vscode.window.showTextDocument(tex);
    const cited = uniqueRange(tex, 'kim2019spindles').start.translate(0, 2);
    texEditor.selection = new vscode.Selection(cited, cited);
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await showProblems();
    await vscode.commands.executeCommand('editor.action.showHover');
    await screenshot('marketplace');
    await vscode.commands.executeCommand('editor.action.hideHover').then(undefined, () => undefined);
    await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
    const bib = await vscode.workspace.openTextDocument(doiBib);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doiBib, mismatch.range);
    const fix = actions.find((a) => a.title === 'Use the metadata of the matched record');
    assert.ok(fix?.edit, `actions: ${actions.map((a) => a.title).join(', ')}`);
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    try {
      assert.match(bib.getText(), /doi {5}= \{10\.1111\/jsr_12345\}/, bib.getText());
      await waitFor(
        'the warning to clear',
        () => (attestDiagnostics(doiBib, 'metadata-mismatch').length === 0 ? true : undefined),
        () => describeDiagnostics(doiBib),
        20_000,
      );
      const at = uniqueRange(tex, 'kim2019spindles').start.translate(0, 2);
      let shown = '';
      await waitFor(
        'the hover to show the record found',
        async () => {
          shown = hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doiTex, at));
          return /Found in Crossref/.test(shown) && !/metadata differs/.test(shown) ? true : undefined;
        },
        () => shown,
        20_000,
      );
    } finally {
      await vscode.window.showTextDocument(bib);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  });
});

import * as assert from 'assert';
import * as vscode from 'vscode';
import type { SourceRecord } from '../../../src/core/sources/types';
import { attestDiagnostics, describeDiagnostics, fixtureUri, nonEmpty, serveSources, waitFor } from './harness';

/** The journal version of the arXiv preprint the fixture cites: what Crossref and OpenAlex hold of it. */
const PUBLISHED: SourceRecord = {
  source: 'crossref',
  id: 'numpy',
  title: 'Array programming with NumPy',
  authors: [
    { family: 'Harris', given: 'Charles R.' },
    { family: 'Millman', given: 'K. Jarrod' },
    { family: 'van der Walt', given: 'Stéfan J.' },
    { family: 'Gommers', given: 'Ralf' },
  ],
  year: 2020,
  venue: 'Nature',
  doi: '10.1038/s41586-020-2649-2',
};

suite('a cited preprint since published', () => {
  const texUri = (): vscode.Uri => fixtureUri('preprint', 'paper.tex');
  const bibUri = (): vscode.Uri => fixtureUri('preprint', 'refs.bib');
  serveSources([PUBLISHED], texUri);

  test('is said on its entry, and "Cite the published version" rewrites the entry in one undoable edit, after which the finding goes', async () => {
    const [published] = await waitFor(
      'a preprint-published diagnostic on the entry',
      () => nonEmpty(attestDiagnostics(bibUri(), 'preprint-published')),
      () => describeDiagnostics(bibUri()),
      20_000,
    );
    assert.strictEqual(published.severity, vscode.DiagnosticSeverity.Information);
    assert.match(published.message, /'harris2020array' cites a preprint that has since been published in Nature, 2020 \(DOI 10\.1038\/s41586-020-2649-2\)/);

    const bib = await vscode.workspace.openTextDocument(bibUri());
    await vscode.window.showTextDocument(bib);
    const original = bib.getText();
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', bibUri(), published.range);
    const fix = actions.find((a) => a.title === 'Cite the published version');
    assert.ok(fix?.edit, `actions: ${actions.map((a) => a.title).join(', ')}`);
    assert.strictEqual(fix.isPreferred, true);
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    try {
      const rewritten = bib.getText();
      assert.match(rewritten, /^@article\{harris2020array,/, rewritten);
      assert.match(rewritten, /journal\s*=\s*\{Nature\}/, rewritten);
      assert.match(rewritten, /doi\s*=\s*\{10\.1038\/s41586-020-2649-2\}/, rewritten);
      assert.match(rewritten, /keywords = \{numpy, arrays\}/, "the writer's own field is kept");
      assert.doesNotMatch(rewritten, /eprint|arXiv/i, rewritten);
      await waitFor(
        'the preprint-published finding to go',
        () => (attestDiagnostics(bibUri(), 'preprint-published').length === 0 ? true : undefined),
        () => describeDiagnostics(bibUri()),
        20_000,
      );
      assert.deepStrictEqual(
        attestDiagnostics(bibUri()).map((d) => d.message),
        [],
        'the published version is found as cited',
      );
      await vscode.commands.executeCommand('undo');
      assert.strictEqual(bib.getText(), original, 'one undo restores the preprint entry');
    } finally {
      await vscode.window.showTextDocument(bib);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  });
});

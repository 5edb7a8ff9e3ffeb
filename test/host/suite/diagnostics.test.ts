import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { AttestApi } from '../../../src/extension/extension';
import { attestDiagnostics, describeDiagnostics, fixturePath, fixtureUri, formatRange, screenshot, showProblems, uniqueRange, waitFor } from './harness';

const MISSING = 'missingkey2020';
const UNUSED = 'jumper2021highly';
const CITED = ['lecun2015deep', 'hochreiter1997long', 'he2016deep', 'silver2016mastering'];

const MISSING_ENTRY = `
@article{${MISSING},
  author  = {Doe, Jane and Roe, Richard},
  title   = {Gating and Residual Connections Are Two Views of One Idea},
  journal = {Journal of Imaginary Results},
  year    = {2020},
  volume  = {1},
  pages   = {1--10},
  doi     = {10.0000/jir.2020.001}
}
`;

suite('diagnostics', () => {
  const texUri = (): vscode.Uri => fixtureUri('paper.tex');
  const bibUri = (): vscode.Uri => fixtureUri('refs.bib');
  let originalBib = '';

  suiteSetup(async () => {
    originalBib = await fs.promises.readFile(fixturePath('refs.bib'), 'utf8');
    const doc = await vscode.workspace.openTextDocument(texUri());
    await vscode.window.showTextDocument(doc);
  });

  // Later suites expect the fixture's bibliography, whatever happened here.
  suiteTeardown(async () => {
    const now = await fs.promises.readFile(fixturePath('refs.bib'), 'utf8');
    if (now !== originalBib) await fs.promises.writeFile(fixturePath('refs.bib'), originalBib);
  });

  test("the status bar item counts the manuscript's errors, warnings and notes in its text, not only in its tooltip", async () => {
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(texUri()));
    const api = await vscode.extensions.getExtension<AttestApi>('attest.attest')?.activate();
    assert.ok(api);
    const severities = [vscode.DiagnosticSeverity.Error, vscode.DiagnosticSeverity.Warning, vscode.DiagnosticSeverity.Information];
    const expected = (): string => {
      const all = [...attestDiagnostics(texUri()), ...attestDiagnostics(bibUri())];
      const [errors, warnings, notes] = severities.map((severity) => all.filter((d) => d.severity === severity).length);
      return `$(error) ${errors} $(warning) ${warnings} $(info) ${notes}`;
    };
    const text = await waitFor(
      'the status bar item to count the missing key among its errors',
      () => {
        const shown = api.statusBar()?.text;
        return attestDiagnostics(texUri(), 'missing-key').length > 0 && shown?.includes(expected()) ? shown : undefined;
      },
      () => `shown: ${api.statusBar()?.text}; expected it to hold ${expected()}`,
    );
    assert.match(text, /^Attest \$\(error\) [1-9]/);
  });

  test('a key that no bibliography defines is an error on exactly that key', async () => {
    const doc = await vscode.workspace.openTextDocument(texUri());
    const [d] = await waitFor(
      `a missing-key diagnostic for ${MISSING}`,
      () => {
        const found = attestDiagnostics(texUri(), 'missing-key').filter((x) => x.message.includes(MISSING));
        return found.length > 0 ? found : undefined;
      },
      () => describeDiagnostics(texUri()),
    );
    assert.strictEqual(d.severity, vscode.DiagnosticSeverity.Error, 'severity');
    const expected = uniqueRange(doc, MISSING);
    assert.ok(d.range.isEqual(expected), `range ${formatRange(d.range)} should cover exactly "${MISSING}" at ${formatRange(expected)} (text under it: "${doc.getText(d.range)}")`);

    const missingKeys = attestDiagnostics(texUri(), 'missing-key');
    assert.strictEqual(missingKeys.length, 1, `only ${MISSING} is missing; got ${describeDiagnostics(texUri())}`);
    for (const key of CITED) {
      assert.ok(!missingKeys.some((x) => x.message.includes(key)), `${key} is in refs.bib but was reported missing`);
    }
  });

  test('an entry nothing cites is an unnecessary hint in the .bib', async () => {
    const bib = await vscode.workspace.openTextDocument(bibUri());
    const unused = await waitFor(
      `an unused-entry diagnostic for ${UNUSED} in refs.bib`,
      () => {
        const found = attestDiagnostics(bibUri(), 'unused-entry');
        return found.length > 0 ? found : undefined;
      },
      () => describeDiagnostics(bibUri()),
    );
    assert.strictEqual(unused.length, 1, `only ${UNUSED} is uncited; got ${describeDiagnostics(bibUri())}`);
    const [d] = unused;
    assert.strictEqual(d.severity, vscode.DiagnosticSeverity.Hint, 'severity');
    assert.ok(d.tags?.includes(vscode.DiagnosticTag.Unnecessary), 'tagged Unnecessary (rendered faded)');
    const keyRange = uniqueRange(bib, `{${UNUSED},`);
    assert.ok(d.range.intersection(keyRange) !== undefined, `range ${formatRange(d.range)} should be on the ${UNUSED} entry's key at ${formatRange(keyRange)}`);
  });

  test('adding the entry to the .bib on disk clears the error', async () => {
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(texUri()));
    await waitFor(
      `the missing-key diagnostic for ${MISSING}`,
      () => (attestDiagnostics(texUri(), 'missing-key').length > 0 ? true : undefined),
      () => describeDiagnostics(texUri()),
    );
    await showProblems();
    await screenshot('diagnostics-problems-before');

    // On disk, not through an editor: the extension has to notice by watching .bib files.
    await fs.promises.writeFile(fixturePath('refs.bib'), originalBib + MISSING_ENTRY);

    await waitFor(
      `the missing-key diagnostic for ${MISSING} to go away after adding the entry`,
      () => (attestDiagnostics(texUri(), 'missing-key').length === 0 ? true : undefined),
      () => describeDiagnostics(texUri()),
    );
    await showProblems();
    await screenshot('diagnostics-problems-after');
  });

  test('removing the entry again brings the error back', async () => {
    await fs.promises.writeFile(fixturePath('refs.bib'), originalBib);
    await waitFor(
      `the missing-key diagnostic for ${MISSING} to come back`,
      () => (attestDiagnostics(texUri(), 'missing-key').some((d) => d.message.includes(MISSING)) ? true : undefined),
      () => describeDiagnostics(texUri()),
    );
  });
});

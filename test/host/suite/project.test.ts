import * as assert from 'assert';
import * as vscode from 'vscode';
import { attestDiagnostics, describeDiagnostics, fixtureUri, formatRange, uniqueRange, waitFor } from './harness';

const MISSING = 'absent2024nowhere';

// A chapter in a folder of its own names its files as LaTeX reads them, from the root's folder.
suite('a chapter of a project', () => {
  const chapter = (): vscode.Uri => fixtureUri('project', 'chapters', 'one.tex');
  const included = (): vscode.Uri => fixtureUri('project', 'chapters', 'two.tex');

  test("opened alone, it is checked from its root: its \\input and \\bibliography found in the root's folder, a missing key marked exactly", async () => {
    const doc = await vscode.workspace.openTextDocument(chapter());
    await vscode.window.showTextDocument(doc);
    const [missing] = await waitFor(
      `a missing-key diagnostic for ${MISSING} in chapters/one.tex`,
      () => {
        const found = attestDiagnostics(chapter(), 'missing-key');
        return found.length > 0 ? found : undefined;
      },
      () => describeDiagnostics(chapter()),
      // The first check of a chapter in a cold host also searches the workspace for its root.
      30_000,
    );
    const expected = uniqueRange(doc, MISSING);
    assert.ok(missing.range.isEqual(expected), `range ${formatRange(missing.range)} should cover "${MISSING}" at ${formatRange(expected)}`);
    assert.deepStrictEqual(
      attestDiagnostics(chapter()).map((d) => d.message.includes(MISSING)),
      [true],
      `only ${MISSING} is reported: project/refs.bib and chapters/two.tex are found; got ${describeDiagnostics(chapter())}`,
    );
    assert.deepStrictEqual(attestDiagnostics(included()), [], describeDiagnostics(included()));
  });
});

import * as assert from 'assert';
import * as vscode from 'vscode';
import { attestDiagnostics, describeDiagnostics, fixtureUri, hoverText, screenshot, uniqueRange, waitFor } from './harness';

interface Expected {
  key: string;
  title: string;
  family: RegExp;
  year: string;
  doi: string;
}

const CASES: Expected[] = [
  {
    key: 'hochreiter1997long',
    title: 'Long Short-Term Memory',
    family: /\bHochreiter\b/,
    year: '1997',
    doi: '10.1162/neco.1997.9.8.1735',
  },
  {
    // Cited with optional arguments: \citep[see][]{he2016deep}.
    key: 'he2016deep',
    title: 'Deep Residual Learning for Image Recognition',
    family: /\bHe\b/,
    year: '2016',
    doi: '10.1109/CVPR.2016.90',
  },
];

const MISSING = 'missingkey2020';

suite('hover', () => {
  const texUri = (): vscode.Uri => fixtureUri('paper.tex');
  let doc: vscode.TextDocument;

  suiteSetup(async () => {
    doc = await vscode.workspace.openTextDocument(texUri());
    await vscode.window.showTextDocument(doc);
  });

  async function hoverAt(position: vscode.Position): Promise<string> {
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', texUri(), position);
    return hoverText(hovers ?? []);
  }

  for (const c of CASES) {
    test(`a cited key shows its entry: ${c.key}`, async () => {
      const key = uniqueRange(doc, `{${c.key}}`);
      // Inside the key, not on its first character, so a range off by one still fails.
      const inside = key.start.translate(0, 4);
      const doiLink = new RegExp(`https://doi\\.org/${c.doi.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`, 'i');
      const complete = (t: string): boolean => t.includes(c.title) && c.family.test(t) && t.includes(c.year) && doiLink.test(t);

      let last = '';
      await waitFor(
        `a hover on ${c.key} with title, first author, year and DOI link`,
        async () => {
          last = await hoverAt(inside);
          return complete(last) ? true : undefined;
        },
        () => (last ? JSON.stringify(last) : 'no hover at all'),
      );

      // Show it as a user would get it, for the screenshot only.
      const editor = await vscode.window.showTextDocument(doc);
      editor.selection = new vscode.Selection(inside, inside);
      await vscode.commands.executeCommand('editor.action.showHover');
      await screenshot(`hover-${c.key}`);
      await vscode.commands.executeCommand('editor.action.hideHover').then(undefined, () => undefined);
    });
  }

  test('the missing key is said once, by its error, not again by a hover of its own', async () => {
    // The diagnostics suite edits refs.bib; wait until the extension sees it restored.
    const [missing] = await waitFor(
      `the missing-key diagnostic for ${MISSING}`,
      () => {
        const found = attestDiagnostics(texUri(), 'missing-key');
        return found.length > 0 ? found : undefined;
      },
      () => describeDiagnostics(texUri()),
    );
    assert.match(missing.message, new RegExp(`'${MISSING}' is not in any bibliography`));
    const inside = uniqueRange(doc, `{${MISSING}}`).start.translate(0, 4);
    // A hover on a cited key that has an entry comes first, so the provider has had its chance.
    await hoverAt(uniqueRange(doc, `{${CASES[0].key}}`).start.translate(0, 4));
    assert.strictEqual(await hoverAt(inside), '', 'VS Code shows the error in the hover already');
  });
});

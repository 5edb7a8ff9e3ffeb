import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';

// Proves the harness itself: a failure here means run.js, not the extension.
suite('host harness', () => {
  test('the workspace is a temporary copy of the fixture workspace', () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.strictEqual(folders.length, 1, 'exactly one workspace folder');
    const root = folders[0].uri.fsPath;
    const fixtures = path.resolve(__dirname, '../../../../test/host/fixtures/workspace');
    assert.notStrictEqual(path.resolve(root), fixtures, 'tests must run on a copy, never on the fixtures');
    assert.ok(path.basename(root) === 'workspace', `unexpected folder ${root}`);
    assert.ok(process.env.ATTEST_HOST_WORKSPACE, 'run.js passes the workspace path');
    assert.strictEqual(path.resolve(root), path.resolve(process.env.ATTEST_HOST_WORKSPACE ?? ''));
  });

  test('the extension under test is loaded from where run.js put it (the repo, a package, or an installed VSIX)', () => {
    const ext = vscode.extensions.getExtension('attest.attest');
    assert.ok(ext, 'extension attest.attest is known to the extension host');
    const installedIn = process.env.ATTEST_HOST_EXTENSIONS_DIR;
    if (installedIn) {
      assert.strictEqual(path.dirname(path.resolve(ext.extensionPath)), path.resolve(installedIn));
      return;
    }
    const expected = process.env.ATTEST_HOST_EXTENSION ?? path.resolve(__dirname, '../../../..');
    assert.strictEqual(path.resolve(ext.extensionPath), expected);
  });
});

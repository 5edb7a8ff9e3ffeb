import * as vscode from 'vscode';
import { readTextFile } from '../core/text/readFile';
import type { Workspace } from '../core/workspace';

/**
 * Lets core read what the user sees: the editor's buffer for open documents (unsaved edits included),
 * the file system otherwise, through the same bounded reader as the CLI.
 */
export class EditorWorkspace implements Workspace {
  constructor(private readonly maxFileBytes: () => number) {}

  async readText(file: string): Promise<string | undefined> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme !== 'git' && d.uri.fsPath === file && !d.isClosed);
    if (open) return open.getText();
    return (await readTextFile(file, this.maxFileBytes()))?.text;
  }
}

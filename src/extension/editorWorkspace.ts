import * as vscode from 'vscode';
import { FileTooLargeError, readTextFile, UnreadableFileError, type Workspace } from '../core/app/text';

/**
 * Lets core read what the user sees: the editor's buffer for open documents (unsaved edits included),
 * the file system otherwise, through the same bounded reader as the CLI.
 */
export class EditorWorkspace implements Workspace {
  constructor(private readonly maxFileBytes: () => number) {}

  async readText(file: string): Promise<string | undefined> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme !== 'git' && d.uri.fsPath === file && !d.isClosed);
    if (open) return open.getText();
    try {
      return (await readTextFile(file, this.maxFileBytes()))?.text;
    } catch (error) {
      if (!(error instanceof FileTooLargeError)) throw error;
      throw new UnreadableFileError(file, vscode.l10n.t('{0} is larger than the attest.check.maxFileSizeMB setting allows; it was not read.', file));
    }
  }
}

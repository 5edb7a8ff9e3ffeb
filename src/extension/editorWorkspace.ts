import * as vscode from 'vscode';
import { decodeText, UnreadableFileError } from '../core/text/decode';
import type { Workspace } from '../core/workspace';

/**
 * Lets core read what the user sees: the editor's buffer for open documents (unsaved edits included),
 * the file system otherwise.
 */
export class EditorWorkspace implements Workspace {
  constructor(private readonly maxFileBytes: () => number) {}

  async readText(file: string): Promise<string | undefined> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme !== 'git' && d.uri.fsPath === file && !d.isClosed);
    if (open) return open.getText();
    const uri = vscode.Uri.file(file);
    let stat: vscode.FileStat;
    try {
      stat = await vscode.workspace.fs.stat(uri);
    } catch {
      return undefined;
    }
    if (stat.type !== vscode.FileType.File) return undefined;
    if (stat.size > this.maxFileBytes()) {
      throw new UnreadableFileError(
        file,
        vscode.l10n.t('{0} is larger than the attest.check.maxFileSizeMB setting allows; it was not read.', file),
      );
    }
    return decodeText(await vscode.workspace.fs.readFile(uri), file);
  }
}

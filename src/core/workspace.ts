import { UnreadableFileError } from './text/decode';

/**
 * How core reads the user's files. The extension supplies one that prefers open editor buffers,
 * the CLI one that reads the disk; tests supply an in-memory one. Core never writes through it.
 */
export interface Workspace {
  /**
   * The text of a file, or undefined when it does not exist. Throws `UnreadableFileError` when it
   * exists but cannot be read as text (binary, too large, a FIFO, device or folder, permission denied).
   */
  readText(path: string): Promise<string | undefined>;
}

/** Reads a file, turning "exists but is not text" into a reason instead of an exception. */
export async function readIfText(workspace: Workspace, file: string): Promise<{ text?: string; error?: string }> {
  try {
    return { text: await workspace.readText(file) };
  } catch (error) {
    if (error instanceof UnreadableFileError) return { error: error.message };
    throw error;
  }
}

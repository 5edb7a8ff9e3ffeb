/**
 * How core reads the user's files. The extension supplies one that prefers open editor buffers,
 * the CLI one that reads the disk; tests supply an in-memory one. Core never writes through it.
 */
export interface Workspace {
  /** The text of a file, or undefined when it does not exist or is not readable as text. */
  readText(path: string): Promise<string | undefined>;
}

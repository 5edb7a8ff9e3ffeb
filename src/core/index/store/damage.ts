/** What counts as damage to the store's files, as against an error that may pass. */
import { NotRegularFileError } from '../../text/readFile';
import { DamagedSegment } from '../segment';

/** What the files say is wrong with them: rebuilding from what can be read loses nothing readable. */
export class DamagedStore extends Error {}

/**
 * What the files say, or a file the manifest names gone for good, or something other than a file
 * where the library keeps one (a FIFO, a link to a device): not an error that may pass.
 */
export function isDamage(error: unknown): boolean {
  return error instanceof DamagedStore || error instanceof DamagedSegment || error instanceof SyntaxError || error instanceof NotRegularFileError || isMissingFile(error);
}

export function isMissingFile(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

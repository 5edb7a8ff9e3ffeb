/** The errors a user hears about the paper library: each says that its files were left as they were, and what to do. */
import { errorMessage } from './damage';
import { STORE_VERSION } from './manifest';

/** What the user must hear about the paper library's files: nothing was changed or lost. */
export class StoreError extends Error {}

/**
 * The store could not be read for a reason that may pass (permissions, I/O, too many open files).
 * Nothing was changed; reading again later may succeed.
 */
export class StoreReadError extends StoreError {
  constructor(dir: string, cause: unknown, advice = "Check the folder's permissions and try again.") {
    super(`The paper library in ${dir} could not be read (${errorMessage(cause)}); it was left as it is. ${advice}`);
    this.name = 'StoreReadError';
  }
}

/**
 * A library written by a newer Attest, in a format this one does not know: shared with a colleague or
 * another installation, it is theirs to keep, so it is neither rebuilt nor written over.
 */
export class NewerStoreError extends StoreReadError {
  constructor(dir: string, version: number) {
    super(dir, `it is format version ${version}; this Attest reads version ${STORE_VERSION}`, 'Update Attest to use it.');
    this.name = 'NewerStoreError';
  }
}

/**
 * A save that could not be made (a full disk, a folder that may not be written, another writer that
 * holds the lock too long). The files hold what they held before; the papers stay in memory, and the
 * next save writes them.
 */
export class StoreWriteError extends StoreError {
  constructor(dir: string, what: string, advice: string) {
    super(`The paper library in ${dir} could not be saved (${what}); its files hold what they held before. ${advice}`);
    this.name = 'StoreWriteError';
  }

  static of(dir: string, error: unknown): StoreError {
    if (error instanceof StoreError) return error;
    return new StoreWriteError(dir, errorMessage(error), adviceFor((error as NodeJS.ErrnoException | undefined)?.code));
  }
}

function adviceFor(code: string | undefined): string {
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'Free some space on its disk and add the papers again.';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOTDIR' || code === 'EEXIST')
    return 'Check that the folder, and its write.lock, can be written, and add the papers again.';
  return 'Add the papers again.';
}

import { execFileSync } from 'node:child_process';

const NOBODY = 65534;

/**
 * Runs a permission check as a user file modes apply to. Root reads any file whatever its mode, so
 * under root the check runs in a child Node process as `nobody`, and `script` prints its outcome.
 */
export async function asUnprivilegedUser(inProcess: () => Promise<string>, script: string): Promise<string> {
  if (process.getuid?.() !== 0) return inProcess();
  return execFileSync(process.execPath, ['-e', script], { uid: NOBODY, gid: NOBODY, encoding: 'utf8' });
}

import { execFileSync, spawnSync } from 'node:child_process';

const NOBODY = 65534;

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * Skips a permission test where file modes cannot be made to apply: under root, when `nobody` cannot
 * load Attest's compiled code (a checkout inside a private folder such as /root).
 */
export function skipUnlessModesApply(test: Mocha.Context, module: string): void {
  if (!isRoot()) return;
  const probe = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(module)})`], { uid: NOBODY, gid: NOBODY });
  if (probe.status !== 0) test.skip();
}

/**
 * Runs a permission check as a user file modes apply to. Root reads any file whatever its mode, so
 * under root the check runs in a child Node process as `nobody`, and `script` prints its outcome.
 */
export async function asUnprivilegedUser(inProcess: () => Promise<string>, script: string): Promise<string> {
  if (!isRoot()) return inProcess();
  return execFileSync(process.execPath, ['-e', script], { uid: NOBODY, gid: NOBODY, encoding: 'utf8' });
}

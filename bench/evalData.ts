import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** Evaluation data nobody on the team wrote, kept outside the repository: `ATTEST_EVAL_DATA`, else `../shared/data`. */
export const EVAL_DATA = path.resolve(process.env.ATTEST_EVAL_DATA || path.resolve(__dirname, '../../../shared/data'));

/**
 * Whether every named file of the evaluation data is at hand; when one is not, says in one line
 * which part of the benchmark is skipped, so a clone without the data still runs the rest.
 */
export function haveEvalData(part: string, ...files: string[]): boolean {
  const missing = files.find((file) => !existsSync(path.join(EVAL_DATA, file)));
  if (missing === undefined) return true;
  console.log(`  ${part}: skipped, ${path.join(EVAL_DATA, missing)} is absent (set ATTEST_EVAL_DATA to the evaluation data folder)`);
  return false;
}

import * as fs from 'fs';

/**
 * Hands a measured figure to whoever started the host (bench/host.bench.ts), as one JSON line appended
 * to ATTEST_HOST_FIGURES: the extension host's console reaches run.js only re-logged by the workbench.
 * Without that variable (the tests, `npm test`) there is nobody to hand it to.
 */
export function recordFigure(figure: Record<string, unknown>): void {
  const file = process.env.ATTEST_HOST_FIGURES;
  if (file) fs.appendFileSync(file, JSON.stringify(figure) + '\n');
}

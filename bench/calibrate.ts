/**
 * `npm run calibrate -- [MODEL_DIR]`: measures how often a model's `supported` verdicts are right on
 * the dev splits (SciFact, Citation-Integrity, Check-COVID; never a test file), judged as Attest judges
 * a citation, and writes what it found into the folder's attest.json as `calibration` (judging.ts):
 * the entailment from which a verdict is shown as sure, and the share right by probability. Without
 * MODEL_DIR, the built-in model (models/attest-nli). Any model folder with an attest.json can be
 * calibrated, so a retrained model carries its own.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { builtInNliFolder } from '../src/core/models/builtIn';
import { calibrate, type Calibration, type JudgedPair } from '../src/core/models/calibration';
import { calibrationJson } from '../src/core/models/judging';
import { OnnxNliModel } from '../src/core/models/nli';
import { devSplits, judgeDev } from './nli.bench';

async function main(): Promise<number> {
  const dir = process.argv[2] ?? (await builtInNliFolder());
  if (dir === undefined) {
    console.error('calibrate: no model folder given and models/attest-nli is not in this repository');
    return 2;
  }
  const file = path.join(dir, 'attest.json');
  const attest = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  const splits = (await devSplits()).filter((s) => !s.variant);
  if (splits.length < 3) {
    console.error('calibrate: every dev split is needed; set ATTEST_EVAL_DATA to the evaluation data folder');
    return 2;
  }
  const model = await OnnxNliModel.load(dir, { preferQuantized: true, threads: 2 });
  const lowest = model.judging?.thresholds.entailment;
  if (lowest === undefined) {
    await model.dispose();
    console.error(`calibrate: ${file} has no thresholds to calibrate`);
    return 2;
  }
  const pairs: JudgedPair[] = [];
  try {
    for (const { data } of splits) {
      const judged = await judgeDev(data, model, `calibrate:${dir}`);
      const said = judged.filter((j) => j.judgement.label === 'supported');
      pairs.push(...said.map((j) => ({ entailment: j.judgement.entailment ?? 0, right: j.gold === 'supported' })));
      console.log(`${data.name}: ${judged.length} pairs, ${said.length} called supported, ${said.filter((j) => j.gold === 'supported').length} of them right`);
    }
  } finally {
    await model.dispose();
  }
  const calibration = calibrate(
    pairs,
    lowest,
    splits.flatMap((s) => s.files),
  );
  await fs.writeFile(file, `${JSON.stringify({ ...attest, calibration: calibrationJson(calibration) }, null, 2)}\n`);
  console.log(describe(calibration, pairs, lowest));
  console.log(`written to ${file}`);
  return 0;
}

/** The chosen level and what each level keeps, pooled over the dev splits. */
function describe(calibration: Calibration, pairs: readonly JudgedPair[], lowest: number): string {
  const level = (from: number, to: number): string => {
    const said = pairs.filter((p) => p.entailment >= from && p.entailment < to);
    const right = said.filter((p) => p.right).length;
    return `${said.length} verdicts, ${right} right (${said.length === 0 ? 'n/a' : `${((100 * right) / said.length).toFixed(1)}%`})`;
  };
  const strong = calibration.strongEntailment;
  return [
    `supported (shown as sure) from entailment ${Number.isFinite(strong) ? strong : 'never'}: ${Number.isFinite(strong) ? level(strong, Infinity) : 'no level reached the precision asked'}`,
    `may support from ${lowest}${Number.isFinite(strong) ? ` to ${strong}` : ''}: ${level(lowest, strong)}`,
    ...calibration.bins.map((b) => `  [${b.from}, ${b.to}${b.to === 1 ? ']' : ')'}: ${b.right} of ${b.verdicts} right`),
  ].join('\n');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

import { main } from '../../../src/cli/main';

/** What one run of the CLI gave: its exit status and what it wrote to each stream. */
export interface Run {
  code: number;
  out: string;
  err: string;
}

/** Runs `attest …args` in this process, capturing its output. */
export async function attest(...args: string[]): Promise<Run> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

import { distance } from 'fastest-levenshtein';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Console } from './console';

export type Parsed<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/**
 * A command's arguments, parsed by node:util's parseArgs, with what it leaves to its caller:
 * `--help` prints the command's usage, and an unknown option is named with the nearest known one
 * instead of parseArgs' own advice about positionals. Returns the exit status instead when the
 * command is not to run: 0 after `--help`, 2 after a mistake (said in one line, see `usageError`).
 */
export function parseCommandLine<T extends ParseArgsConfig>(command: string, config: T, usage: string, io: Console): Parsed<T> | number {
  const args = config.args ?? [];
  const end = args.indexOf('--');
  const flags = end === -1 ? args : args.slice(0, end);
  if (flags.includes('--help') || flags.includes('-h')) {
    io.out(`${usage}\n`);
    return 0;
  }
  try {
    return parseArgs(config);
  } catch (error) {
    return usageError(command, problemOf(error as NodeJS.ErrnoException, Object.keys(config.options ?? {})), io);
  }
}

/**
 * Says a command-line mistake in one line, and where the usage is, rather than under the whole usage,
 * where the one line that matters was lost. Returns the exit status of a usage error.
 */
export function usageError(command: string, problem: string, io: Console): number {
  io.err(`attest ${command}: ${problem}\nRun \`attest help ${command}\` for usage.\n`);
  return 2;
}

function problemOf(error: NodeJS.ErrnoException, options: readonly string[]): string {
  const unknown = error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '([^']*)'/.exec(error.message)?.[1] : undefined;
  if (unknown === undefined) return error.message;
  const guess = nearest(
    unknown,
    ['help', ...options].map((name) => `--${name}`),
  );
  return `unknown option ${unknown}${guess ? `; did you mean ${guess}?` : ''}`;
}

/** The option a mistyped one most likely meant: a typo or two away, or the only one it begins. */
function nearest(given: string, known: readonly string[]): string | undefined {
  const ranked = known.map((name) => ({ name, d: distance(given, name) })).sort((a, b) => a.d - b.d);
  if (ranked.length > 0 && ranked[0].d <= Math.min(2, Math.floor(given.length / 3))) return ranked[0].name;
  const prefixed = known.filter((name) => given.length > 3 && name.startsWith(given));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

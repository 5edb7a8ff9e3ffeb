import { forTerminal } from './terminal';

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE = 2;

/** Output streams, so tests can capture what a user would see. */
export interface Console {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Standard error carries only lines of text, many quoting outside text (file names, parse problems, a
 * model's notes): its control characters are escaped here, once, for every command. Standard output is
 * escaped by each text format (`formatText`), since JSON and SARIF escape for themselves.
 */
export const processConsole: Console = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(forTerminal(text, '\n')),
};

import type { ImportResult } from '../core/app/library';
import type { Console } from './console';

/** How many problems of one file are listed before the rest are only counted. */
const SHOWN_PROBLEMS = 20;

/** A file's unreadable lines, the first few listed as they come and the rest counted at the end. */
export class ProblemReport {
  private problems = 0;
  private leftOut = 0;

  constructor(
    private readonly file: string,
    private readonly io: Console,
  ) {}

  add(result: ImportResult): void {
    for (const problem of result.problems) {
      if (this.problems++ < SHOWN_PROBLEMS) this.io.err(`attest index: ${this.file}:${problem.line}: ${problem.message}\n`);
    }
    this.leftOut += result.leftOut;
  }

  finish(): void {
    if (this.problems > SHOWN_PROBLEMS) this.io.err(`attest index: ${this.file}: ${this.problems - SHOWN_PROBLEMS} more lines could not be read\n`);
    if (this.leftOut > 0) this.io.err(`attest index: ${this.file}: ${this.leftOut} ${this.leftOut === 1 ? 'entry' : 'entries'} without an abstract left out\n`);
  }
}

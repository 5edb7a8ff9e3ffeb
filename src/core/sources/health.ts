import type { SourceId } from './ids';

/**
 * Why a source could not answer. None of these means the work does not exist. 'unreachable': no
 * connection was made (no network, a proxy, a firewall, a wrong address); 'unavailable': it was made
 * and the answer was an error.
 */
export type SourceErrorKind = 'offline' | 'rate-limited' | 'unreachable' | 'unavailable' | 'timeout' | 'malformed' | 'cancelled' | 'unauthorized';

/** Failures in a row after which a source is left alone: each one costs a check seconds. */
const STRIKES_TO_SKIP = 3;
/** Outside a check (a live search, a hover), about the length of one: a source that recovers is soon asked again. */
const SKIP_FOR_MS = 5 * 60_000;

/**
 * What one source has shown, shared by all of its HTTP clients: whether it has given a well-formed
 * answer (only then is its 404 for an identifier believed), and whether it has failed so often in a
 * row (timeouts, 429s, errors) that asking it again only slows the check down.
 */
export class SourceHealth {
  private answered = false;
  private strikes = 0;
  private skipped?: { readonly reason: string; readonly kind: SourceErrorKind; readonly until: number };

  /**
   * @param skipForMs how long a source that failed is left alone
   * @param skipSpan the same, as the message saying it is skipped puts it
   */
  constructor(
    private readonly skipForMs = SKIP_FOR_MS,
    readonly skipSpan = 'for a few minutes',
  ) {}

  /** Whether a well-formed answer came from the source since this object was made. */
  get hasAnswered(): boolean {
    return this.answered;
  }

  /** Why the source is skipped now, or undefined when it is asked. */
  skipReason(): { readonly reason: string; readonly kind: SourceErrorKind } | undefined {
    if (this.skipped && Date.now() >= this.skipped.until) {
      this.skipped = undefined;
      this.strikes = 0;
    }
    return this.skipped;
  }

  succeeded(): void {
    this.answered = true;
    this.strikes = 0;
  }

  /** Counts a failure; the third in a row leaves the source alone for a while. */
  failed(kind: SourceErrorKind, message: string): void {
    if (kind === 'cancelled') return;
    this.strikes++;
    if (this.strikes >= STRIKES_TO_SKIP) this.skip(kind, `${STRIKES_TO_SKIP} failures in a row, the last: ${message}`);
  }

  /** Leaves the source alone for a while at once, as when it asks Attest to wait longer than a check can. */
  skip(kind: SourceErrorKind, reason: string): void {
    this.skipped ??= { kind, reason, until: Date.now() + this.skipForMs };
  }
}

/**
 * One check of the references (an editor check, a CLI run): a source that keeps failing during it is
 * skipped until it ends, so every later reference is not held up by it again, and the next check asks
 * it afresh.
 */
export class CheckRun {
  private readonly health = new Map<SourceId, SourceHealth>();

  of(source: SourceId): SourceHealth {
    let health = this.health.get(source);
    if (!health) {
      health = new SourceHealth(Number.POSITIVE_INFINITY, 'for the rest of this check');
      this.health.set(source, health);
    }
    return health;
  }
}

/**
 * One signal shared by many pieces of work, each given a signal of its own that aborts with it.
 *
 * Every request waiting at a source's gate or between retries listens to its signal. Given a check's
 * signal itself, a check of many citations hangs dozens of listeners on it at once (Node warns of a
 * leak past 10); given a child each, the check's signal carries this fan-out's one listener, and each
 * child only the few of its own piece of work. A child is let go when its work ends, and `dispose`
 * takes the listener off the shared signal, which may live longer than the work (an editor session's).
 */
export class SignalFanOut {
  private readonly children = new Set<AbortController>();
  private readonly abortChildren = (): void => {
    for (const child of this.children) child.abort(this.shared?.reason);
    this.children.clear();
  };

  constructor(private readonly shared: AbortSignal | undefined) {
    shared?.addEventListener('abort', this.abortChildren, { once: true });
  }

  /** Runs `work` with a signal of its own, aborted when the shared one is (or already aborted). */
  async run<T>(work: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    if (!this.shared) return work(undefined);
    const child = new AbortController();
    if (this.shared.aborted) child.abort(this.shared.reason);
    else this.children.add(child);
    try {
      return await work(child.signal);
    } finally {
      this.children.delete(child);
    }
  }

  dispose(): void {
    this.shared?.removeEventListener('abort', this.abortChildren);
    this.children.clear();
  }
}

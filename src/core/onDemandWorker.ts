import { Worker } from 'node:worker_threads';

/**
 * A worker thread started on first use and started afresh after it dies, with the calls waiting on
 * it: they reject when it dies or is closed, and it keeps the process alive only while one waits.
 * The parser thread and the paper library's thread each own one.
 */
export class OnDemandWorker<Call extends { reject(error: Error): void }> {
  private worker: Worker | undefined;
  private readonly calls = new Map<number, Call>();

  /**
   * @param what names the thread in errors, as a sentence's subject ("The parser thread").
   * @param onStart listens to a worker just started (and sets it up).
   */
  constructor(
    private readonly file: string,
    private readonly what: string,
    private readonly onStart: (worker: Worker) => void,
  ) {}

  /** The running worker, started now if there is none. */
  start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.file);
    const stop = (error: Error): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.rejectAll(error);
    };
    worker.on('error', (error) => stop(new Error(`${this.what} failed: ${error.message}`)));
    worker.on('exit', (code) => stop(new Error(`${this.what} stopped (exit code ${code}).`)));
    this.worker = worker;
    this.onStart(worker);
    return worker;
  }

  /** Whether `worker` is still the running one: a dead worker's late messages are dropped. */
  isRunning(worker: Worker): boolean {
    return this.worker === worker;
  }

  /** Registers a call that waits on the worker, which is started if need be. */
  wait(id: number, call: Call): Worker {
    const worker = this.start();
    if (this.calls.size === 0) worker.ref();
    this.calls.set(id, call);
    return worker;
  }

  waiting(id: number): Call | undefined {
    return this.calls.get(id);
  }

  /** The call with this id, no longer waiting: answered or given up. */
  settle(id: number): Call | undefined {
    const call = this.calls.get(id);
    this.calls.delete(id);
    if (this.calls.size === 0) this.worker?.unref();
    return call;
  }

  async dispose(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.rejectAll(new Error(`${this.what} was closed.`));
    await worker?.terminate();
  }

  private rejectAll(error: Error): void {
    for (const call of this.calls.values()) call.reject(error);
    this.calls.clear();
  }
}

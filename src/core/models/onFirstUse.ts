/**
 * A model made when something first needs it, then shared: every caller of `get` waits for the one
 * load. Making an ONNX session costs 190–300 ms and tens of MB per model, which a run that never
 * needs the model should not pay. This module loads nothing itself (not even ONNX Runtime): `open` does.
 *
 *   const reranker = new OnFirstUse(() => OnnxReranker.load(dir));
 *   reranker.start();              // optional: the next step surely needs it, so start now
 *   await reranker.get();          // the one load, shared by every caller
 *   await reranker.dispose();      // disposes of what was loaded; loads nothing
 */
export class OnFirstUse<T extends { dispose(): Promise<void> }> {
  private loading: Promise<T> | undefined;

  constructor(private readonly open: () => Promise<T>) {}

  /** Starts the load in the background; its failure is heard by the first `get`. */
  start(): void {
    this.get().catch(() => undefined);
  }

  get(): Promise<T> {
    this.loading ??= this.open();
    return this.loading;
  }

  async dispose(): Promise<void> {
    const loading = this.loading;
    this.loading = undefined;
    await (await loading?.catch(() => undefined))?.dispose();
  }
}

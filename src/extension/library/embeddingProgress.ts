import * as vscode from 'vscode';

/** From this many papers to embed (a few minutes on two cores) the work is shown as a notification that can be cancelled. */
export const NOTIFIED_FROM = 1_000;

/**
 * The progress of the library's background embedding, shown once a pass's first report (0 of its
 * total) gives the size of the work: in the status bar while it is short; as a notification with a
 * Cancel button from `NOTIFIED_FROM` papers, since that keeps the processor busy for minutes or hours
 * (a change of encoder embeds the whole library again). A later pass, for papers added meanwhile,
 * that is long gets a notification of its own. Cancel calls `stop`.
 */
export class EmbeddingProgress {
  private shown?: vscode.Progress<{ message?: string; increment?: number }>;
  private finish?: () => void;
  private notified = false;
  private latest?: { readonly done: number; readonly total: number };
  private percent = 0;

  constructor(private readonly stop: () => void) {}

  report(done: number, total: number): void {
    this.latest = { done, total };
    const long = total >= NOTIFIED_FROM;
    if (this.finish !== undefined && done === 0 && (long || !this.notified)) {
      // A new pass: a long one shows from an empty bar, with its Cancel; a short one after a short one stays where it is.
      if (long) this.end();
      else this.percent = 0;
    }
    if (this.finish === undefined) this.open(long);
    else this.show();
  }

  /** The work has ended, done or stopped: its progress goes. */
  end(): void {
    this.finish?.();
    this.finish = undefined;
    this.shown = undefined;
    this.percent = 0;
  }

  private open(notified: boolean): void {
    this.notified = notified;
    const ended = new Promise<void>((resolve) => (this.finish = resolve));
    const options: vscode.ProgressOptions = notified
      ? { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Attest: embedding the library for search by meaning'), cancellable: true }
      : { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Attest: embedding papers') };
    void vscode.window.withProgress(options, (progress, token) => {
      this.shown = progress;
      const cancelling = token.onCancellationRequested(() => this.stop());
      this.show();
      return ended.finally(() => cancelling.dispose());
    });
  }

  private show(): void {
    if (this.latest === undefined) return;
    const { done, total } = this.latest;
    const percent = total > 0 ? (100 * done) / total : 0;
    // A bar does not go back: a short pass after a long one in the same notification adds nothing to it.
    const increment = Math.max(0, percent - this.percent);
    this.percent = Math.max(this.percent, percent);
    this.shown?.report({ message: `${done}/${total}`, increment });
  }
}

import * as vscode from 'vscode';
import { webviewPage, type PageFolders } from './webviewPage';

/** Where scripts/webviews.js writes the pages' scripts, in the repository as in the package. */
const PAGE_SCRIPTS = ['dist', 'webview'];

/** What tells one of Attest's panels from another: its view type, page files and words. */
export interface PanelKind {
  readonly viewType: string;
  /** `media/<page>.css` and the script `dist/webview/<page>.js`, built from `src/webview/page/<page>.ts`. */
  readonly page: string;
  readonly title: () => string;
  readonly strings: () => unknown;
}

/**
 * One webview panel, reused by every request, as the Markdown preview is. It holds no logic of its
 * own: it shows the last state it was given and passes what the page sends to `onMessage`,
 * unchecked; the receiver validates it.
 */
export class PanelHost<Message> implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  /** What the page shows, sent again whenever the page is rebuilt (hidden and shown again). */
  private state: Message | undefined;
  private readonly closed = new vscode.EventEmitter<void>();
  readonly onDidClose = this.closed.event;

  constructor(
    private readonly kind: PanelKind,
    private readonly extensionUri: vscode.Uri,
    private readonly onMessage: (message: unknown) => void,
  ) {}

  /** Shows `state`, opening the panel beside the manuscript if it is not open. */
  show(state: Message): void {
    this.state = state;
    if (this.panel) {
      if (!this.panel.visible) this.panel.reveal(undefined, true);
      void this.panel.webview.postMessage(state);
      return;
    }
    this.panel = this.create();
  }

  /**
   * Tells the page something without replacing what it shows (what an action did, or more of a
   * streamed draft); `state`, when given, is what a rebuilt page is to show from now on.
   */
  post(message: Message, state?: Message): void {
    if (state !== undefined) this.state = state;
    void this.panel?.webview.postMessage(message);
  }

  /** The page asked for what to show: it was just (re)built. */
  resend(): void {
    if (this.state) void this.panel?.webview.postMessage(this.state);
  }

  /** Closes the panel; `onDidClose` fires. */
  close(): void {
    this.panel?.dispose();
  }

  private create(): vscode.WebviewPanel {
    const folders: PageFolders = { media: vscode.Uri.joinPath(this.extensionUri, 'media'), scripts: vscode.Uri.joinPath(this.extensionUri, ...PAGE_SCRIPTS) };
    const title = this.kind.title();
    const panel = vscode.window.createWebviewPanel(
      this.kind.viewType,
      title,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [folders.media, folders.scripts] },
    );
    panel.webview.html = webviewPage(panel.webview, folders, this.kind.page, title, this.kind.strings());
    panel.webview.onDidReceiveMessage(this.onMessage);
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.state = undefined;
      this.closed.fire();
    });
    return panel;
  }

  dispose(): void {
    this.panel?.dispose();
    this.closed.dispose();
  }
}

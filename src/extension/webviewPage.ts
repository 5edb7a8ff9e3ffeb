import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** Where a panel's page finds its files: stylesheets in `media`, its script, built from src/webview/page/, in `scripts`. */
export interface PageFolders {
  readonly media: vscode.Uri;
  readonly scripts: vscode.Uri;
}

/**
 * The HTML shell of Attest's panels: a strict Content Security Policy (the page's own script, by
 * nonce, and the extension's stylesheet; nothing else), the UI strings handed over as data, and an
 * empty root the script fills with text nodes only.
 */
export function webviewPage(webview: vscode.Webview, folders: PageFolders, name: string, title: string, strings: unknown): string {
  const nonce = randomBytes(16).toString('base64');
  const styles = ['panel.css', `${name}.css`].map((file) => webview.asWebviewUri(vscode.Uri.joinPath(folders.media, file)));
  const script = webview.asWebviewUri(vscode.Uri.joinPath(folders.scripts, `${name}.js`));
  const csp = `default-src 'none'; style-src ${webview.cspSource}; script-src 'nonce-${nonce}'`;
  return `<!DOCTYPE html>
<html lang="${escapeHtml(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles.map((style) => `<link rel="stylesheet" href="${escapeHtml(style.toString())}">`).join('\n')}
<title>${escapeHtml(title)}</title>
</head>
<body data-strings="${escapeHtml(JSON.stringify(strings))}">
<main id="root" aria-live="polite"></main>
<script nonce="${nonce}" src="${escapeHtml(script.toString())}"></script>
</body>
</html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

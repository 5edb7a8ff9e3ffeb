import * as vscode from 'vscode';
import { Config } from '../config';

/** The secret storage's name for the Solr credentials of one address: a collection elsewhere never gets them. */
function secretName(url: string): string {
  return `attest.library.solr.credentials:${url}`;
}

/** The user name and password kept for the Solr at `url`; undefined when none are. */
export async function solrCredentials(secrets: vscode.SecretStorage, url: string): Promise<{ user: string; password: string } | undefined> {
  const kept = await secrets.get(secretName(url));
  if (kept === undefined) return undefined;
  try {
    const { user, password } = JSON.parse(kept) as { user?: unknown; password?: unknown };
    return typeof user === 'string' && typeof password === 'string' ? { user, password } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * "Attest: Set the Evidence Library's Solr Credentials": the user name and password for Solr's basic
 * authentication at the address `attest.library.solr.url` names, kept in the editor's secret storage for
 * that address, never in settings. An empty user name removes them.
 */
export async function setSolrCredentialsCommand(secrets: vscode.SecretStorage, changed: () => void): Promise<void> {
  const url = new Config().settings().solr.url;
  if (url === '') {
    void vscode.window.showWarningMessage(vscode.l10n.t("Set attest.library.solr.url to the address of your institution's Solr first."));
    return;
  }
  const user = await vscode.window.showInputBox({
    title: vscode.l10n.t('Solr user name for {0}', url),
    prompt: vscode.l10n.t('Leave empty to remove the stored credentials.'),
    ignoreFocusOut: true,
  });
  if (user === undefined) return;
  if (user.trim() === '') {
    await secrets.delete(secretName(url));
    changed();
    void vscode.window.showInformationMessage(vscode.l10n.t('Solr credentials for {0} removed.', url));
    return;
  }
  const password = await vscode.window.showInputBox({ title: vscode.l10n.t('Solr password for {0}', url), password: true, ignoreFocusOut: true });
  if (password === undefined) return;
  await secrets.store(secretName(url), JSON.stringify({ user: user.trim(), password }));
  changed();
  void vscode.window.showInformationMessage(vscode.l10n.t('Solr credentials for {0} saved.', url));
}

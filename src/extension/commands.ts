import * as path from 'node:path';
import * as vscode from 'vscode';
import { abstractSentences, idsOf } from '../core/app/support';
import type { Verdicts } from '../core/app/verdicts';
import { passagePlace, type SourceSecrets } from '../core/app/services';
import type { AbstractView, EvidencePart } from './evidence/abstractView';
import type { FullTextAccess } from './check/fullTexts';
import { isManuscript, type Checker } from './check/checker';
import { secretName, type ReferenceLookups } from './check/references';

/** "Attest: Check References": every entry of the active bibliography, or of the active manuscript's. */
export async function checkReferencesCommand(checker: Checker): Promise<void> {
  const document = vscode.window.activeTextEditor?.document;
  const files =
    document?.languageId === 'bibtex'
      ? [document.uri.fsPath]
      : document && isManuscript(document)
        ? (checker.resultFor(document.uri.fsPath)?.bibliographies.map((b) => b.file) ?? [])
        : [];
  if (files.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open a .bib file, or a manuscript whose bibliography Attest has read, to check its references.'));
    return;
  }
  for (const file of files) {
    const verdicts = await checker.checkBibliography(file);
    if (verdicts) void vscode.window.showInformationMessage(summary(path.basename(file), verdicts));
  }
}

function summary(file: string, verdicts: Verdicts): string {
  const counts = { found: 0, 'metadata-mismatch': 0, 'not-found': 0, 'doi-title-conflict': 0, unchecked: 0 };
  for (const { verdict } of verdicts.values()) counts[verdict.status]++;
  const rest = [counts['metadata-mismatch'], counts['not-found'], counts.unchecked];
  const found =
    counts.found === 1
      ? vscode.l10n.t('{0}: 1 reference found, {1} with differing metadata, {2} not found in any source, {3} could not be checked.', file, ...rest)
      : vscode.l10n.t('{0}: {1} references found, {2} with differing metadata, {3} not found in any source, {4} could not be checked.', file, counts.found, ...rest);
  const conflicts = counts['doi-title-conflict'];
  return conflicts === 0 ? found : `${found} ${vscode.l10n.t('{0} with a DOI or PubMed id of another work.', conflicts)}`;
}

const CREDENTIALS: readonly { label: string; key: keyof SourceSecrets; detail: string }[] = [
  { label: 'OpenAlex API key', key: 'openalexApiKey', detail: 'Needed for OpenAlex title searches; free at openalex.org.' },
  { label: 'Semantic Scholar API key', key: 'semanticscholarApiKey', detail: 'A rate limit of its own instead of the shared anonymous one.' },
  { label: 'CORE API key', key: 'coreApiKey', detail: 'CORE answers only with a key; free at core.ac.uk.' },
  { label: 'Crossref Metadata Plus token', key: 'crossrefPlusToken', detail: 'For Metadata Plus subscribers.' },
];

/** "Attest: Set Source API Key": kept in the editor's secret storage for the source's configured origin, never in settings. */
export async function setSourceApiKeyCommand(secrets: vscode.SecretStorage, lookups: ReferenceLookups): Promise<void> {
  const choice = await vscode.window.showQuickPick(
    CREDENTIALS.map((c) => ({ label: c.label, detail: c.detail, key: c.key })),
    { title: vscode.l10n.t('Which credential?') },
  );
  if (!choice) return;
  const origin = lookups.keyOrigin(choice.key);
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('{0} for {1}', choice.label, origin),
    prompt: vscode.l10n.t('Leave empty to remove the stored value.'),
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) return;
  const key = secretName(choice.key, origin);
  if (value.trim() === '') await secrets.delete(key);
  else await secrets.store(key, value.trim());
  lookups.reset();
  void vscode.window.showInformationMessage(value.trim() === '' ? vscode.l10n.t('{0} removed.', choice.label) : vscode.l10n.t('{0} saved.', choice.label));
}

/**
 * "Show the evidence" from a support verdict: the cited abstract beside the manuscript and, when the
 * full text was read, its passages by section, with the text the verdict rests on highlighted.
 */
export async function showEvidence(checker: Checker, fullTexts: FullTextAccess, view: AbstractView, file: string, key: string, evidence?: string): Promise<void> {
  const result = checker.resultFor(file);
  const entry = result?.bibliographies.flatMap((b) => b.entries).find((e) => e.key === key);
  const abstract = entry?.abstract ?? result?.verdicts?.get(key)?.abstract?.text;
  const read = entry ? await fullTexts.read(entry, idsOf(entry, result?.verdicts?.get(key)?.verdict)) : undefined;
  const passages = read && 'fullText' in read ? read.fullText.passages : [];
  if (!entry || (!abstract && passages.length === 0)) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No abstract or full text of {0} is known.', key));
    return;
  }
  const parts: EvidencePart[] = [];
  if (abstract) parts.push({ heading: vscode.l10n.t('Abstract'), lines: abstractSentences(abstract) });
  for (const passage of passages) {
    const heading = passagePlace({ section: passage.section });
    const last = parts[parts.length - 1];
    const line = passage.page === undefined ? passage.text : `[p. ${passage.page}] ${passage.text}`;
    if (last && last.heading === heading && last.fromFullText) last.lines.push(line);
    else parts.push({ heading, lines: [line], fromFullText: true });
  }
  await view.show(entry, parts, evidence);
}

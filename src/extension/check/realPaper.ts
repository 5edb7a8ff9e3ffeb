import * as vscode from 'vscode';
import { type BibEntry, listAuthors, setFields } from '../../core/app/bibliography';
import { SOURCE_NAMES, SourceError } from '../../core/app/services';
import { fieldsFromRecord, nearestRecords, type NearRecord } from '../../core/app/verdicts';
import type { Checker } from './checker';
import type { ReferenceLookups } from './references';

/** The command the quick fix of a reference no source has runs, with the file of the finding and the entry's key. */
export const FIND_REAL_PAPER = 'attest.findRealPaper';

/**
 * "Find the real paper" for a reference no source has: searches the sources by the entry's title and
 * authors, lists the records that are its work by the existence check's rule (`nearestRecords`) with
 * what differs from the entry, and writes the one picked into the entry (its title, authors, year,
 * venue, DOI) in one undoable edit of the .bib. With none, it says the reference may be fabricated
 * and offers nothing to pick.
 */
export async function findRealPaper(checker: Checker, lookups: ReferenceLookups, file: unknown, key: unknown): Promise<void> {
  if (typeof file !== 'string' || typeof key !== 'string') return;
  const entry = entryOf(checker, file, key);
  if (!entry?.title) {
    void vscode.window.showInformationMessage(vscode.l10n.t('The entry {0} has no title to search for.', key));
    return;
  }
  const title = entry.title;
  const found = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Searching the sources for "{0}"', title), cancellable: true },
    async (_progress, token) => {
      const controller = new AbortController();
      const cancel = token.onCancellationRequested(() => controller.abort());
      try {
        return await nearestRecords(entry, await lookups.sources(), { signal: controller.signal });
      } catch (error) {
        if (error instanceof SourceError && error.kind === 'cancelled') return undefined;
        throw error;
      } finally {
        cancel.dispose();
      }
    },
  );
  if (!found) return;
  if (found.records.length === 0) {
    const why = found.failures.length > 0 ? ` ${vscode.l10n.t('Not searched: {0}', found.failures.join('; '))}` : '';
    // Nothing to pick: a work that only resembles the entry would put another paper's metadata over a made-up reference.
    if (found.answered) void vscode.window.showWarningMessage(vscode.l10n.t('No close match found: the reference may be fabricated.') + why);
    else void vscode.window.showInformationMessage(vscode.l10n.t('No source could be searched for "{0}".', title) + why);
    return;
  }
  const picked = await vscode.window.showQuickPick(
    found.records.map((near) => ({ ...itemOf(near), near })),
    { title: vscode.l10n.t('Works that may be {0}: pick one to use its metadata', key), matchOnDescription: true, matchOnDetail: true },
  );
  if (picked) await useRecord(entry, picked.near);
}

function entryOf(checker: Checker, file: string, key: string): BibEntry | undefined {
  const result = checker.resultFor(file) ?? checker.allResults().find((r) => r.bibliographyFiles.includes(file));
  return checker.lookupOf(file, key)?.entry ?? result?.bibliographies.flatMap((b) => b.entries).find((e) => e.key === key);
}

function itemOf({ record, differences }: NearRecord): vscode.QuickPickItem {
  const byline = [listAuthors(record.authors, 3), record.year?.toString(), record.venue].filter((s) => s).join(', ');
  const differs = differences.map((d) => `${d.field}: ${d.expected || '—'} → ${d.found || '—'}`).join('; ');
  return {
    label: record.title,
    description: `${byline} (${SOURCE_NAMES[record.source]})`,
    detail: differs === '' ? vscode.l10n.t('Matches the entry') : vscode.l10n.t('Differs: {0}', differs),
  };
}

/** Writes the record's metadata into the entry: the fields that differ, and its DOI when the entry has none. */
async function useRecord(entry: BibEntry, { record, differences }: NearRecord): Promise<void> {
  const document = await vscode.workspace.openTextDocument(entry.file);
  const text = document.getText();
  const offset = document.offsetAt(new vscode.Position(entry.range.start.line, entry.range.start.character));
  const fields = fieldsFromRecord(entry, record, differences);
  const edits = text[offset] === '@' ? setFields(text, offset, fields) : [];
  if (edits.length === 0) {
    void vscode.window.showWarningMessage(vscode.l10n.t('The entry {0} changed since it was checked; run the quick fix again.', entry.key));
    return;
  }
  const edit = new vscode.WorkspaceEdit();
  for (const e of edits) edit.replace(document.uri, new vscode.Range(document.positionAt(e.offset), document.positionAt(e.offset + e.length)), e.text);
  await vscode.workspace.applyEdit(edit);
  await vscode.window.showTextDocument(document, { selection: new vscode.Range(document.positionAt(offset), document.positionAt(offset)) });
}

import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  asRecord,
  type BibEntry,
  type CitationStyle,
  citationStyleOf,
  type CitingReference,
  citingReferences,
  findExisting,
  insertCitation,
  type TextEdit,
  textToAppend,
} from '../../core/app/bibliography';
import type { CheckResult } from '../../core/app/pipeline';
import type { Paper } from '../../core/app/evidence';
import { isWebLink } from '../../core/app/text';
import type { Checker } from '../check/checker';

/** What an action did, or why it did nothing, in words for the panel. */
export interface Outcome {
  readonly ok: boolean;
  readonly message: string;
}

/** Where "Cite here" puts the citation: after the selection the search was made for. */
export interface CitationTarget {
  readonly uri: vscode.Uri;
  /** The selection's end, as it stands after any edits made since. */
  readonly offset: number;
}

/** A .bib file of the manuscript as the editor holds it now, unsaved changes included. */
interface OpenBibliography {
  readonly file: string;
  readonly document: vscode.TextDocument;
  readonly entries: readonly BibEntry[];
}

/** An action that could not be done, and why. */
type Failure = Outcome & { readonly ok: false };

interface References {
  readonly ok: true;
  /** How the manuscript would cite each paper asked about, in their order. */
  readonly each: readonly CitingReference[];
  /** Where the new entries go; absent when there are none. */
  readonly file?: string;
  /** Puts the new entries, if any, at the end of their bibliography. */
  readonly append: (edit: vscode.WorkspaceEdit) => void;
}

/** What `insertCiting` did: the key each paper was cited by, and the new entries it added, if any. */
export type Citing =
  | {
      readonly ok: true;
      readonly keys: readonly string[];
      readonly added?: { readonly keys: readonly string[]; readonly file: string };
      /** False when the text to insert was empty, so nothing was changed. */
      readonly changed: boolean;
    }
  | Failure;

/** Writes into the manuscript's text what cites the papers by `keys` (in their order) in the manuscript's style. */
export type CitingWriter = (text: string, keys: readonly string[], style: CitationStyle) => TextEdit;

/**
 * "Cite here", "Add to bibliography" and "Open paper" for a paper found as evidence, and the edit
 * that inserts text citing papers, which a suggestion's Accept makes too. Bibliographies
 * are read from the editor at the moment of the action, not from the last check, which lags behind
 * edits by the debounce delay: a paper added a moment ago must not be added again.
 */
export class EvidenceActions {
  constructor(private readonly checker: Checker) {}

  /** The entry of the manuscript's bibliographies that already stands for each paper. */
  async existingEntries(result: CheckResult, papers: readonly Paper[]): Promise<(BibEntry | undefined)[]> {
    const entries = (await this.bibliographiesOf(result)).flatMap((b) => b.entries);
    return papers.map((paper) => findExisting(asRecord(paper), entries));
  }

  /** Cites the paper after the target in the manuscript's own style, adding it to the bibliography in the same edit when it is new there. */
  async citeHere(target: CitationTarget, paper: Paper): Promise<Outcome> {
    const cited = await this.insertCiting(target.uri, [paper], (text, keys, style) => insertCitation(text, target.offset, keys, style));
    if (!cited.ok) return cited;
    const [key] = cited.keys;
    if (!cited.changed) return { ok: true, message: vscode.l10n.t('Already cited here as {0}.', key) };
    return {
      ok: true,
      message: cited.added ? vscode.l10n.t('Cited as {0}, and added to {1}.', key, path.basename(cited.added.file)) : vscode.l10n.t('Cited as {0}.', key),
    };
  }

  /** Replaces the cited key that ends at the target with the paper's, adding the paper to the bibliography when it is new there. */
  async replaceCitation(target: CitationTarget, key: string, paper: Paper): Promise<Outcome> {
    const start = target.offset - key.length;
    let there = true;
    const cited = await this.insertCiting(target.uri, [paper], (text, keys) => {
      there = text.slice(start, target.offset) === key;
      return there ? { offset: start, length: key.length, text: keys[0] } : { offset: target.offset, length: 0, text: '' };
    });
    if (!cited.ok) return cited;
    if (!there) return { ok: false, message: vscode.l10n.t('The citation of {0} is no longer there; nothing was replaced.', key) };
    const [replacement] = cited.keys;
    return {
      ok: true,
      message: cited.added
        ? vscode.l10n.t('Replaced {0} with {1}, and added {1} to {2}.', key, replacement, path.basename(cited.added.file))
        : vscode.l10n.t('Replaced {0} with {1}.', key, replacement),
    };
  }

  /**
   * Edits the manuscript with what `write` makes of the papers' keys, and adds the papers its
   * bibliographies lack to the first one it names, in one edit: one undo takes back both. Nothing is
   * changed when `write` inserts nothing.
   */
  async insertCiting(uri: vscode.Uri, papers: readonly Paper[], write: CitingWriter): Promise<Citing> {
    const result = await this.resultOf(uri);
    if (!result) return notRead();
    const references = await this.referencesFor(result, papers);
    if (!references.ok) return references;
    const keys = references.each.map((r) => r.key);
    const added = [...new Set(references.each.flatMap((r) => (r.kind === 'new' ? [r.key] : [])))];
    const document = await vscode.workspace.openTextDocument(uri);
    const own = result.manuscript.sources.find((s) => s.file === uri.fsPath);
    // A file without citations of its own (a new chapter) cites as the rest of the manuscript does.
    const style = citationStyleOf(own && own.citations.length > 0 ? own : result.manuscript);
    const insertion = write(document.getText(), keys, style);
    if (insertion.text === '' && insertion.length === 0) return { ok: true, keys, changed: false };
    const edit = new vscode.WorkspaceEdit();
    const at = document.positionAt(insertion.offset);
    edit.replace(uri, new vscode.Range(at, document.positionAt(insertion.offset + insertion.length)), insertion.text);
    references.append(edit);
    if (!(await vscode.workspace.applyEdit(edit))) return notApplied();
    return { ok: true, keys, added: added.length > 0 && references.file !== undefined ? { keys: added, file: references.file } : undefined, changed: true };
  }

  /** Appends the paper to the manuscript's first bibliography, unless one of its bibliographies has it already. */
  async addToBibliography(manuscript: vscode.Uri, paper: Paper): Promise<Outcome> {
    const result = await this.resultOf(manuscript);
    if (!result) return notRead();
    const references = await this.referencesFor(result, [paper]);
    if (!references.ok) return references;
    const [reference] = references.each;
    if (reference.kind === 'existing') {
      return { ok: true, message: vscode.l10n.t('Already in {0} as {1}.', path.basename(reference.entry.file), reference.entry.key) };
    }
    const edit = new vscode.WorkspaceEdit();
    references.append(edit);
    if (!(await vscode.workspace.applyEdit(edit))) return notApplied();
    return { ok: true, message: vscode.l10n.t('Added to {0} as {1}.', path.basename(references.file ?? ''), reference.key) };
  }

  async openPaper(paper: Paper): Promise<Outcome> {
    const link = linkOf(paper);
    if (link === undefined) return { ok: false, message: vscode.l10n.t('Attest knows no link to this paper.') };
    const opened = await vscode.env.openExternal(vscode.Uri.parse(link, true));
    return opened ? { ok: true, message: '' } : { ok: false, message: vscode.l10n.t('Could not open {0}.', link) };
  }

  /**
   * The check result of the manuscript `uri` belongs to. A manuscript opened a moment ago may not
   * have been checked yet: it is checked now, and waited for a little.
   */
  async resultOf(uri: vscode.Uri): Promise<CheckResult | undefined> {
    const known = this.checker.resultFor(uri.fsPath);
    if (known || uri.scheme !== 'file') return known;
    const document = await vscode.workspace.openTextDocument(uri);
    return new Promise((resolve) => {
      const done = (result: CheckResult | undefined): void => {
        clearTimeout(timer);
        listener.dispose();
        resolve(result);
      };
      const listener = this.checker.onDidChange(() => {
        const result = this.checker.resultFor(uri.fsPath);
        if (result) done(result);
      });
      const timer = setTimeout(() => done(undefined), CHECK_WAIT_MS);
      void this.checker.documentChanged(document, true);
    });
  }

  /**
   * The key to cite each paper by: its entry's when a bibliography of the manuscript has it (by DOI,
   * arXiv id or title), else a new one, with the entries to append to the first bibliography the
   * manuscript names. Extra bibliographies from the settings are searched but never written to.
   */
  private async referencesFor(result: CheckResult, papers: readonly Paper[]): Promise<References | Failure> {
    const bibliographies = await this.bibliographiesOf(result);
    const entries = bibliographies.flatMap((b) => b.entries);
    const cited = citingReferences(
      papers,
      entries,
      result.manuscript.sources.flatMap((s) => s.bibitems),
    );
    const written = cited.flatMap((r) => (r.kind === 'new' ? [r.bibtex] : []));
    if (written.length === 0) return { ok: true, each: cited, append: () => undefined };
    const named = result.manuscript.sources.flatMap((s) => s.bibliographies)[0];
    if (named === undefined) {
      return {
        ok: false,
        message: vscode.l10n.t(
          'This manuscript names no bibliography file (\\bibliography, \\addbibresource or a YAML bibliography: field), so there is none to add the paper to.',
        ),
      };
    }
    const target = bibliographies.find((b) => b.file === named.path);
    if (!target) {
      return { ok: false, message: vscode.l10n.t('{0}, the bibliography this manuscript names, does not exist; create it to add papers to it.', named.name) };
    }
    const { document } = target;
    const text = document.getText();
    return {
      ok: true,
      each: cited,
      file: target.file,
      append: (edit) => edit.insert(document.uri, document.positionAt(text.length), textToAppend(text, [...new Set(written)].join('\n\n'))),
    };
  }

  private async bibliographiesOf(result: CheckResult): Promise<OpenBibliography[]> {
    return Promise.all(
      result.bibliographies.map(async ({ file }) => {
        const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
        return { file, document, entries: (await this.checker.parseBibliography(file, document.getText())).entries };
      }),
    );
  }
}

/** Where "Open paper" goes: the open-access copy, else the DOI, else the record at its source. Only web links: the data is not ours. */
export function linkOf(paper: Paper): string | undefined {
  const candidates = [paper.openAccessUrl, paper.doi === undefined ? undefined : `https://doi.org/${paper.doi}`, paper.source?.url];
  return candidates.find((url) => url !== undefined && isWebLink(url));
}

/** Long enough for a check of a large manuscript without reference lookups, which come later. */
const CHECK_WAIT_MS = 5000;

function notRead(): Failure {
  return { ok: false, message: vscode.l10n.t("Attest has not read this manuscript's bibliographies (it reads saved .tex, .md, .Rmd and .qmd files); try again in a moment.") };
}

function notApplied(): Failure {
  return { ok: false, message: vscode.l10n.t('The editor did not apply the change; the file may have changed meanwhile. Try again.') };
}

import * as vscode from 'vscode';
import { entryAsPublished, setFields } from '../../core/app/bibliography';
import { directiveFor, type Finding } from '../../core/app/pipeline';
import { isWebLink } from '../../core/app/text';
import { fieldsFromRecord, RETRACTION_CODES } from '../../core/app/verdicts';
import type { Checker } from './checker';
import { FIND_REAL_PAPER } from './realPaper';
import { DIAGNOSTIC_SOURCE, toRange } from './diagnostics';

/**
 * Quick fixes for Attest's findings: replace a mistyped key with the one it probably meant; make an
 * entry say what its matched record says; open the record a verdict rests on; accept any finding
 * where it is with an attest-ignore comment.
 */
export class CitationCodeActionProvider implements vscode.CodeActionProvider {
  static readonly metadata: vscode.CodeActionProviderMetadata = { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] };

  constructor(private readonly checker: Checker) {}

  provideCodeActions(document: vscode.TextDocument, range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of context.diagnostics) {
      if (diagnostic.source !== DIAGNOSTIC_SOURCE || !diagnostic.range.intersection(range)) continue;
      const finding = this.findingOf(document, diagnostic);
      if (!finding) continue;
      if (finding.code === 'missing-key') actions.push(...this.keyReplacements(document, diagnostic, finding));
      if (finding.code === 'metadata-mismatch') actions.push(...this.useMatchedMetadata(document, diagnostic, finding));
      if (finding.code === 'not-found') actions.push(...this.wayForward(document, diagnostic, finding));
      if (finding.code === 'preprint-published') actions.push(...this.usePublishedVersion(document, diagnostic, finding));
      if (SUPPORT_CODES.has(finding.code)) actions.push(...this.supportActions(document, diagnostic, finding));
      if (RETRACTION_CODES.includes(finding.code)) actions.push(...this.retractionActions(document, diagnostic, finding));
      actions.push(acceptHere(document, diagnostic, finding));
      const url = finding.evidence?.record?.url;
      // The record's link is a source's data: only a web address is offered for opening.
      if (url && isWebLink(url)) actions.push(openRecord(url, diagnostic));
    }
    return actions;
  }

  /** For a support verdict: read the abstract or passage it rests on, or set the verdict aside for good. */
  private supportActions(document: vscode.TextDocument, diagnostic: vscode.Diagnostic, finding: Finding): vscode.CodeAction[] {
    const file = document.uri.fsPath;
    const citation = this.checker.resultFor(file)?.citations.find((c) => c.file === file && toRange(c.range).isEqual(diagnostic.range));
    if (!citation || finding.key === undefined) return [];
    const actions = [
      command(vscode.l10n.t('Ignore this verdict'), 'attest.ignoreVerdict', [file, { key: citation.key, claim: citation.claim && { text: citation.claim.text } }], diagnostic),
    ];
    if (finding.code !== 'unverifiable') {
      actions.unshift(command(vscode.l10n.t('Show the evidence'), 'attest.showCitedAbstract', [file, finding.key, finding.evidence?.sentence], diagnostic));
    }
    if (citation.claim) actions.push(command(vscode.l10n.t('Find better evidence'), 'attest.findEvidenceFor', [document.uri, toRange(citation.claim.range)], diagnostic));
    return actions;
  }

  /** For a retracted (or corrected, withdrawn, doubted) work: read the notice, or cite it knowingly, with a reason. */
  private retractionActions(document: vscode.TextDocument, diagnostic: vscode.Diagnostic, finding: Finding): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    const notice = finding.evidence?.notice?.url;
    if (notice && isWebLink(notice)) actions.push(command(vscode.l10n.t('Open the notice'), 'vscode.open', [vscode.Uri.parse(notice, true)], diagnostic));
    const file = document.uri.fsPath;
    const citation = this.checker.resultFor(file)?.citations.find((c) => c.file === file && toRange(c.range).isEqual(diagnostic.range));
    if (citation?.claim) {
      const subject = { key: citation.key, claim: { text: citation.claim.text } };
      actions.push(command(vscode.l10n.t('Ignore for this citation, with a reason…'), 'attest.ignoreRetraction', [file, subject], diagnostic));
    }
    return actions;
  }

  /**
   * For a reference no source has: look for the paper it meant (a misremembered title, made-up
   * authors), or, on its citation, find evidence for the sentence and replace the citation with it.
   */
  private wayForward(document: vscode.TextDocument, diagnostic: vscode.Diagnostic, finding: Finding): vscode.CodeAction[] {
    if (finding.key === undefined) return [];
    const file = document.uri.fsPath;
    const actions = [command(vscode.l10n.t('Find the real paper in the sources'), FIND_REAL_PAPER, [file, finding.key], diagnostic)];
    const citation = this.checker.resultFor(file)?.citations.find((c) => c.file === file && toRange(c.range).isEqual(diagnostic.range));
    if (citation?.claim) {
      actions.push(
        command(
          vscode.l10n.t('Find evidence for this sentence, to replace this citation'),
          'attest.findEvidenceFor',
          [document.uri, toRange(citation.claim.range), diagnostic.range],
          diagnostic,
        ),
      );
    }
    return actions;
  }

  /** The finding a diagnostic was made from: diagnostics come back as copies, findings keep the data. */
  private findingOf(document: vscode.TextDocument, diagnostic: vscode.Diagnostic): Finding | undefined {
    const file = document.uri.fsPath;
    return this.checker.findingsIn(file).find((f) => f.code === diagnostic.code && toRange(f.range).isEqual(diagnostic.range));
  }

  private keyReplacements(document: vscode.TextDocument, diagnostic: vscode.Diagnostic, finding: Finding): vscode.CodeAction[] {
    return (finding.replacements ?? []).map((replacement, index) => {
      const action = new vscode.CodeAction(vscode.l10n.t("Change to '{0}'", replacement), vscode.CodeActionKind.QuickFix);
      action.edit = new vscode.WorkspaceEdit();
      action.edit.replace(document.uri, diagnostic.range, replacement);
      action.diagnostics = [diagnostic];
      action.isPreferred = index === 0;
      return action;
    });
  }

  private useMatchedMetadata(document: vscode.TextDocument, diagnostic: vscode.Diagnostic, finding: Finding): vscode.CodeAction[] {
    const verdict = finding.key === undefined ? undefined : this.checker.lookupOf(document.uri.fsPath, finding.key);
    if (verdict?.verdict.status !== 'metadata-mismatch') return [];
    const { entry } = verdict;
    const { record, differences } = verdict.verdict;
    // The entry must still start where it was parsed; after an unsaved edit the next check catches up.
    const offset = document.offsetAt(new vscode.Position(entry.range.start.line, entry.range.start.character));
    const edits = document.getText()[offset] === '@' ? setFields(document.getText(), offset, fieldsFromRecord(entry, record, differences)) : [];
    if (edits.length === 0) return [];
    const action = new vscode.CodeAction(vscode.l10n.t('Use the metadata of the matched record'), vscode.CodeActionKind.QuickFix);
    action.edit = new vscode.WorkspaceEdit();
    for (const edit of edits) {
      action.edit.replace(document.uri, new vscode.Range(document.positionAt(edit.offset), document.positionAt(edit.offset + edit.length)), edit.text);
    }
    action.diagnostics = [diagnostic];
    return [action];
  }

  /** For a cited preprint since published: the entry rewritten as the published version, its key and the user's own fields kept, in one edit. */
  private usePublishedVersion(document: vscode.TextDocument, diagnostic: vscode.Diagnostic, finding: Finding): vscode.CodeAction[] {
    const lookup = finding.key === undefined ? undefined : this.checker.lookupOf(document.uri.fsPath, finding.key);
    const published = lookup?.verdict.status === 'found' ? lookup.verdict.publishedVersion : undefined;
    if (!lookup || !published) return [];
    const range = new vscode.Range(lookup.entry.range.start.line, lookup.entry.range.start.character, lookup.entry.range.end.line, lookup.entry.range.end.character);
    // The entry must still be where it was parsed; after an unsaved edit the next check catches up.
    const text = document.getText(range);
    const rewritten = text.startsWith('@') ? entryAsPublished(text, published) : undefined;
    if (rewritten === undefined) return [];
    const action = new vscode.CodeAction(vscode.l10n.t('Cite the published version'), vscode.CodeActionKind.QuickFix);
    action.edit = new vscode.WorkspaceEdit();
    action.edit.replace(document.uri, range, rewritten);
    action.diagnostics = [diagnostic];
    action.isPreferred = true;
    return [action];
  }
}

const SUPPORT_CODES = new Set<Finding['code']>(['contradicted', 'unsupported', 'unverifiable']);

function command(title: string, id: string, args: unknown[], diagnostic: vscode.Diagnostic): vscode.CodeAction {
  const action = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
  action.command = { command: id, title, arguments: args };
  action.diagnostics = [diagnostic];
  return action;
}

/** Writes the attest-ignore directive that accepts the finding where it is (`acceptance.ts`), in one edit the writer can undo. */
function acceptHere(document: vscode.TextDocument, diagnostic: vscode.Diagnostic, finding: Finding): vscode.CodeAction {
  const language = document.languageId === 'bibtex' ? 'bibtex' : MARKDOWN_LANGUAGES.has(document.languageId) ? 'markdown' : 'latex';
  const line = finding.range.start.line;
  const insertion = directiveFor(finding.code, language, line, document.lineAt(line).text);
  const action = new vscode.CodeAction(vscode.l10n.t('Accept this {0} here (attest-ignore comment)', finding.code), vscode.CodeActionKind.QuickFix);
  action.edit = new vscode.WorkspaceEdit();
  action.edit.insert(document.uri, new vscode.Position(insertion.line, insertion.character), insertion.text);
  action.diagnostics = [diagnostic];
  return action;
}

const MARKDOWN_LANGUAGES = new Set(['markdown', 'rmd', 'quarto']);

function openRecord(url: string, diagnostic: vscode.Diagnostic): vscode.CodeAction {
  const action = new vscode.CodeAction(vscode.l10n.t('Open the matched record'), vscode.CodeActionKind.QuickFix);
  action.command = { command: 'vscode.open', title: action.title, arguments: [vscode.Uri.parse(url, true)] };
  action.diagnostics = [diagnostic];
  return action;
}

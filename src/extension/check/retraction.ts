/**
 * What the editor shows and does about a cited work that was retracted, is under an expression of
 * concern, was corrected or withdrawn: the hover's line with the notice's date and link, and the
 * command that ignores it for one citation with the writer's reason.
 */
import * as vscode from 'vscode';
import { SOURCE_NAMES } from '../../core/app/services';
import type { VerdictSubject } from '../../core/app/pipeline';
import type { RetractionStatus } from '../../core/app/verdicts';
import { markdownLink, markdownText } from '../../core/app/text';
import type { Checker } from './checker';

/** The hover's line for a work whose standing is in doubt; undefined for a work that stands (or is not known to). */
export function describeRetraction(retraction: RetractionStatus | undefined): vscode.MarkdownString | undefined {
  if (!retraction) return undefined;
  const notice = retraction.notice;
  const date = notice?.date ?? vscode.l10n.t('date unknown');
  const by = retraction.sources.map((id) => SOURCE_NAMES[id]).join(', ');
  let line: string;
  switch (retraction.status) {
    case 'retracted':
      line = `$(error) ${markdownText(notice?.type === 'partial-retraction' ? vscode.l10n.t('Partially retracted ({0}, per {1})', date, by) : vscode.l10n.t('Retracted ({0}, per {1})', date, by))}`;
      break;
    case 'expression-of-concern':
      line = `$(warning) ${markdownText(vscode.l10n.t('Expression of concern ({0}, per {1})', date, by))}`;
      break;
    case 'withdrawn':
      line = `$(warning) ${markdownText(vscode.l10n.t('Withdrawn by its authors: {0}', retraction.comment ?? ''))}`;
      break;
    case 'corrected':
      line = `$(info) ${markdownText(vscode.l10n.t('Corrected ({0}, per {1})', date, by))}`;
      break;
    default:
      return undefined;
  }
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(line);
  // The notice's link is a source's data: markdownLink links http(s) addresses only.
  if (notice?.url) md.appendMarkdown(` · ${markdownLink(notice.doi ?? notice.label ?? vscode.l10n.t('the notice'), notice.url)}`);
  return md;
}

/** `attest.ignoreRetraction`: asks why the writer cites the work all the same, and keeps the answer with the ignore. */
export async function ignoreRetraction(checker: Checker, file: string, subject: VerdictSubject): Promise<void> {
  const reason = await vscode.window.showInputBox({
    title: vscode.l10n.t('Cite {0} knowing what became of it', subject.key),
    prompt: vscode.l10n.t('Why is this citation right (for example: the sentence discusses the retraction)? The reason is kept in .attest/ignore.json.'),
    validateInput: (value) => (value.trim() === '' ? vscode.l10n.t('Say why, for whoever reads the manuscript next.') : undefined),
    ignoreFocusOut: true,
  });
  if (reason === undefined) return;
  await checker.ignoreVerdict(file, subject, { about: 'retraction', reason: reason.trim() });
}

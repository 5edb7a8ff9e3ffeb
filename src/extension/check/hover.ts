import * as vscode from 'vscode';
import { type BibEntry, listAuthors } from '../../core/app/bibliography';
import { type FullTextSource, passagePlace, SOURCE_NAMES, type SourceErrorKind, type SourceRecord } from '../../core/app/services';
import type { CitationSupport, ExistenceVerdict } from '../../core/app/verdicts';
import { doiUrl, linkTarget, markdownCode, markdownLink, markdownText } from '../../core/app/text';
import type { Checker } from './checker';
import { describeRetraction } from './retraction';
import { supportWords } from './supportWords';

/** Shows the bibliography entry behind the citation key under the cursor. */
export class CitationHoverProvider implements vscode.HoverProvider {
  constructor(private readonly checker: Checker) {}

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const result = this.checker.resultFor(document.uri.fsPath);
    if (!result) return undefined;
    const citation = result.citations.find(
      (c) => c.file === document.uri.fsPath && new vscode.Range(c.range.start.line, c.range.start.character, c.range.end.line, c.range.end.character).contains(position),
    );
    if (!citation) return undefined;
    const range = new vscode.Range(citation.range.start.line, citation.range.start.character, citation.range.end.line, citation.range.end.character);
    const entry = result.bibliographies.flatMap((b) => b.entries).find((e) => e.key === citation.key);
    // A missing key's error says so in the same hover, with the keys it probably meant.
    if (!entry) return undefined;
    const verdict = result.verdicts?.get(citation.key)?.verdict;
    const support = result.supports?.find((s) => s.citation === citation);
    const parts = [describeEntry(entry)];
    if (verdict) parts.push(describeVerdict(verdict));
    const retraction = describeRetraction(result.verdicts?.get(citation.key)?.retraction);
    if (retraction) parts.push(retraction);
    // No source has the work: why no full text of it was read says nothing more.
    if (support) parts.push(describeSupport(verdict?.status === 'not-found' ? { ...support, fullText: undefined } : support));
    return new vscode.Hover(parts, range);
  }
}

/**
 * Whether the cited work backs this sentence, what was read to say so (the abstract only, or with the
 * full text and from where), and the text and scores the verdict rests on.
 */
function describeSupport(support: CitationSupport): vscode.MarkdownString {
  const { judgement, fullText } = support;
  const md = new vscode.MarkdownString(undefined, true);
  const { icon, verdict, meaning } = supportWords(support, vscode.l10n.t);
  const read =
    fullText && 'source' in fullText ? vscode.l10n.t('Abstract and full text ({0}): {1}', FULL_TEXT_NAMES[fullText.source], verdict) : vscode.l10n.t('Abstract only: {0}', verdict);
  md.appendMarkdown(`$(${icon}) ${markdownText(read)}${judgement.reason ? ` (${markdownText(judgement.reason)})` : ''}\n\n`);
  if (meaning) md.appendMarkdown(`${markdownText(meaning)}\n\n`);
  if (fullText && 'reason' in fullText) md.appendMarkdown(`*${markdownText(vscode.l10n.t('No full text: {0}', fullText.reason))}*\n\n`);
  if (judgement.sentence) {
    const where = judgement.evidence?.from === 'full text' ? `${passagePlace(judgement.evidence)}: ` : '';
    md.appendMarkdown(`> ${markdownText(where + judgement.sentence)}\n\n`);
  }
  // Without an abstract nothing was measured: a "relevance 0.00" there would read as a finding.
  if (judgement.label === 'unverifiable' && judgement.reason === 'no abstract') return md;
  const scores = [
    judgement.entailment === undefined ? undefined : `entailment ${judgement.entailment.toFixed(2)}`,
    judgement.contradiction === undefined ? undefined : `contradiction ${judgement.contradiction.toFixed(2)}`,
    `relevance ${judgement.relevance.toFixed(2)}`,
    judgement.model,
  ].filter((x) => x !== undefined);
  md.appendMarkdown(`*${markdownText(scores.join(' · '))}*`);
  return md;
}

/** Why a source could not answer, as a writer would say it. */
const FAILURE_WORDS: Readonly<Record<SourceErrorKind, string>> = {
  unreachable: vscode.l10n.t('could not be reached'),
  unavailable: vscode.l10n.t('answered with an error'),
  timeout: vscode.l10n.t('did not answer in time'),
  'rate-limited': vscode.l10n.t('asked Attest to slow down'),
  unauthorized: vscode.l10n.t('refused the request (check its API key)'),
  malformed: vscode.l10n.t('sent an answer Attest could not read'),
  offline: vscode.l10n.t('not asked: Attest is set to work offline and has no saved answer'),
  cancelled: vscode.l10n.t('the check was stopped before it answered'),
};

const FULL_TEXT_NAMES: Readonly<Record<FullTextSource, string>> = { europepmc: 'Europe PMC', arxiv: 'arXiv', core: 'CORE', pdf: 'PDF' };

/** What the open sources said, with a link to the record the verdict rests on. */
function describeVerdict(verdict: ExistenceVerdict): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  const link = (record: SourceRecord): string => markdownLink(record.title || record.id, record.url);
  switch (verdict.status) {
    case 'found':
      md.appendMarkdown(`$(pass) ${markdownText(vscode.l10n.t('Found in {0}:', SOURCE_NAMES[verdict.record.source]))} ${link(verdict.record)}`);
      if (verdict.venueUnconfirmed) {
        md.appendMarkdown(`\n\n$(info) ${markdownText(vscode.l10n.t('Known only as a preprint; no source confirms it appeared in {0}.', verdict.venueUnconfirmed))}`);
      }
      break;
    case 'metadata-mismatch':
      md.appendMarkdown(
        `$(warning) ${markdownText(vscode.l10n.t('Matches a record in {0} whose metadata differs:', SOURCE_NAMES[verdict.record.source]))} ${link(verdict.record)}\n\n`,
      );
      for (const d of verdict.differences) {
        md.appendMarkdown(`- ${markdownText(d.field)}: ${markdownText(d.expected || '—')} → ${markdownText(d.found || '—')}\n`);
      }
      break;
    case 'not-found':
      md.appendMarkdown(`$(error) ${markdownText(vscode.l10n.t('No record in {0}; possibly fabricated.', verdict.asked.map((id) => SOURCE_NAMES[id]).join(', ')))}`);
      break;
    case 'doi-title-conflict':
      md.appendMarkdown(
        `$(error) ${markdownText(vscode.l10n.t('Its {0} names another work, in {1}:', verdict.via === 'doi' ? 'DOI' : 'PubMed id', SOURCE_NAMES[verdict.record.source]))} ${link(verdict.record)}`,
      );
      if (verdict.titled) md.appendMarkdown(`\n\n${markdownText(vscode.l10n.t('The cited title is in {0}:', SOURCE_NAMES[verdict.titled.source]))} ${link(verdict.titled)}`);
      break;
    case 'unchecked': {
      // The reason's first line says what happened; the lines after it are the sources' own words
      // (hosts, HTTP codes), which go to the Attest output. Here each source's failure in plain words.
      const [summary] = verdict.reason.split('\n');
      md.appendMarkdown(`$(question) ${markdownText(vscode.l10n.t('Not checked: {0}', summary))}`);
      const failures = verdict.failures ?? [];
      if (failures.length > 0) {
        md.appendMarkdown(`\n\n${failures.map(({ source, kind }) => `- ${markdownText(`${SOURCE_NAMES[source]}: ${FAILURE_WORDS[kind]}`)}`).join('\n')}`);
        md.appendMarkdown(`\n\n*${markdownText(vscode.l10n.t('Not a sign that the reference is wrong. The details are in the Attest output (View: Output, then Attest).'))}*`);
      }
      break;
    }
  }
  return md;
}

function describeEntry(entry: BibEntry): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${markdownText(entry.title ?? vscode.l10n.t('(no title)'))}**\n\n`);
  const byline = [listAuthors(entry.authors), entry.year?.toString()].filter((s) => s && s.length > 0).join(', ');
  if (byline) md.appendMarkdown(`${markdownText(byline)}\n\n`);
  if (entry.venue) md.appendMarkdown(`*${markdownText(entry.venue)}*\n\n`);
  if (entry.doi) md.appendMarkdown(`${markdownLink(`doi:${entry.doi}`, doiUrl(entry.doi))}\n\n`);
  else if (entry.url) md.appendMarkdown(`${markdownLink(entry.url, entry.url)}\n\n`);
  const file = vscode.Uri.file(entry.file).with({ fragment: `L${entry.range.start.line + 1}` });
  md.appendMarkdown(
    `[${markdownText(`${vscode.workspace.asRelativePath(entry.file)}:${entry.range.start.line + 1}`)}](${linkTarget(file.toString())}) · ${markdownCode(entry.key)}`,
  );
  return md;
}

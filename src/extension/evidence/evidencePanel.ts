import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PanelKind } from '../panelHost';
import { type BibEntry, listAuthors } from '../../core/app/bibliography';
import type { Evidence, PaperStanding, SearchMode } from '../../core/app/evidence';
import { analyze, type ShownVerdict } from '../../core/app/support';
import { isWebLink } from '../../core/app/text';
import { linkOf } from './evidenceActions';
import type { EvidenceItem, Fragment, PanelStrings } from '../../webview/protocol/evidence';

/** The panel listing the papers found for a claim. */
export const EVIDENCE_PANEL: PanelKind = {
  viewType: 'attest.evidence',
  page: 'evidence',
  title: () => vscode.l10n.t('Evidence'),
  strings: () => panelStrings(),
};

/** A paper as the page shows it; `existing` is the entry of the manuscript's bibliographies that has it. */
export function itemOf(evidence: Evidence, claim: string, existing: BibEntry | undefined): EvidenceItem {
  const { paper } = evidence;
  return {
    title: paper.title,
    authors: listAuthors(paper.authors),
    year: paper.year,
    venue: paper.venue,
    openAccessUrl: paper.openAccessUrl !== undefined && isWebLink(paper.openAccessUrl) ? paper.openAccessUrl : undefined,
    link: linkOf(paper),
    sentence: evidence.sentence === undefined ? undefined : highlight(evidence.sentence, claim),
    score: evidence.score,
    existing: existing && { key: existing.key, file: path.basename(existing.file) },
    ...(paper.standing ? { standing: paper.standing } : {}),
  };
}

/** Words, hyphenated compounds whole ("attention-based"), as the analyser reads them. */
const WORD = /[\p{L}\p{N}]+(?:[-\u2010\u2011\u2013][\p{L}\p{N}]+)*/gu;

/**
 * The sentence cut where its words meet the claim's, compared as the search compares them (stemmed,
 * stopwords aside), so the highlight shows why the sentence ranked.
 */
export function highlight(sentence: string, claim: string): Fragment[] {
  const terms = new Set(analyze(claim));
  const fragments: Fragment[] = [];
  let done = 0;
  for (const match of sentence.matchAll(WORD)) {
    if (!analyze(match[0]).some((t) => terms.has(t))) continue;
    if (match.index > done) fragments.push({ text: sentence.slice(done, match.index), match: false });
    fragments.push({ text: match[0], match: true });
    done = match.index + match[0].length;
  }
  if (done < sentence.length) fragments.push({ text: sentence.slice(done), match: false });
  return fragments;
}

/** The page's wording. Each label record satisfies core's type as well as the protocol's: the two lists of words stay equal. */
function panelStrings(): PanelStrings {
  const t = vscode.l10n.t;
  return {
    searching: t('Looking for evidence…'),
    claim: t('Evidence for'),
    mode: { lexical: t('lexical search'), dense: t('semantic search'), hybrid: t('hybrid search (lexical and semantic)') } satisfies Record<SearchMode, string>,
    noResults: t('No paper found for this claim.'),
    openAccess: t('Open access'),
    standing: { retracted: t('Retracted'), 'expression-of-concern': t('Expression of concern'), withdrawn: t('Withdrawn') } satisfies Record<PaperStanding, string>,
    score: t('score {0}'),
    existing: t('In {0} as {1}'),
    verdict: {
      supported: t('Supports the claim'),
      'may-support': t('May support the claim'),
      contradicted: t('Contradicts the claim'),
      unsupported: t('Does not support the claim'),
      unverifiable: t('Not judged'),
    } satisfies Record<ShownVerdict, string>,
    entailment: t('entailment {0}'),
    onDev: t(
      'On the dev claims it was measured on (SciFact, Citation-Integrity, Check-COVID), {0} in 10 verdicts at this level were right ({1} of {2}); on claims of other kinds it is right less often.',
    ),
    judging: t('Judging whether each paper supports the claim…'),
    updating: t('From your library so far, before its final order: still searching the open sources, whose papers will update this list.'),
    fullText: t('Full text, {0}:'),
    actions: { citeHere: t('Cite here'), addToBibliography: t('Add to bibliography'), openPaper: t('Open paper') },
    downloadEncoder: t('Download the encoder'),
    replaceCitation: t('Replace {0} with this'),
    citedHere: t('Already cited here'),
  };
}

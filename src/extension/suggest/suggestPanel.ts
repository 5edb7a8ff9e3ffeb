import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PanelKind } from '../panelHost';
import { type BibEntry, listAuthors } from '../../core/app/bibliography';
import type { SentenceStatus, Suggestion, SuggestOutcome } from '../../core/app/suggest';
import { linkOf } from '../evidence/evidenceActions';
import type { PanelStrings, SentenceView, SuggestionMessage } from '../../webview/protocol/suggest';

/** The panel that shows a suggestion before anything of it reaches the document: first what would be sent (once per endpoint), then the draft as it streams in, then the checked sentences. */
export const SUGGEST_PANEL: PanelKind = {
  viewType: 'attest.suggest',
  page: 'suggest',
  title: () => vscode.l10n.t('Suggestion'),
  strings: () => panelStrings(),
};

/** The suggestion as the page shows it; `existing` holds, for each source, the entry of the manuscript's bibliographies that has it. */
export function suggestionView(selection: string, suggestion: Suggestion, existing: readonly (BibEntry | undefined)[]): SuggestionMessage {
  const numbers = new Map(suggestion.sources.map((paper, i) => [paper.id, i + 1]));
  const numberOf = (id: string): number => numbers.get(id) ?? 0;
  return {
    type: 'suggestion',
    selection,
    outcome: suggestion.outcome,
    sentences: suggestion.sentences.map((s): SentenceView => ({
      text: s.text,
      status: s.status,
      reason: s.reason,
      sources: s.citations.map((paper) => numberOf(paper.id)),
      evidence: s.evidence && { passage: s.evidence.passage, source: numberOf(s.evidence.paper.id), entailment: s.evidence.judgement.entailment },
    })),
    sources: suggestion.sources.map((paper, i) => {
      const entry = existing[i];
      return {
        number: i + 1,
        title: paper.title,
        authors: listAuthors(paper.authors),
        year: paper.year,
        venue: paper.venue,
        link: linkOf(paper) !== undefined,
        existing: entry && { key: entry.key, file: path.basename(entry.file) },
      };
    }),
    removed: suggestion.removed.map(({ text, reason }) => ({ text, reason })),
    notes: suggestion.notes,
  };
}

/** The page's wording. Each label record satisfies core's type as well as the protocol's: the two lists of words stay equal. */
function panelStrings(): PanelStrings {
  const t = vscode.l10n.t;
  return {
    selection: t('Suggestion for'),
    consentTitle: t('Before anything is sent to {0}'),
    remember: t(
      'Send allows requests to this endpoint from this workspace from now on (as does the command Attest: Allow Requests to the Language Model); you are asked again if the endpoint changes.',
    ),
    send: t('Send'),
    cancel: t('Cancel'),
    outcome: {
      drafted: t('Suggested text, cited from the sources found. Nothing is in the document until you accept it.'),
      insufficient: t('The sources found do not hold enough evidence for this text, so nothing is suggested.'),
      'no-sources': t('No paper with an abstract was found for this text, so the model was not asked to draft anything.'),
      empty: t('The model offered no text that could be kept.'),
      malformed: t("The model's reply could not be read as a draft."),
    } satisfies Record<SuggestOutcome, string>,
    status: { supported: t('Supported'), unconfirmed: t('Unconfirmed'), contradicted: t('Contradicted'), unrelated: t('Unrelated'), uncited: t('Uncited') } satisfies Record<
      SentenceStatus,
      string
    >,
    include: t('Insert this sentence too'),
    acceptHint: t('Accept inserts the supported sentences and the unconfirmed ones you tick; contradicted, unrelated and uncited sentences are never inserted.'),
    evidence: t('From [{0}]:'),
    entailment: t('entailment {0}'),
    cites: t('Cites'),
    existing: t('in {0} as {1}'),
    added: t('added to the bibliography on Accept'),
    open: t('Open'),
    removedTitle: t('Taken out of the draft'),
    removed: t('removed: {0} — {1}'),
    sourcesTitle: t('Sources the model was given ({0})'),
    notesTitle: t('Notes'),
    accept: t('Accept'),
    discard: t('Discard'),
    close: t('Close'),
    fix: { settings: t('Open Settings'), apiKey: t('Set LLM API Key') },
  };
}

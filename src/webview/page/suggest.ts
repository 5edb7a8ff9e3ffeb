// The suggestion panel's page (src/extension/suggest/suggestPanel.ts opens it). The model's text, titles,
// authors and abstract passages come from outside and may hold anything, so the page is built with
// textContent only, never from HTML, and every message is checked before it is shown. The page keeps
// no state of its own: when VS Code rebuilds it (hidden, then shown again) it asks with `ready`.
import {
  FIXES,
  SENTENCE_STATUSES,
  SUGGEST_OUTCOMES,
  type PanelMessage,
  type PanelStrings,
  type RemovalView,
  type SentenceView,
  type SourceView,
  type SuggestionMessage,
  type WebviewMessage,
} from '../protocol/suggest';
import { isBoolean, isCount, isNumber, isString, listOf, messages, oneOf, optional, record } from './checks';
import { el, extension, format, metaLine, onMessage, pageRoot, panelStrings } from './dom';

const vscode = extension<WebviewMessage>();
const strings = panelStrings<PanelStrings>();
const root = pageRoot();

// ---------------------------------------------------------------------------------------
// Checks: what the protocol's PanelMessage promises, and nothing else.

const isExisting = record<NonNullable<SourceView['existing']>>({ key: isString, file: isString });
const isEvidence = record<NonNullable<SentenceView['evidence']>>({ passage: isString, source: isCount, entailment: optional(isNumber) });
const isRemoval = record<RemovalView>({ text: isString, reason: isString });
const isAccepted = record<NonNullable<SuggestionMessage['accepted']>>({ ok: isBoolean, message: isString });

const isSource = record<SourceView>({
  number: isCount,
  title: isString,
  authors: isString,
  year: optional(isNumber),
  venue: optional(isString),
  link: isBoolean,
  existing: optional(isExisting),
});

const isSentence = record<SentenceView>({
  text: isString,
  status: oneOf(SENTENCE_STATUSES),
  reason: optional(isString),
  sources: listOf(isCount),
  evidence: optional(isEvidence),
});

const isMessage = messages<PanelMessage>({
  consent: { selection: isString, endpoint: isString, outgoing: isString, liveSearch: isString },
  working: { selection: isString, stage: isString, draft: isString },
  draftMore: { selection: isString, text: isString },
  suggestion: {
    selection: isString,
    outcome: oneOf(SUGGEST_OUTCOMES),
    sentences: listOf(isSentence),
    sources: listOf(isSource),
    removed: listOf(isRemoval),
    notes: listOf(isString),
    accepted: optional(isAccepted),
  },
  failed: { selection: isString, message: isString, fix: optional(oneOf(FIXES)) },
});

// ---------------------------------------------------------------------------------------
// Rendering

function button(label: string, kind: string, message: WebviewMessage): HTMLButtonElement {
  const node = el('button', kind, label);
  node.addEventListener('click', () => vscode.postMessage(message));
  return node;
}

function actions(...buttons: HTMLElement[]): HTMLElement {
  const row = el('div', 'actions');
  row.append(...buttons);
  return row;
}

function header(selection: string): HTMLElement {
  const head = el('header');
  head.append(el('p', 'label', strings.selection), el('blockquote', 'selection', selection));
  return head;
}

function render(message: PanelMessage): void {
  if (message.type === 'draftMore') {
    root.querySelector('.draft')?.append(document.createTextNode(message.text));
    return;
  }
  const parts = [header(message.selection)];
  switch (message.type) {
    case 'consent':
      parts.push(
        el('h2', 'consent-title', format(strings.consentTitle, message.endpoint)),
        el('pre', 'outgoing', message.outgoing),
        el('p', 'live-search', message.liveSearch),
        el('p', 'remember', strings.remember),
        actions(button(strings.send, 'primary', { type: 'send' }), button(strings.cancel, 'secondary', { type: 'cancel' })),
      );
      break;
    case 'working':
      parts.push(el('p', 'status busy', message.stage));
      // Always there, so that more of the draft has somewhere to go.
      parts.push(el('div', 'draft', message.draft));
      parts.push(actions(button(strings.cancel, 'secondary', { type: 'cancel' })));
      break;
    case 'failed': {
      parts.push(el('p', 'status error', message.message));
      const buttons = [button(strings.close, 'secondary', { type: 'discard' })];
      if (message.fix) buttons.unshift(button(strings.fix[message.fix], 'primary', { type: message.fix === 'settings' ? 'openSettings' : 'setApiKey' }));
      parts.push(actions(...buttons));
      break;
    }
    case 'suggestion':
      parts.push(...suggestion(message));
      break;
  }
  root.replaceChildren(...parts);
}

function suggestion(message: SuggestionMessage): HTMLElement[] {
  const parts: HTMLElement[] = [el('p', message.outcome === 'drafted' ? 'status' : 'status warning', strings.outcome[message.outcome])];
  const sources = new Map(message.sources.map((s) => [s.number, s]));
  const cited = new Set(message.sentences.flatMap((s) => s.sources));
  /** The unconfirmed sentences the user ticked, by index: Accept inserts them with the supported ones. */
  const ticked = new Set<number>();
  if (message.sentences.length > 0) {
    const list = el('ol', 'sentences');
    message.sentences.forEach((s, i) => list.append(sentence(s, sources, i, ticked)));
    parts.push(list);
  }
  if (message.removed.length > 0) {
    const removed = el('ul', 'removed');
    for (const r of message.removed) removed.append(el('li', undefined, format(strings.removed, r.text, r.reason)));
    parts.push(el('h3', undefined, strings.removedTitle), removed);
  }
  if (message.notes.length > 0) {
    const notes = el('ul', 'notes');
    notes.setAttribute('aria-label', strings.notesTitle);
    for (const note of message.notes) notes.append(el('li', undefined, note));
    parts.push(notes);
  }
  if (message.sources.length > 0) {
    const details = el('details', 'sources');
    const list = el('ol', 'source-list');
    for (const s of message.sources) list.append(sourceLine(s, cited.has(s.number)));
    details.append(el('summary', undefined, format(strings.sourcesTitle, message.sources.length)), list);
    parts.push(details);
  }
  const accepted = message.accepted;
  if (accepted) {
    const line = el('p', accepted.ok ? 'accepted' : 'accepted error', accepted.message);
    line.setAttribute('role', 'status');
    parts.push(line);
  }
  const canAccept = message.outcome === 'drafted' && message.sentences.length > 0 && !accepted?.ok;
  if (canAccept) {
    const accept = el('button', 'primary', strings.accept);
    accept.addEventListener('click', () => vscode.postMessage({ type: 'accept', unconfirmed: [...ticked].sort((a, b) => a - b) }));
    parts.push(el('p', 'accept-hint', strings.acceptHint), actions(accept, button(strings.discard, 'secondary', { type: 'discard' })));
  } else {
    parts.push(actions(button(strings.close, 'secondary', { type: 'discard' })));
  }
  return parts;
}

function sentence(s: SentenceView, sources: ReadonlyMap<number, SourceView>, index: number, ticked: Set<number>): HTMLElement {
  const node = el('li', `sentence status-${s.status}`);
  const head = el('div', 'sentence-head');
  const badge = el('span', `badge status-${s.status}`, strings.status[s.status]);
  // The reason or the passage on hover too, for a quick look down the list.
  badge.title = s.reason || (s.evidence ? s.evidence.passage : '');
  head.append(badge, el('p', 'sentence-text', s.text));
  node.append(head);
  if (s.status === 'unconfirmed') {
    const label = el('label', 'include');
    const box = el('input');
    box.type = 'checkbox';
    box.addEventListener('change', () => (box.checked ? ticked.add(index) : ticked.delete(index)));
    label.append(box, document.createTextNode(' ' + strings.include));
    node.append(label);
  }

  if (s.sources.length > 0) {
    const cites = el('ul', 'cites');
    cites.setAttribute('aria-label', strings.cites);
    for (const n of s.sources) {
      const source = sources.get(n);
      if (source) cites.append(sourceLine(source, true));
    }
    node.append(cites);
  }
  if (s.reason) node.append(el('p', 'reason', s.reason));
  if (s.evidence) {
    const quote = el('blockquote', 'evidence');
    const from = el('span', 'from', format(strings.evidence, s.evidence.source));
    quote.append(from, document.createTextNode(' ' + s.evidence.passage));
    if (s.evidence.entailment !== undefined) quote.append(el('span', 'score', ` · ${format(strings.entailment, s.evidence.entailment.toFixed(2))}`));
    node.append(quote);
  }
  return node;
}

/** A source as a list item; `cited` when Accept would cite it, so a source new to the bibliography would be added. */
function sourceLine(source: SourceView, cited: boolean): HTMLElement {
  const node = el('li', 'source');
  node.append(el('span', 'number', `[${source.number}]`), el('span', 'title', source.title));
  const meta = metaLine(source);
  if (meta !== '') node.append(el('span', 'meta', meta));
  if (source.existing) node.append(el('span', 'existing', format(strings.existing, source.existing.file, source.existing.key)));
  else if (cited) node.append(el('span', 'existing new', strings.added));
  if (source.link) node.append(button(strings.open, 'link', { type: 'openPaper', source: source.number }));
  return node;
}

onMessage(isMessage, render);
vscode.postMessage({ type: 'ready' });

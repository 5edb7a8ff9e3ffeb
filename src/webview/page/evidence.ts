// The evidence panel's page (src/extension/evidence/evidencePanel.ts opens it). Titles, authors and abstract
// sentences come from outside sources and may hold anything, so the page is built with textContent
// only, never from HTML, and every message is checked before it is shown. The page keeps no state
// of its own: when VS Code rebuilds it (hidden, then shown again) it asks the extension with `ready`.
import { isWebLink } from '../../core/webLink';
import {
  PAPER_STANDINGS,
  RESULT_ACTIONS,
  SEARCH_MODES,
  SHOWN_VERDICTS,
  type EvidenceItem,
  type Fragment,
  type PanelMessage,
  type PanelStrings,
  type ResultAction,
  type ResultsMessage,
  type VerdictView,
  type WebviewMessage,
} from '../protocol/evidence';
import { isBoolean, isCount, isInteger, isNumber, isString, isTrue, listOf, messages, oneOf, optional, orNull, record, where } from './checks';
import { el, extension, format, metaLine, onMessage, pageRoot, panelStrings } from './dom';

const vscode = extension<WebviewMessage>();
const strings = panelStrings<PanelStrings>();
const root = pageRoot();

/** The outcome line of each listed result, by index, for `outcome` messages. */
let outcomes: HTMLElement[] = [];
/** The heading of each listed result, by index, where a `verdicts` message puts its verdict. */
let headings: HTMLElement[] = [];
/** The line saying that the verdicts are on their way, while they are. */
let judgingLine: HTMLElement | null = null;
/** The number of the list shown (see `list` in the protocol), which its verdicts and actions name. */
let shownList: number | null = null;

// ---------------------------------------------------------------------------------------
// Checks: what the protocol's PanelMessage promises, and nothing else.

const isWebAddress = where(isString, isWebLink);
const isFragment = record<Fragment>({ text: isString, match: isBoolean });
const isExisting = record<NonNullable<EvidenceItem['existing']>>({ key: isString, file: isString });
const isOnDev = where(record<NonNullable<VerdictView['onDev']>>({ verdicts: isCount, right: isCount }), (d) => d.right <= d.verdicts && d.verdicts > 0);
const isVerdict = record<VerdictView>({ label: oneOf(SHOWN_VERDICTS), entailment: optional(isNumber), onDev: optional(isOnDev) });

const isItem = record<EvidenceItem>({
  title: isString,
  authors: isString,
  year: optional(isNumber),
  venue: optional(isString),
  openAccessUrl: optional(isWebAddress),
  link: optional(isWebAddress),
  sentence: optional(listOf(isFragment)),
  score: isNumber,
  existing: optional(isExisting),
  citedHere: optional(isTrue),
  verdict: optional(isVerdict),
  standing: optional(oneOf(PAPER_STANDINGS)),
  passage: optional(record<NonNullable<EvidenceItem['passage']>>({ place: isString, text: listOf(isFragment) })),
});

const isMessage = messages<PanelMessage>({
  searching: { claim: isString },
  results: {
    list: isCount,
    claim: isString,
    mode: oneOf(SEARCH_MODES),
    notes: listOf(isString),
    encoderDownload: optional(isTrue),
    replacing: optional(isString),
    judging: optional(isTrue),
    updating: optional(isTrue),
    items: listOf(isItem),
  },
  verdicts: { list: isCount, verdicts: listOf(orNull(isVerdict)) },
  failed: { claim: isString, message: isString },
  outcome: { index: isInteger, ok: isBoolean, message: isString },
});

// ---------------------------------------------------------------------------------------
// Rendering

/** Ranking scores differ in scale by search mode (fused ranks are small, BM25 large): three significant digits suit both. */
const formatScore = (score: number): string => String(Number(score.toPrecision(3)));

function send(action: ResultAction, index: number, list: number): void {
  vscode.postMessage({ type: action, index, list });
}

function header(claim: string): HTMLElement {
  const head = el('header');
  head.append(el('p', 'label', strings.claim), el('blockquote', 'claim', claim));
  return head;
}

function render(message: PanelMessage): void {
  switch (message.type) {
    case 'searching':
      forgetResults();
      root.replaceChildren(header(message.claim), el('p', 'status busy', strings.searching));
      break;
    case 'failed':
      forgetResults();
      root.replaceChildren(header(message.claim), el('p', 'status error', message.message));
      break;
    case 'results':
      renderResults(message);
      break;
    case 'verdicts':
      if (message.list === shownList) addVerdicts(message.verdicts);
      break;
    case 'outcome': {
      const line = outcomes[message.index];
      if (!line) break;
      line.textContent = message.message;
      line.classList.toggle('error', !message.ok);
      break;
    }
  }
}

function forgetResults(): void {
  outcomes = [];
  headings = [];
  judgingLine = null;
  shownList = null;
}

/**
 * Verdicts for the list shown while it waits for them, in its order. A list drawn since with its
 * verdicts already in waits for none.
 */
function addVerdicts(verdicts: readonly (VerdictView | null)[]): void {
  if (judgingLine === null || verdicts.length !== headings.length) return;
  verdicts.forEach((v, index) => {
    headings[index].querySelector('.verdict')?.remove();
    if (v) headings[index].append(verdict(v));
  });
  judgingLine.remove();
  judgingLine = null;
}

function renderResults(message: ResultsMessage): void {
  forgetResults();
  shownList = message.list;
  const search = el('div', 'search');
  search.append(el('span', 'badge mode', strings.mode[message.mode]));
  const parts: HTMLElement[] = [header(message.claim), search];
  if (message.updating) parts.push(el('p', 'status busy', strings.updating));
  if (message.judging && message.items.length > 0) {
    judgingLine = el('p', 'status busy', strings.judging);
    parts.push(judgingLine);
  }
  if (message.notes.length > 0) {
    const notes = el('ul', 'notes');
    for (const note of message.notes) notes.append(el('li', undefined, note));
    parts.push(notes);
  }
  if (message.encoderDownload) parts.push(downloadButton());
  if (message.items.length === 0) {
    parts.push(el('p', 'status', strings.noResults));
  } else {
    const list = el('ol', 'results');
    // Searched from a citation to replace: the first button replaces its key instead of citing beside it.
    const citeLabel = message.replacing === undefined ? strings.actions.citeHere : format(strings.replaceCitation, message.replacing);
    message.items.forEach((item, index) => {
      const { node, heading, outcome } = result(item, index, message.list, citeLabel);
      list.append(node);
      headings.push(heading);
      outcomes.push(outcome);
    });
    parts.push(list);
  }
  root.replaceChildren(...parts);
}

/** Asks the extension for the encoder's download, which shows its own progress; once asked, the button waits for the new list. */
function downloadButton(): HTMLButtonElement {
  const button = el('button', 'secondary download', strings.downloadEncoder);
  button.addEventListener('click', () => {
    button.disabled = true;
    vscode.postMessage({ type: 'downloadEncoder' });
  });
  return button;
}

/** Text with the claim's words marked, built from text nodes: it comes from outside sources. */
function quoted(fragments: readonly Fragment[]): HTMLElement {
  const quote = el('blockquote', 'sentence');
  for (const fragment of fragments) {
    quote.append(fragment.match ? el('mark', undefined, fragment.text) : document.createTextNode(fragment.text));
  }
  return quote;
}

function result(item: EvidenceItem, index: number, list: number, citeLabel: string): { node: HTMLElement; heading: HTMLElement; outcome: HTMLElement } {
  const node = el('li', 'result');

  const heading = el('div', 'heading');
  heading.append(el('h2', 'title', item.title));
  if (item.standing) heading.append(el('span', 'badge standing', strings.standing[item.standing]));
  if (item.openAccessUrl) {
    const badge = el('button', 'badge open-access', strings.openAccess);
    badge.title = item.openAccessUrl;
    badge.addEventListener('click', () => send('openPaper', index, list));
    heading.append(badge);
  }
  if (item.verdict) heading.append(verdict(item.verdict));
  node.append(heading);

  const meta = metaLine(item);
  if (meta !== '') node.append(el('p', 'meta', meta));

  if (item.sentence) node.append(quoted(item.sentence));
  if (item.passage) node.append(el('p', 'label passage-place', format(strings.fullText, item.passage.place)), quoted(item.passage.text));

  const footer = el('div', 'footer');
  footer.append(el('span', 'score', format(strings.score, formatScore(item.score))));
  if (item.existing) footer.append(el('span', 'existing', format(strings.existing, item.existing.file, item.existing.key)));
  const buttons = el('div', 'actions');
  for (const action of RESULT_ACTIONS) {
    if ((action === 'openPaper' && !item.link) || (action === 'addToBibliography' && item.existing)) continue;
    // The sentence cites the paper already: said on the button, which does nothing.
    const alreadyCited = action === 'citeHere' && item.citedHere === true;
    const label = alreadyCited ? strings.citedHere : action === 'citeHere' ? citeLabel : strings.actions[action];
    const button = el('button', action === 'citeHere' && !alreadyCited ? 'primary' : 'secondary', label);
    if (action === 'openPaper' && item.link) button.title = item.link;
    if (alreadyCited) button.disabled = true;
    else button.addEventListener('click', () => send(action, index, list));
    buttons.append(button);
  }
  footer.append(buttons);
  node.append(footer);

  const outcome = el('p', 'outcome');
  outcome.setAttribute('role', 'status');
  node.append(outcome);
  return { node, heading, outcome };
}

function verdict(v: VerdictView): HTMLElement {
  const text = strings.verdict[v.label] + (v.entailment === undefined ? '' : ` · ${format(strings.entailment, v.entailment.toFixed(2))}`);
  const badge = el('span', `verdict verdict-${v.label}`, text);
  if (v.onDev) badge.title = format(strings.onDev, Math.round((10 * v.onDev.right) / v.onDev.verdicts), v.onDev.right, v.onDev.verdicts);
  return badge;
}

onMessage(isMessage, render);
vscode.postMessage({ type: 'ready' });

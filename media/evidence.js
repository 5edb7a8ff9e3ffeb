// The evidence panel's page (src/extension/evidencePanel.ts opens it). Titles, authors and abstract
// sentences come from outside sources and may hold anything, so the page is built with textContent
// only, never from HTML, and every message is checked before it is shown. The page keeps no state
// of its own: when VS Code rebuilds it (hidden, then shown again) it asks the extension with `ready`.
(function () {
  'use strict';

  const vscode = acquireVsCodeApi();
  /** PanelStrings of evidenceProtocol.ts. */
  const strings = JSON.parse(document.body.dataset.strings || '{}');
  const root = document.getElementById('root');

  const MODES = ['lexical', 'dense', 'hybrid'];
  const VERDICTS = ['supported', 'may-support', 'contradicted', 'unsupported', 'unverifiable'];
  const STANDINGS = ['retracted', 'expression-of-concern', 'withdrawn'];
  const ACTIONS = ['citeHere', 'addToBibliography', 'openPaper'];

  /** The outcome line of each listed result, by index, for `outcome` messages. */
  let outcomes = [];
  /** The heading of each listed result, by index, where a `verdicts` message puts its verdict. */
  let headings = [];
  /** The line saying that the verdicts are on their way, while they are. */
  let judgingLine = null;
  /** The number of the list shown (see `list` in evidenceProtocol.ts), which its verdicts and actions name. */
  let shownList = null;

  // ---------------------------------------------------------------------------------------
  // Checks: what evidenceProtocol.ts's PanelMessage promises, and nothing else.

  const isObject = (v) => typeof v === 'object' && v !== null;
  const isString = (v) => typeof v === 'string';
  const isNumber = (v) => typeof v === 'number' && Number.isFinite(v);
  const isCount = (v) => Number.isSafeInteger(v) && v >= 0;
  const optional = (check) => (v) => v === undefined || check(v);
  const listOf = (check) => (v) => Array.isArray(v) && v.every(check);
  const isWebLink = (url) => /^https?:\/\/\S+$/i.test(url);

  const isFragment = (v) => isObject(v) && isString(v.text) && typeof v.match === 'boolean';
  const isExisting = (v) => isObject(v) && isString(v.key) && isString(v.file);
  const isOnDev = (v) => isObject(v) && isCount(v.verdicts) && isCount(v.right) && v.right <= v.verdicts && v.verdicts > 0;
  const isVerdict = (v) => isObject(v) && VERDICTS.includes(v.label) && optional(isNumber)(v.entailment) && optional(isOnDev)(v.onDev);
  const isPassage = (v) => isObject(v) && isString(v.place) && listOf(isFragment)(v.text);

  function isItem(v) {
    return (
      isObject(v) &&
      isString(v.title) &&
      isString(v.authors) &&
      optional(isNumber)(v.year) &&
      optional(isString)(v.venue) &&
      optional((u) => isString(u) && isWebLink(u))(v.openAccessUrl) &&
      optional((u) => isString(u) && isWebLink(u))(v.link) &&
      optional(listOf(isFragment))(v.sentence) &&
      isNumber(v.score) &&
      optional(isExisting)(v.existing) &&
      optional(isVerdict)(v.verdict) &&
      optional(isPassage)(v.passage) &&
      optional((s) => STANDINGS.includes(s))(v.standing)
    );
  }

  function isMessage(m) {
    if (!isObject(m)) return false;
    switch (m.type) {
      case 'searching':
        return isString(m.claim);
      case 'results':
        return (
          isCount(m.list) &&
          isString(m.claim) &&
          MODES.includes(m.mode) &&
          listOf(isString)(m.notes) &&
          optional((v) => v === true)(m.encoderDownload) &&
          optional(isString)(m.replacing) &&
          optional((v) => v === true)(m.judging) &&
          optional((v) => v === true)(m.updating) &&
          listOf(isItem)(m.items)
        );
      case 'verdicts':
        return isCount(m.list) && listOf((v) => v === null || isVerdict(v))(m.verdicts);
      case 'failed':
        return isString(m.claim) && isString(m.message);
      case 'outcome':
        return Number.isInteger(m.index) && typeof m.ok === 'boolean' && isString(m.message);
      default:
        return false;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Rendering

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function format(template, ...args) {
    return template.replace(/\{(\d+)\}/g, (whole, i) => (Number(i) < args.length ? String(args[Number(i)]) : whole));
  }

  /** Ranking scores differ in scale by search mode (fused ranks are small, BM25 large): three significant digits suit both. */
  const formatScore = (score) => String(Number(score.toPrecision(3)));

  function send(action, index, list) {
    vscode.postMessage({ type: action, index, list });
  }

  function header(claim) {
    const head = el('header');
    head.append(el('p', 'label', strings.claim), el('blockquote', 'claim', claim));
    return head;
  }

  function render(message) {
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

  function forgetResults() {
    outcomes = [];
    headings = [];
    judgingLine = null;
    shownList = null;
  }

  /**
   * Verdicts for the list shown while it waits for them, in its order. A list drawn since with its
   * verdicts already in waits for none.
   */
  function addVerdicts(verdicts) {
    if (judgingLine === null || verdicts.length !== headings.length) return;
    verdicts.forEach((v, index) => {
      headings[index].querySelector('.verdict')?.remove();
      if (v) headings[index].append(verdict(v));
    });
    judgingLine.remove();
    judgingLine = null;
  }

  function renderResults(message) {
    forgetResults();
    shownList = message.list;
    const search = el('div', 'search');
    search.append(el('span', 'badge mode', strings.mode[message.mode]));
    const parts = [header(message.claim), search];
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
  function downloadButton() {
    const button = el('button', 'secondary download', strings.downloadEncoder);
    button.addEventListener('click', () => {
      button.disabled = true;
      vscode.postMessage({ type: 'downloadEncoder' });
    });
    return button;
  }

  /** Text with the claim's words marked, built from text nodes: it comes from outside sources. */
  function quoted(fragments) {
    const quote = el('blockquote', 'sentence');
    for (const fragment of fragments) {
      quote.append(fragment.match ? el('mark', undefined, fragment.text) : document.createTextNode(fragment.text));
    }
    return quote;
  }

  function result(item, index, list, citeLabel) {
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

    const meta = [item.authors, item.year === undefined ? '' : String(item.year), item.venue || ''].filter((p) => p !== '');
    if (meta.length > 0) node.append(el('p', 'meta', meta.join(' · ')));

    if (item.sentence) node.append(quoted(item.sentence));
    if (item.passage) node.append(el('p', 'label passage-place', format(strings.fullText, item.passage.place)), quoted(item.passage.text));

    const footer = el('div', 'footer');
    footer.append(el('span', 'score', format(strings.score, formatScore(item.score))));
    if (item.existing) footer.append(el('span', 'existing', format(strings.existing, item.existing.file, item.existing.key)));
    const buttons = el('div', 'actions');
    for (const action of ACTIONS) {
      if ((action === 'openPaper' && !item.link) || (action === 'addToBibliography' && item.existing)) continue;
      // The sentence cites the paper already: said on the button, which does nothing.
      const alreadyCited = action === 'citeHere' && item.citedHere === true;
      const button = el('button', action === 'citeHere' && !alreadyCited ? 'primary' : 'secondary', alreadyCited ? strings.citedHere : action === 'citeHere' ? citeLabel : strings.actions[action]);
      if (action === 'openPaper') button.title = item.link;
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

  function verdict(v) {
    const text = strings.verdict[v.label] + (v.entailment === undefined ? '' : ` · ${format(strings.entailment, v.entailment.toFixed(2))}`);
    const badge = el('span', `verdict verdict-${v.label}`, text);
    if (v.onDev) badge.title = format(strings.onDev, Math.round((10 * v.onDev.right) / v.onDev.verdicts), v.onDev.right, v.onDev.verdicts);
    return badge;
  }

  window.addEventListener('message', (event) => {
    if (isMessage(event.data)) render(event.data);
  });
  vscode.postMessage({ type: 'ready' });
})();

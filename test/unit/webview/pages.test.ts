import assert from 'node:assert/strict';
import type { EvidenceItem, PanelMessage as EvidenceMessage, PanelStrings as EvidenceStrings } from '../../../src/webview/protocol/evidence';
import type { PanelMessage as SuggestMessage, PanelStrings as SuggestStrings } from '../../../src/webview/protocol/suggest';
import { bundledPages, runPage, type FakeNode } from '../support/webviewPage';

// The panels' pages as bundled for the package, run on a fake DOM that parses no HTML.

const EVIDENCE_STRINGS: EvidenceStrings = {
  searching: 'Looking…',
  claim: 'Evidence for',
  mode: { lexical: 'lexical search', dense: 'semantic search', hybrid: 'hybrid search' },
  noResults: 'No paper found.',
  openAccess: 'Open access',
  standing: { retracted: 'Retracted', 'expression-of-concern': 'Expression of concern', withdrawn: 'Withdrawn' },
  score: 'score {0}',
  existing: 'In {0} as {1}',
  verdict: { supported: 'Supports', 'may-support': 'May support', contradicted: 'Contradicts', unsupported: 'Does not support', unverifiable: 'Not judged' },
  entailment: 'entailment {0}',
  onDev: '{0} in 10 ({1} of {2})',
  judging: 'Judging…',
  updating: 'Updating…',
  fullText: 'Full text, {0}:',
  actions: { citeHere: 'Cite here', addToBibliography: 'Add to bibliography', openPaper: 'Open paper' },
  downloadEncoder: 'Download the encoder',
  replaceCitation: 'Replace {0} with this',
  citedHere: 'Already cited here',
};

const SUGGEST_STRINGS: SuggestStrings = {
  selection: 'Suggestion for',
  consentTitle: 'Before anything is sent to {0}',
  remember: 'Send allows requests from now on.',
  send: 'Send',
  cancel: 'Cancel',
  outcome: { drafted: 'Suggested text.', insufficient: 'Not enough evidence.', 'no-sources': 'No sources.', empty: 'Nothing kept.', malformed: 'Unreadable.' },
  status: { supported: 'Supported', unconfirmed: 'Unconfirmed', contradicted: 'Contradicted', unrelated: 'Unrelated', uncited: 'Uncited' },
  include: 'Insert this sentence too',
  acceptHint: 'Accept inserts…',
  evidence: 'From [{0}]:',
  entailment: 'entailment {0}',
  cites: 'Cites',
  existing: 'in {0} as {1}',
  added: 'added on Accept',
  open: 'Open',
  removedTitle: 'Taken out',
  removed: 'removed: {0} — {1}',
  sourcesTitle: 'Sources ({0})',
  notesTitle: 'Notes',
  accept: 'Accept',
  discard: 'Discard',
  close: 'Close',
  fix: { settings: 'Open Settings', apiKey: 'Set LLM API Key' },
};

/** Text a hostile record or model could send: markup, a script, an event handler. */
const HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>';

const item = (title: string, extra: Partial<EvidenceItem> = {}): EvidenceItem => ({ title, authors: 'A. Author', year: 2017, score: 12.345, ...extra });

function results(items: readonly EvidenceItem[], list = 7): EvidenceMessage {
  return { type: 'results', list, claim: 'Attention is enough.', mode: 'lexical', notes: [], items };
}

/** Every tag the page made, for the assertion that outside text made none. */
const tags = (root: FakeNode): Set<string> => new Set([...root.all()].map((node) => node.tag));

const buttonLabelled = (root: FakeNode, label: string): FakeNode => {
  const button = [...root.all()].find((node) => node.tag === 'button' && node.textContent === label);
  assert.ok(button, `a button labelled ${label}`);
  return button;
};

describe("the panels' pages", () => {
  let pages: Map<string, string>;
  before(async () => {
    pages = await bundledPages();
  });
  const page = (name: string, strings: object) => {
    const script = pages.get(name);
    assert.ok(script, `${name}.js bundled`);
    return runPage(script, strings);
  };

  describe('evidence', () => {
    it('asks for what to show once loaded, and shows outside titles, authors and sentences as text, never as markup', () => {
      const evidence = page('evidence', EVIDENCE_STRINGS);
      assert.deepEqual(evidence.posted, [{ type: 'ready' }]);
      evidence.receive(
        results([
          item(HOSTILE, {
            authors: HOSTILE,
            venue: HOSTILE,
            sentence: [
              { text: HOSTILE, match: false },
              { text: 'attention', match: true },
            ],
          }),
        ]),
      );
      const [title] = evidence.root.withClass('title');
      assert.equal(title.textContent, HOSTILE);
      assert.equal(evidence.root.withClass('meta')[0].textContent, `${HOSTILE} · 2017 · ${HOSTILE}`);
      assert.equal(evidence.root.withClass('sentence')[0].textContent, `${HOSTILE}attention`);
      assert.deepEqual(
        [...tags(evidence.root)].filter((tag) => ['img', 'script'].includes(tag)),
        [],
      );
    });

    it('drops a message the protocol does not promise, and keeps showing what it showed', () => {
      const evidence = page('evidence', EVIDENCE_STRINGS);
      evidence.receive({ type: 'searching', claim: 'Attention is enough.' });
      const shown = evidence.root.textContent;
      for (const junk of [
        results([item('A paper', { link: 'command:workbench.action.terminal.new' })]),
        results([item('A paper', { openAccessUrl: 'javascript:alert(1)' })]),
        { ...results([item('A paper')]), mode: 'telepathic' },
        { ...results([item('A paper')]), items: undefined },
        { type: 'html', html: HOSTILE },
        { type: 'failed', claim: 'Attention is enough.' },
      ]) {
        evidence.receive(junk);
        assert.equal(evidence.root.textContent, shown, JSON.stringify(junk));
      }
    });

    it("sends a result's action with its index and list, adds the list's verdicts in place, and says what an action did", () => {
      const evidence = page('evidence', EVIDENCE_STRINGS);
      evidence.receive({ ...results([item('Cited', { citedHere: true }), item('New', { link: 'https://doi.org/10.1/x' })]), judging: true });
      buttonLabelled(evidence.root, 'Add to bibliography').fire('click');
      const [, second] = evidence.root.withClass('result');
      buttonLabelled(second, 'Open paper').fire('click');
      buttonLabelled(second, 'Cite here').fire('click');
      assert.equal(buttonLabelled(evidence.root, 'Already cited here').disabled, true);
      assert.deepEqual(evidence.posted.slice(1), [
        { type: 'addToBibliography', index: 0, list: 7 },
        { type: 'openPaper', index: 1, list: 7 },
        { type: 'citeHere', index: 1, list: 7 },
      ]);

      evidence.receive({ type: 'verdicts', list: 6, verdicts: [{ label: 'contradicted' }, null] });
      assert.equal(evidence.root.withClass('verdict').length, 0, "another list's verdicts");
      evidence.receive({ type: 'verdicts', list: 7, verdicts: [{ label: 'supported', entailment: 0.91 }, null] });
      assert.deepEqual(
        evidence.root.withClass('verdict').map((v) => v.textContent),
        ['Supports · entailment 0.91'],
      );
      assert.equal(evidence.root.textContent.includes('Judging…'), false);

      evidence.receive({ type: 'outcome', index: 1, ok: false, message: HOSTILE });
      assert.equal(second.withClass('outcome')[0].textContent, HOSTILE);
    });
  });

  describe('suggest', () => {
    it("streams the model's draft in as text and sends Cancel", () => {
      const suggest = page('suggest', SUGGEST_STRINGS);
      assert.deepEqual(suggest.posted, [{ type: 'ready' }]);
      const working: SuggestMessage = { type: 'working', selection: 'Caching helps.', stage: 'Drafting…', draft: 'Caching cuts ' };
      suggest.receive(working);
      suggest.receive({ type: 'draftMore', selection: 'Caching helps.', text: HOSTILE });
      assert.equal(suggest.root.withClass('draft')[0].textContent, `Caching cuts ${HOSTILE}`);
      assert.deepEqual(
        [...tags(suggest.root)].filter((tag) => ['img', 'script'].includes(tag)),
        [],
      );
      buttonLabelled(suggest.root, 'Cancel').fire('click');
      assert.deepEqual(suggest.posted.at(-1), { type: 'cancel' });
    });

    it('accepts with the unconfirmed sentences ticked, and offers the fix a failure names', () => {
      const suggest = page('suggest', SUGGEST_STRINGS);
      const sentence = (text: string, status: 'supported' | 'unconfirmed') => ({ text, status, sources: [1] });
      suggest.receive({
        type: 'suggestion',
        selection: 'Caching helps.',
        outcome: 'drafted',
        sentences: [sentence('One.', 'supported'), sentence('Two.', 'unconfirmed'), sentence('Three.', 'unconfirmed')],
        sources: [{ number: 1, title: HOSTILE, authors: 'A. Author', link: true }],
        removed: [],
        notes: [],
      } satisfies SuggestMessage);
      assert.equal(suggest.root.withClass('source')[0].withClass('title')[0].textContent, HOSTILE);
      const [, , third] = suggest.root.withClass('sentence');
      const box = [...third.all()].find((node) => node.tag === 'input');
      assert.ok(box);
      box.checked = true;
      box.fire('change');
      buttonLabelled(suggest.root, 'Accept').fire('click');
      assert.deepEqual(suggest.posted.at(-1), { type: 'accept', unconfirmed: [2] });

      suggest.receive({ type: 'failed', selection: 'Caching helps.', message: 'No key.', fix: 'apiKey' } satisfies SuggestMessage);
      buttonLabelled(suggest.root, 'Set LLM API Key').fire('click');
      assert.deepEqual(suggest.posted.at(-1), { type: 'setApiKey' });
      suggest.receive({ type: 'failed', selection: 'Caching helps.', message: 'No key.', fix: 'reboot' });
      assert.equal(suggest.root.textContent.includes('Set LLM API Key'), true, 'a fix off the protocol is dropped');
    });
  });
});

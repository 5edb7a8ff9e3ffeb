import * as assert from 'assert';
import * as vscode from 'vscode';
import { parseBibliography } from '../../../src/core/bibliography/parse';
import type { Evidence, EvidenceFinder, EvidenceQuery, EvidenceResults } from '../../../src/core/evidence';
import { ENCODER_NOT_DOWNLOADED_NOTE } from '../../../src/core/index/library';
import type { Outcome } from '../../../src/extension/evidence/evidenceActions';
import type { ResultsMessage } from '../../../src/webview/protocol/evidence';
import type { EvidenceApi } from '../../../src/extension/evidence/findEvidence';
import { attestDiagnostics, describeDiagnostics, fixtureUri, nonEmpty, screenshot, sleep, uniqueRange, waitFor } from './harness';

const LEXICAL_NOTE = 'Search is lexical: no sentence encoder is configured';

/** What a search of the real index could return for the fixture's claim; the finder itself is the lead's to wire. */
const EVIDENCE: Evidence[] = [
  {
    paper: {
      id: 'arxiv:1706.03762',
      title: 'Attention Is All You Need',
      authors: [
        { given: 'Ashish', family: 'Vaswani' },
        { given: 'Noam', family: 'Shazeer' },
        { given: 'Niki', family: 'Parmar' },
        { given: 'Jakob', family: 'Uszkoreit' },
      ],
      year: 2017,
      venue: 'Advances in Neural Information Processing Systems',
      arxivId: '1706.03762',
      openAccessUrl: 'https://arxiv.org/pdf/1706.03762',
      source: { id: 'arxiv', recordId: '1706.03762', url: 'https://arxiv.org/abs/1706.03762' },
    },
    score: 7.412,
    sentence: 'We propose a new simple network architecture, the Transformer, based solely on attention mechanisms, dispensing with recurrence and convolutions entirely.',
  },
  {
    paper: {
      id: 'doi:10.1162/neco.1997.9.8.1735',
      title: 'Long Short-Term Memory',
      authors: [
        { given: 'Sepp', family: 'Hochreiter' },
        { given: 'Jürgen', family: 'Schmidhuber' },
      ],
      year: 1997,
      venue: 'Neural Computation',
      doi: '10.1162/neco.1997.9.8.1735',
      source: { id: 'crossref', recordId: '10.1162/neco.1997.9.8.1735' },
    },
    score: 3.118,
    sentence: 'Learning to store information over extended time intervals by recurrent backpropagation takes a very long time.',
  },
  {
    // From a local collection: no source, no link.
    paper: {
      id: 'arxiv:1409.0473',
      title: 'Neural Machine Translation by Jointly Learning to Align and Translate',
      authors: [
        { given: 'Dzmitry', family: 'Bahdanau' },
        { given: 'Kyunghyun', family: 'Cho' },
        { given: 'Yoshua', family: 'Bengio' },
      ],
      year: 2015,
      venue: 'International Conference on Learning Representations',
    },
    score: 2.874,
    sentence: 'Neural machine translation is a recently proposed approach to machine translation.',
  },
  {
    // Records are untrusted text: the panel must show this as written, not run it.
    paper: {
      id: 'openalex:W0',
      title: 'Markup in a title <img src=x onerror="alert(1)"> & how to show it',
      authors: [{ literal: '<b>The Escaping Consortium</b>' }],
      year: 2021,
      openAccessUrl: 'javascript:alert(1)',
      source: { id: 'openalex', recordId: 'W0', url: 'https://openalex.org/W0' },
    },
    score: 1.05,
    sentence: 'An abstract with <script>alert("attention")</script> in it.',
  },
];

class FixtureFinder implements EvidenceFinder {
  readonly queries: EvidenceQuery[] = [];
  notes: readonly string[] = [LEXICAL_NOTE];

  async find(query: EvidenceQuery): Promise<EvidenceResults> {
    this.queries.push(query);
    return { mode: 'lexical', results: EVIDENCE.slice(0, query.limit), notes: this.notes };
  }
}

suite('find evidence', () => {
  const texUri = (): vscode.Uri => fixtureUri('evidence', 'paper.tex');
  const bibUri = (): vscode.Uri => fixtureUri('evidence', 'refs.bib');
  const claimSource = 'Attention \\emph{alone}, without recurrence, is enough for strong machine translation.';
  const finder = new FixtureFinder();
  let original = '';
  let originalBib = '';

  suiteSetup(async () => {
    const extension = vscode.extensions.getExtension<EvidenceApi>('attest.attest');
    assert.ok(extension, 'the extension is installed');
    (await extension.activate()).setEvidenceFinder(finder);
    const tex = await vscode.workspace.openTextDocument(texUri());
    original = tex.getText();
    originalBib = (await vscode.workspace.openTextDocument(bibUri())).getText();
    await vscode.window.showTextDocument(tex);
    // The unused entry is marked once the manuscript and its bibliography have been read.
    await waitFor(
      'the manuscript checked',
      () => nonEmpty(attestDiagnostics(bibUri(), 'unused-entry')),
      () => describeDiagnostics(bibUri()),
      20_000,
    );
  });

  suiteTeardown(async () => {
    vscode.extensions.getExtension<EvidenceApi>('attest.attest')?.exports.setEvidenceFinder(undefined);
    for (const uri of [texUri(), bibUri(), fixtureUri('evidence', 'draft.tex')]) {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    await vscode.window.tabGroups.close(allTabs().filter(isEvidencePanel));
  });

  test('lists the papers found for the selection, its words highlighted, in a panel beside it', async () => {
    const view = await findEvidenceFor(texUri(), claimSource);
    assert.strictEqual(finder.queries.at(-1)?.text, 'Attention alone, without recurrence, is enough for strong machine translation.', 'markup removed');
    assert.strictEqual(view.mode, 'lexical');
    assert.deepStrictEqual(view.notes, [LEXICAL_NOTE]);
    assert.strictEqual(view.encoderDownload, undefined, 'no encoder is set: nothing to download');
    assert.deepStrictEqual(
      view.items.map((i) => i.title),
      EVIDENCE.map((e) => e.paper.title),
    );
    const [vaswani, lstm, bahdanau, untrusted] = view.items;
    assert.deepStrictEqual(
      vaswani.sentence?.filter((f) => f.match).map((f) => f.text),
      ['attention', 'recurrence'],
    );
    assert.strictEqual(vaswani.sentence?.map((f) => f.text).join(''), EVIDENCE[0].sentence);
    assert.strictEqual(vaswani.openAccessUrl, 'https://arxiv.org/pdf/1706.03762');
    assert.strictEqual(vaswani.existing, undefined);
    assert.deepStrictEqual(lstm.existing, { key: 'hochreiter1997long', file: 'refs.bib' }, 'found by DOI in the bibliography');
    assert.strictEqual(lstm.link, 'https://doi.org/10.1162/neco.1997.9.8.1735');
    assert.strictEqual(bahdanau.link, undefined);
    assert.strictEqual(untrusted.openAccessUrl, undefined, 'only web links are offered');
    assert.strictEqual(untrusted.link, 'https://openalex.org/W0');
    await waitFor(
      'the panel',
      () => (allTabs().some(isEvidencePanel) ? true : undefined),
      () => allTabs().map(describeTab).join(', '),
    );
    await screenshotInDarkTheme('evidence-panel');
  });

  test('"Cite here" on a new paper cites it after the sentence and adds it to the bibliography; one undo takes both back', async () => {
    const tex = await vscode.workspace.openTextDocument(texUri());
    const bib = await vscode.workspace.openTextDocument(bibUri());
    const cited = original.replace('machine translation.', 'machine translation~\\citep{vaswani2017attention}.');
    const outcome = await vscode.commands.executeCommand<Outcome>('attest.evidence.citeHere', 0);
    assert.deepStrictEqual(outcome, { ok: true, message: 'Cited as vaswani2017attention, and added to refs.bib.' });
    assert.strictEqual(tex.getText(), cited);
    assert.ok(bib.getText().startsWith(originalBib), 'the existing entries are kept as they were');
    const parsed = parseBibliography(bib.getText(), bibUri().fsPath);
    assert.deepStrictEqual(parsed.problems, []);
    const added = parsed.entries.filter((e) => e.key === 'vaswani2017attention');
    assert.strictEqual(added.length, 1);
    assert.strictEqual(added[0].title, 'Attention Is All You Need');
    assert.strictEqual(added[0].arxivId, '1706.03762');

    await vscode.window.showTextDocument(tex);
    await vscode.commands.executeCommand('undo');
    assert.strictEqual(tex.getText(), original);
    assert.strictEqual(bib.getText(), originalBib, 'the entry went with the citation');

    // The selection's end was followed through both edits: citing again cites in the same place.
    await vscode.commands.executeCommand<Outcome>('attest.evidence.citeHere', 0);
    assert.strictEqual(tex.getText(), cited);
  });

  test('"Add to bibliography" adds a paper once, and says where it is the second time', async () => {
    const bib = await vscode.workspace.openTextDocument(bibUri());
    const before = bib.getText();
    const again = await vscode.commands.executeCommand<Outcome>('attest.evidence.addToBibliography', 0);
    assert.deepStrictEqual(again, { ok: true, message: 'Already in refs.bib as vaswani2017attention.' });
    assert.strictEqual(bib.getText(), before);

    const added = await vscode.commands.executeCommand<Outcome>('attest.evidence.addToBibliography', 2);
    assert.deepStrictEqual(added, { ok: true, message: 'Added to refs.bib as bahdanau2015neural.' });
    const twice = await vscode.commands.executeCommand<Outcome>('attest.evidence.addToBibliography', 2);
    assert.deepStrictEqual(twice, { ok: true, message: 'Already in refs.bib as bahdanau2015neural.' });
    const parsed = parseBibliography(bib.getText(), bibUri().fsPath);
    assert.deepStrictEqual(parsed.problems, []);
    assert.deepStrictEqual(
      parsed.entries.map((e) => e.key),
      ['hochreiter1997long', 'graves2013speech', 'vaswani2017attention', 'bahdanau2015neural'],
    );
  });

  test('"Cite here" on a paper the bibliography has joins the citation there and adds no entry', async () => {
    const tex = await vscode.workspace.openTextDocument(texUri());
    const bib = await vscode.workspace.openTextDocument(bibUri());
    const [texBefore, bibBefore] = [tex.getText(), bib.getText()];
    const outcome = await vscode.commands.executeCommand<Outcome>('attest.evidence.citeHere', 1);
    assert.deepStrictEqual(outcome, { ok: true, message: 'Cited as hochreiter1997long.' });
    assert.ok(tex.getText().includes('machine translation~\\citep{vaswani2017attention,hochreiter1997long}.'), tex.getText());
    assert.strictEqual(bib.getText(), bibBefore, 'nothing added to the bibliography');
    const repeated = await vscode.commands.executeCommand<Outcome>('attest.evidence.citeHere', 1);
    assert.deepStrictEqual(repeated, { ok: true, message: 'Already cited here as hochreiter1997long.' });

    await vscode.window.showTextDocument(tex);
    await vscode.commands.executeCommand('undo');
    assert.strictEqual(tex.getText(), texBefore);
  });

  test('a manuscript that names no bibliography gets no entry and is told why', async () => {
    const draft = fixtureUri('evidence', 'draft.tex');
    await findEvidenceFor(draft, 'Self-attention relates every position of a sequence to every other in a single step.');
    const before = (await vscode.workspace.openTextDocument(draft)).getText();
    for (const action of ['attest.evidence.addToBibliography', 'attest.evidence.citeHere']) {
      const outcome = await vscode.commands.executeCommand<Outcome>(action, 0);
      assert.strictEqual(outcome?.ok, false);
      assert.match(outcome.message, /names no bibliography file/);
    }
    assert.strictEqual((await vscode.workspace.openTextDocument(draft)).getText(), before);
  });

  test('a sentence encoder set but not downloaded yet is offered for download beside the note that says so', async () => {
    finder.notes = [ENCODER_NOT_DOWNLOADED_NOTE];
    try {
      const view = await findEvidenceFor(fixtureUri('evidence', 'draft.tex'), 'Self-attention relates every position of a sequence to every other in a single step.');
      assert.deepStrictEqual([view.notes, view.encoderDownload], [[ENCODER_NOT_DOWNLOADED_NOTE], true]);
      await sleep(3000);
      await screenshot('evidence-download-encoder');
    } finally {
      finder.notes = [LEXICAL_NOTE];
    }
  });

  test('messages that are not in the protocol are ignored', async () => {
    for (const index of [-1, 1.5, '0', 99]) {
      assert.strictEqual(await vscode.commands.executeCommand('attest.evidence.citeHere', index), undefined, String(index));
    }
  });
});

/**
 * A picture of the panel in VS Code's default dark theme. The page draws in a frame of its own once a
 * service worker has started (about 2 s in a fresh browser profile), which nothing in the extension
 * host can observe: hence the pause. The picture is for people to look at, not an assertion.
 */
async function screenshotInDarkTheme(name: string): Promise<void> {
  const workbench = vscode.workspace.getConfiguration('workbench');
  await workbench.update('colorTheme', 'Default Dark Modern', vscode.ConfigurationTarget.Workspace);
  try {
    await sleep(5000);
    await vscode.commands.executeCommand('notifications.clearAll');
    await screenshot(name);
  } finally {
    await workbench.update('colorTheme', undefined, vscode.ConfigurationTarget.Workspace);
  }
}

/** Selects `sentence` in the file and runs the command, as the context menu does. */
async function findEvidenceFor(uri: vscode.Uri, sentence: string): Promise<ResultsMessage> {
  const document = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(document, vscode.ViewColumn.One);
  const range = uniqueRange(document, sentence);
  editor.selection = new vscode.Selection(range.start, range.end);
  const view = await vscode.commands.executeCommand<ResultsMessage | undefined>('attest.findEvidence');
  assert.ok(view, 'the search returned a list');
  return view;
}

function allTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs);
}

function describeTab(tab: vscode.Tab): string {
  return tab.input instanceof vscode.TabInputWebview ? `webview ${tab.input.viewType}` : tab.label;
}

function isEvidencePanel(tab: vscode.Tab): boolean {
  return tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('attest.evidence');
}

import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { nliGraph } from '../../unit/support/onnx/graphs';
import { nliConfig, writeModelFolder } from '../../unit/support/onnx/folders';
import type { Evidence } from '../../../src/core/evidence';
import type { Outcome } from '../../../src/extension/evidence/evidenceActions';
import type { ResultsMessage, VerdictView } from '../../../src/webview/protocol/evidence';
import type { AttestApi } from '../../../src/extension/extension';
import type { EvidenceApi } from '../../../src/extension/evidence/findEvidence';
import { attestDiagnostics, describeDiagnostics, fixturePath, fixtureUri, hoverText, screenshot, sleep, uniqueRange, useUnsupportingNliModel, waitFor } from './harness';

/**
 * The support check end to end in the editor, with a small ONNX model the test builds (real weights
 * cannot be downloaded here): thresholds no probability reaches make every judged citation unsupported,
 * so the test can follow one verdict from the model's worker to the Problems panel and back out.
 */
suite('support check', () => {
  const texUri = (): vscode.Uri => fixtureUri('support', 'paper.tex');
  const attest = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('attest');
  let modelDir = '';
  let restore: () => Promise<void> = async () => undefined;

  suiteSetup(async () => {
    ({ modelDir, restore } = await useUnsupportingNliModel());
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(texUri()));
  });

  suiteTeardown(async () => restore());

  test("a citation its abstract does not support is marked, with the model's scores in the hover", async () => {
    const [unsupported] = await waitFor(
      'an unsupported verdict on aspirin2019',
      () => nonEmpty(attestDiagnostics(texUri(), 'unsupported')),
      () => describeDiagnostics(texUri()),
      30_000,
    );
    const tex = await vscode.workspace.openTextDocument(texUri());
    assert.ok(unsupported.range.isEqual(uniqueRange(tex, 'aspirin2019')));
    assert.strictEqual(unsupported.severity, vscode.DiagnosticSeverity.Information);
    assert.match(unsupported.message, /does not support this sentence/);
    assert.deepStrictEqual(attestDiagnostics(texUri(), 'unverifiable'), [], 'a missing abstract is no problem of the manuscript');

    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', texUri(), unsupported.range.start.translate(0, 2));
    const text = hoverText(hovers);
    assert.match(text, /Abstract only: unsupported/);
    assert.match(text, /No full text: Europe PMC is asked by DOI/);
    assert.match(text, /entailment \d\.\d\d/);
    assert.ok(text.includes(modelDir), text);

    const noAbstractHover = hoverText(
      await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', texUri(), uniqueRange(tex, 'nocache2020').start.translate(0, 2)),
    );
    assert.match(noAbstractHover, /Abstract only: unverifiable \(no abstract\)/);
    assert.doesNotMatch(noAbstractHover, /relevance/);
  });

  test('a changed threshold judges the citations again: the verdict follows the setting, not a judgement kept from before', async () => {
    await waitFor(
      'an unsupported verdict on aspirin2019',
      () => nonEmpty(attestDiagnostics(texUri(), 'unsupported')),
      () => describeDiagnostics(texUri()),
      30_000,
    );
    const tex = await vscode.workspace.openTextDocument(texUri());
    let hover = '';
    const hoverOnAspirin = async (): Promise<string> =>
      (hover = hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', texUri(), uniqueRange(tex, 'aspirin2019').start.translate(0, 2))));
    // The model entails aspirin2019's sentence far above 0.5: under that threshold it is supported, shown
    // as "may support" since the model has no calibration to say its verdicts are right.
    // (The diagnostic alone would not tell: it is gone for a moment while every check runs.)
    await attest().update('support.entailmentThreshold', 0.5, vscode.ConfigurationTarget.Workspace);
    try {
      await waitFor(
        'a supported verdict on aspirin2019',
        async () => (/Abstract only: may support/.test(await hoverOnAspirin()) ? true : undefined),
        () => hover,
        30_000,
      );
      assert.deepStrictEqual(attestDiagnostics(texUri(), 'unsupported'), []);
    } finally {
      await attest().update('support.entailmentThreshold', 1, vscode.ConfigurationTarget.Workspace);
    }
    await waitFor(
      'the unsupported verdict back',
      () => nonEmpty(attestDiagnostics(texUri(), 'unsupported')),
      () => describeDiagnostics(texUri()),
      30_000,
    );
  });

  test('a citation of a work without an abstract is marked only when the setting asks for it', async () => {
    await attest().update('support.reportMissingAbstracts', true, vscode.ConfigurationTarget.Workspace);
    try {
      const tex = await vscode.workspace.openTextDocument(texUri());
      const [noAbstract] = await waitFor(
        'an unverifiable hint on nocache2020',
        () => nonEmpty(attestDiagnostics(texUri(), 'unverifiable')),
        () => describeDiagnostics(texUri()),
        30_000,
      );
      assert.ok(noAbstract.range.isEqual(uniqueRange(tex, 'nocache2020')), describeDiagnostics(texUri()));
      assert.strictEqual(noAbstract.severity, vscode.DiagnosticSeverity.Hint);
    } finally {
      await attest().update('support.reportMissingAbstracts', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('"Show the evidence" opens the cited abstract beside the manuscript; "Ignore this verdict" removes it for good', async () => {
    // The test before changed a setting: the check it started may still be replacing the diagnostics.
    let titles = '';
    const { show, ignore } = await waitFor(
      'the actions of the unsupported verdict',
      async () => {
        const [unsupported] = attestDiagnostics(texUri(), 'unsupported');
        if (!unsupported) return undefined;
        const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', texUri(), unsupported.range);
        titles = actions.map((a) => a.title).join(', ');
        const found = { show: actions.find((a) => a.title === 'Show the evidence'), ignore: actions.find((a) => a.title === 'Ignore this verdict') };
        return found.show?.command && found.ignore?.command ? found : undefined;
      },
      () => `${titles}; ${describeDiagnostics(texUri())}`,
      15_000,
    );
    assert.ok(show?.command && ignore?.command);

    await vscode.commands.executeCommand(show.command.command, ...(show.command.arguments ?? []));
    const shown = vscode.window.activeTextEditor?.document;
    assert.strictEqual(shown?.uri.scheme, 'attest-abstract');
    assert.match(shown?.getText() ?? '', /Daily aspirin reduced the risk of stroke by 20 percent\./);

    await vscode.commands.executeCommand(ignore.command.command, ...(ignore.command.arguments ?? []));
    await waitFor(
      'the verdict to go',
      () => (attestDiagnostics(texUri(), 'unsupported').length === 0 ? true : undefined),
      () => describeDiagnostics(texUri()),
      15_000,
    );
    const stored = JSON.parse(await fs.promises.readFile(fixturePath('support', '.attest', 'ignore.json'), 'utf8')) as { ignored: { key: string }[] };
    assert.deepStrictEqual(
      stored.ignored.map((i) => i.key),
      ['aspirin2019'],
    );
  });
});

suite('support check beside Find Evidence', () => {
  test('each result found for a claim shows the NLI verdict of its abstract', async () => {
    const attest = vscode.workspace.getConfiguration('attest');
    const modelDir = await writeModelFolder(await fs.promises.mkdtemp(path.join(os.tmpdir(), 'attest-nli-')), { model: nliGraph(), config: nliConfig() });
    await attest.update('nli.model', modelDir, vscode.ConfigurationTarget.Global);
    await attest.update('support.entailmentThreshold', 1, vscode.ConfigurationTarget.Workspace);
    await attest.update('support.contradictionThreshold', 1, vscode.ConfigurationTarget.Workspace);
    try {
      const extension = vscode.extensions.getExtension<EvidenceApi>('attest.attest');
      assert.ok(extension);
      const paper = (id: string, abstract?: string): Evidence => ({ paper: { id, title: id, authors: [], abstract }, score: 1 });
      (await extension.activate()).setEvidenceFinder({
        find: async () => ({
          mode: 'lexical',
          notes: [],
          results: [paper('with', 'We followed 2,000 adults over 70 for five years. Daily aspirin reduced the risk of stroke by a fifth.'), paper('without')],
        }),
      });
      const document = await vscode.workspace.openTextDocument(fixtureUri('support', 'paper.tex'));
      const editor = await vscode.window.showTextDocument(document);
      const range = uniqueRange(document, 'Daily aspirin lowers the risk of stroke in older adults');
      editor.selection = new vscode.Selection(range.start, range.end);
      const view = await vscode.commands.executeCommand<ResultsMessage | undefined>('attest.findEvidence');
      assert.strictEqual(view?.items[0].verdict?.label, 'unsupported');
      assert.strictEqual(typeof view?.items[0].verdict?.entailment, 'number');
      assert.strictEqual(view?.items[1].verdict, undefined, 'no abstract, no verdict');
    } finally {
      vscode.extensions.getExtension<EvidenceApi>('attest.attest')?.exports.setEvidenceFinder(undefined);
      await attest.update('nli.model', undefined, vscode.ConfigurationTarget.Global);
      for (const key of ['support.entailmentThreshold', 'support.contradictionThreshold']) await attest.update(key, undefined, vscode.ConfigurationTarget.Workspace);
      await fs.promises.rm(modelDir, { recursive: true, force: true });
    }
  });
});

suite('a model set but not downloaded', () => {
  test('leaves the built-in model judging until it is downloaded: Find Evidence still shows verdicts', async () => {
    const attest = vscode.workspace.getConfiguration('attest');
    // A Hugging Face id this machine has not downloaded (and cannot: the tests are offline).
    await attest.update('nli.model', 'attest-test/not-downloaded-nli', vscode.ConfigurationTarget.Global);
    try {
      const extension = vscode.extensions.getExtension<EvidenceApi>('attest.attest');
      assert.ok(extension);
      const abstract = 'We followed 2,000 adults over 70 for five years. Daily aspirin reduced the risk of stroke by a fifth.';
      (await extension.activate()).setEvidenceFinder({
        find: async () => ({ mode: 'lexical', notes: [], results: [{ paper: { id: 'with', title: 'Aspirin and stroke', authors: [], abstract }, score: 1 }] }),
      });
      const document = await vscode.workspace.openTextDocument(fixtureUri('support', 'paper.tex'));
      const editor = await vscode.window.showTextDocument(document);
      const range = uniqueRange(document, 'Daily aspirin lowers the risk of stroke in older adults');
      editor.selection = new vscode.Selection(range.start, range.end);
      const view = await vscode.commands.executeCommand<ResultsMessage | undefined>('attest.findEvidence');
      assert.strictEqual(typeof view?.items[0].verdict?.entailment, 'number', JSON.stringify(view?.items[0]));
    } finally {
      vscode.extensions.getExtension<EvidenceApi>('attest.attest')?.exports.setEvidenceFinder(undefined);
      await attest.update('nli.model', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});

suite('Find Evidence for a sentence that cites a paper found', () => {
  test('offers no Cite here for the paper the sentence cites already, and does for the others', async () => {
    const extension = vscode.extensions.getExtension<EvidenceApi>('attest.attest');
    assert.ok(extension);
    const paper = (id: string, title: string): Evidence => ({
      paper: { id, title, authors: [{ family: 'Rivera', given: 'Ana' }], year: 2019, abstract: 'Daily aspirin reduced the risk of stroke.' },
      score: 1,
    });
    (await extension.activate()).setEvidenceFinder({
      find: async () => ({ mode: 'lexical', notes: [], results: [paper('cited', 'Aspirin and stroke in older adults'), paper('new', 'Aspirin and bleeding in older adults')] }),
    });
    try {
      const document = await vscode.workspace.openTextDocument(fixtureUri('support', 'paper.tex'));
      const editor = await vscode.window.showTextDocument(document);
      // The sentence that ends in \citep{aspirin2019}.
      const range = uniqueRange(document, 'Daily aspirin lowers the risk of stroke in older adults');
      editor.selection = new vscode.Selection(range.start, range.end);
      const view = await vscode.commands.executeCommand<ResultsMessage | undefined>('attest.findEvidence');
      assert.strictEqual(view?.items[0].existing?.key, 'aspirin2019', JSON.stringify(view?.items[0]));
      assert.strictEqual(view?.items[0].citedHere, true);
      assert.strictEqual(view?.items[1].citedHere, undefined);
      await screenshot('evidence-cited-here');
    } finally {
      extension.exports.setEvidenceFinder(undefined);
    }
  });
});

suite('verdicts after the list', () => {
  test('the papers found are listed, and can be acted on, before the model has judged them; the verdicts then join the list as it is', async () => {
    const extension = vscode.extensions.getExtension<AttestApi>('attest.attest');
    assert.ok(extension);
    const api = await extension.activate();
    let judged: (verdicts: VerdictView[]) => void = () => undefined;
    let asked: (() => void) | undefined;
    const askedForVerdicts = new Promise<void>((resolve) => (asked = resolve));
    api.setEvidenceFinder({
      find: async () => ({ mode: 'lexical', notes: [], results: [{ paper: { id: 'slow', title: 'A paper judged slowly', authors: [], abstract: 'Aspirin.' }, score: 1 }] }),
    });
    api.setEvidenceJudge(
      (_claim, _papers, signal) =>
        new Promise((resolve, reject) => {
          judged = resolve;
          signal.addEventListener('abort', () => reject(signal.reason));
          asked?.();
        }),
    );
    const bib = fixtureUri('support', 'refs.bib');
    try {
      const searching = findEvidenceForTheAspirinClaim();
      await askedForVerdicts;
      // Before, the list waited for its verdicts: a button pressed meanwhile found no list and did nothing.
      const outcome = await vscode.commands.executeCommand<Outcome | undefined>('attest.evidence.addToBibliography', 0);
      assert.strictEqual(outcome?.ok, true, outcome?.message);
      judged([{ label: 'supported', entailment: 0.9 }]);
      const view = await searching;
      assert.deepStrictEqual(view?.items[0].verdict, { label: 'supported', entailment: 0.9 });
      assert.strictEqual(view?.items[0].existing?.file, 'refs.bib', 'the list the verdicts joined is the one drawn after the paper was added');
      assert.strictEqual(view?.judging, undefined, 'the list no longer says that the model is judging');
    } finally {
      api.setEvidenceFinder(undefined);
      api.setEvidenceJudge(undefined);
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(bib));
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  });
});

suite('a first list while the open sources are searched', () => {
  test("the library's papers are listed, acted on and judged before the sources answer; the final list keeps their verdicts and judges only the new papers", async () => {
    const extension = vscode.extensions.getExtension<AttestApi>('attest.attest');
    assert.ok(extension);
    const api = await extension.activate();
    const paper = (id: string): Evidence => ({ paper: { id, title: `The paper ${id}`, authors: [], abstract: `Aspirin, as ${id} found.` }, score: 1 });
    let sourcesAnswer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (sourcesAnswer = resolve));
    let firstListed: () => void = () => undefined;
    const listed = new Promise<void>((resolve) => (firstListed = resolve));
    api.setEvidenceFinder({
      find: async (query) => {
        query.onLibraryResults?.({ mode: 'lexical', notes: [], results: [paper('mine')] });
        firstListed();
        await answered;
        return { mode: 'lexical', notes: [], results: [paper('found'), paper('mine')] };
      },
    });
    const judged: string[] = [];
    let firstJudged: () => void = () => undefined;
    const judgedFirst = new Promise<void>((resolve) => (firstJudged = resolve));
    api.setEvidenceJudge(async (_claim, papers) => {
      judged.push(...papers.map((p) => p.id));
      firstJudged();
      return papers.map((): VerdictView => ({ label: 'supported', entailment: 0.8 }));
    });
    const bib = fixtureUri('support', 'refs.bib');
    try {
      const searching = findEvidenceForTheAspirinClaim();
      await listed;
      await judgedFirst;
      const outcome = await waitFor(
        'the first list',
        async () => {
          const added = await vscode.commands.executeCommand<Outcome | undefined>('attest.evidence.addToBibliography', 0);
          return added?.ok ? added : undefined;
        },
        () => 'no list to act on yet',
      );
      assert.match(outcome.message, /Added to refs\.bib/);
      // For people to look at: the page draws in a frame of its own some time after it is sent.
      await sleep(3000);
      await screenshot('evidence-first-list');
      sourcesAnswer();
      const view = await searching;
      assert.deepStrictEqual(
        view?.items.map((item) => item.title),
        ['The paper found', 'The paper mine'],
      );
      assert.strictEqual(view?.updating, undefined, 'the final list waits for nothing');
      assert.strictEqual(view?.items[1].existing?.file, 'refs.bib', 'the paper added from the first list');
      assert.deepStrictEqual(
        view?.items.map((item) => item.verdict?.label),
        ['supported', 'supported'],
      );
      assert.deepStrictEqual(judged, ['mine', 'found'], 'each paper judged once');
      assert.strictEqual(await vscode.commands.executeCommand('attest.evidence.openPaper', 0, (view?.list ?? 0) + 1), undefined, 'an action for a list not shown does nothing');
      // The first list's first paper is the one added from it; the final list's first is another.
      const late = await vscode.commands.executeCommand<Outcome | undefined>('attest.evidence.addToBibliography', 0, (view?.list ?? 0) - 1);
      assert.match(late?.message ?? '', /^Already in refs\.bib/, 'a press in the first list, arriving after the final list, still means its own paper');
    } finally {
      sourcesAnswer();
      api.setEvidenceFinder(undefined);
      api.setEvidenceJudge(undefined);
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(bib));
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  });
});

/** Find Evidence for the support fixture's aspirin claim, selected as a user would; resolves to the list it ends with. */
async function findEvidenceForTheAspirinClaim(): Promise<ResultsMessage | undefined> {
  const document = await vscode.workspace.openTextDocument(fixtureUri('support', 'paper.tex'));
  const editor = await vscode.window.showTextDocument(document);
  const range = uniqueRange(document, 'Daily aspirin lowers the risk of stroke in older adults');
  editor.selection = new vscode.Selection(range.start, range.end);
  return vscode.commands.executeCommand<ResultsMessage | undefined>('attest.findEvidence');
}

suite('a first list whose sources fail', () => {
  test('the library’s list stays, saying that the open sources could not be searched', async () => {
    const extension = vscode.extensions.getExtension<AttestApi>('attest.attest');
    assert.ok(extension);
    const api = await extension.activate();
    api.setEvidenceFinder({
      find: async (query) => {
        query.onLibraryResults?.({ mode: 'lexical', notes: [], results: [{ paper: { id: 'mine', title: 'The paper mine', authors: [] }, score: 1 }] });
        await new Promise((resolve) => setTimeout(resolve, 200));
        throw new Error('the network went away');
      },
    });
    try {
      const view = await findEvidenceForTheAspirinClaim();
      assert.deepStrictEqual(
        view?.items.map((item) => item.title),
        ['The paper mine'],
      );
      assert.strictEqual(view?.updating, undefined);
      assert.deepStrictEqual(view?.notes, ['The search of the open sources failed (the network went away): the papers are from your library alone.']);
    } finally {
      api.setEvidenceFinder(undefined);
    }
  });
});

function nonEmpty<T>(items: T[]): T[] | undefined {
  return items.length > 0 ? items : undefined;
}

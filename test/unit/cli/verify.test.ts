import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';
import { analyze } from '../../../src/core/index/analyzer';
import { OnnxNliModel } from '../../../src/core/models/nli';
import { abstractSentences } from '../../../src/core/verify/claims';
import { TermStatistics, tfidfRelevance } from '../../../src/core/verify/relevance';
import { judgeSupport } from '../../../src/core/verify/support';
import { nliGraph } from '../support/onnx/graphs';
import { nliConfig, writeModelFolder } from '../support/onnx/folders';

interface Line {
  id: string | number;
  label: string;
  entailment: number | null;
  contradiction: number | null;
  relevance: number;
  sentence: string | null;
  model: string | null;
}

const PAIRS = [
  {
    id: 1,
    claim: 'Daily aspirin lowers the risk of stroke.',
    abstract: 'We followed 2,000 patients for five years. Daily aspirin reduced stroke risk by 20%. Bleeding rose slightly.',
  },
  { id: 'glacier', claim: 'Daily aspirin lowers the risk of stroke.', abstract: ['Glaciers retreat in warm summers.', 'Ice cores record the retreat.'] },
  { id: 3, claim: 'A claim without an abstract.' },
];

describe('attest verify', () => {
  let dir: string;
  let pairs: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-verify-'));
    pairs = path.join(dir, 'pairs.jsonl');
    await fs.writeFile(pairs, PAIRS.map((p) => JSON.stringify(p)).join('\n'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function run(...args: string[]): Promise<{ code: number; lines: Line[]; err: string }> {
    let out = '';
    let err = '';
    const code = await main(['verify', ...args], { out: (t) => (out += t), err: (t) => (err += t) });
    return {
      code,
      err,
      lines: out
        .split('\n')
        .filter((l) => l)
        .map((l) => JSON.parse(l) as Line),
    };
  }

  it('without a model, catches the unrelated abstract and says how to add a model', async () => {
    const { code, lines, err } = await run('--pairs', pairs);
    assert.equal(code, 0);
    assert.deepEqual(
      lines.map((l) => [l.id, l.label]),
      [
        [1, 'unverifiable'],
        ['glacier', 'unsupported'],
        [3, 'unverifiable'],
      ],
    );
    assert.equal(lines[0].sentence, 'Daily aspirin reduced stroke risk by 20%.');
    assert.ok(lines[0].relevance > lines[1].relevance);
    assert.match(err, /--nli-model DIR or ATTEST_NLI_MODEL/);
    assert.ok(lines.every((l) => l.model === null));
  });

  it('with a model, reports its scores for every pair, as the model gives them', async () => {
    const model = await writeModelFolder(path.join(dir, 'model'), { model: nliGraph(), config: nliConfig() });
    const { code, lines } = await run('--pairs', pairs, '--nli-model', model);
    assert.equal(code, 0);
    const direct = await OnnxNliModel.load(model);
    try {
      const relevance = tfidfRelevance(
        analyze,
        TermStatistics.of(
          PAIRS.map((p) => [p.abstract ?? ''].flat().join(' ')),
          analyze,
        ),
      );
      const expected = await judgeSupport(PAIRS[0].claim, abstractSentences(PAIRS[0].abstract as string), { relevance, nli: { model: direct, id: 'model' } });
      assert.equal(lines[0].label, expected.label);
      assert.equal(lines[0].entailment, expected.entailment);
      assert.equal(lines[0].contradiction, expected.contradiction);
      assert.equal(lines[0].sentence, expected.sentence);
    } finally {
      await direct.dispose();
    }
    assert.equal(lines[2].label, 'unverifiable');
    assert.ok(lines.slice(0, 2).every((l) => typeof l.entailment === 'number' && typeof l.contradiction === 'number' && l.model === 'model'));
  });

  it('judges a premise of one sentence as it is handed, whether a string or a list, under the names data gives it', async () => {
    // Health-claim sets give one to three sentences of evidence; the filter for what is no abstract belongs to the manuscript check.
    const evidence = 'Daily aspirin reduced stroke risk by 20%.';
    await fs.writeFile(
      pairs,
      [
        { id: 'string', claim: 'Daily aspirin lowers the risk of stroke.', abstract: evidence },
        { id: 'list', claim: 'Daily aspirin lowers the risk of stroke.', abstract: [evidence] },
        // NLI data names the text a premise, fact-checking data (COVID-Fact, HealthVer) evidence; COVID-Fact's lines have no id.
        { id: 'premise', claim: 'Daily aspirin lowers the risk of stroke.', premise: evidence },
        { id: 'evidence', claim: 'Daily aspirin lowers the risk of stroke.', evidence: [evidence] },
        { claim: 'Daily aspirin lowers the risk of stroke.', evidence },
        // A field given as null is not given.
        { id: null, claim: 'Daily aspirin lowers the risk of stroke.', abstract: null, evidence },
      ]
        .map((p) => JSON.stringify(p))
        .join('\n'),
    );
    const model = await writeModelFolder(path.join(dir, 'model'), { model: nliGraph(), config: nliConfig() });
    const { code, lines } = await run('--pairs', pairs, '--nli-model', model);
    assert.equal(code, 0);
    assert.deepEqual(
      lines.map((l) => [l.id, typeof l.entailment, typeof l.contradiction, l.sentence]),
      [
        ['string', 'number', 'number', evidence],
        ['list', 'number', 'number', evidence],
        ['premise', 'number', 'number', evidence],
        ['evidence', 'number', 'number', evidence],
        [5, 'number', 'number', evidence],
        [6, 'number', 'number', evidence],
      ],
    );
  });

  it('exits 2 naming the line of bad input, and on a model folder that is not one', async () => {
    await fs.writeFile(pairs, '{"id": 1, "claim": "ok", "abstract": "fine."}\n{"id": 2, "abstract": 7}\n');
    const bad = await run('--pairs', pairs);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /line 2 has no "claim"/);
    assert.deepEqual(bad.lines, []);
    await fs.writeFile(pairs, '{"id": 1, "claim": "ok", "abstract": "fine.", "premise": "other."}\n');
    const both = await run('--pairs', pairs);
    assert.equal(both.code, 2);
    assert.match(both.err, /line 1 has "abstract" and "premise": give the text to judge against once/);
    await fs.writeFile(pairs, '{"id": 1, "claim": "ok", "premise": "fine.", "evidence": ["other."]}\n');
    assert.match((await run('--pairs', pairs)).err, /line 1 has "premise" and "evidence"/);
    await fs.writeFile(pairs, '{"id": [1], "claim": "ok", "evidence": "fine."}\n');
    assert.match((await run('--pairs', pairs)).err, /line 1: "id" must be a string or a number/);
    await fs.writeFile(pairs, '{"id": 1, "claim": "ok", "premise": 7}\n');
    assert.match((await run('--pairs', pairs)).err, /line 1: "premise" must be a string or a list of strings/);
    const noModel = await run('--pairs', pairs, '--nli-model', path.join(dir, 'nothing'));
    assert.equal(noModel.code, 2);
    await fs.writeFile(pairs, '{"id": 1, "claim": "ok", "abstract": "fine."}\n');
    const broken = await writeModelFolder(path.join(dir, 'broken'), { model: new TextEncoder().encode('not an ONNX graph'), config: nliConfig() });
    const unreadable = await run('--pairs', pairs, '--nli-model', broken);
    assert.equal(unreadable.code, 2);
    assert.match(unreadable.err, /ONNX Runtime could not load/);
  });
});

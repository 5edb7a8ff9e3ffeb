import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { LookupCache } from '../../../src/core/sources/cache';
import { CrossrefSource } from '../../../src/core/sources/crossref';
import { attest } from '../support/cli';
import { SimulatedSources, updated, type SimulatedWork } from '../support/retractionWorld';
import { makeTempDir } from '../support/tempDir';

const RETRACTED: SimulatedWork = {
  doi: '10.1016/s0140-6736(20)31180-6',
  title: 'Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19: a multinational registry analysis',
  crossrefTitle: 'RETRACTED: Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19: a multinational registry analysis',
  family: 'Mehra',
  given: 'Mandeep R.',
  year: 2020,
  journal: 'The Lancet',
  updatedBy: [
    { DOI: '10.1016/s0140-6736(20)31324-6', type: 'retraction', label: 'Retraction', source: 'publisher', updated: updated(2020, 6, 5) },
    { DOI: '10.1016/s0140-6736(20)31324-6', type: 'retraction', label: 'Retraction', source: 'retraction-watch', 'record-id': 31432, updated: updated(2020, 6, 4) },
  ],
  isRetracted: true,
};
const CONCERN: SimulatedWork = {
  doi: '10.21203/rs.3.rs-100956',
  title: 'Ivermectin for the treatment of COVID-19 outpatients',
  family: 'Concerned',
  given: 'Carl',
  year: 2021,
  journal: 'Research Square',
  updatedBy: [{ DOI: '10.21203/rs.3.rs-100957', type: 'expression_of_concern', source: 'publisher', updated: updated(2021, 7, 14) }],
  isRetracted: false,
};

const BIB = `@article{mehra2020, title={Hydroxychloroquine or chloroquine with or without a macrolide for treatment of COVID-19: a multinational registry analysis}, author={Mehra, Mandeep R.}, journal={The Lancet}, year={2020}, doi={10.1016/S0140-6736(20)31180-6}}
@article{ivermectin, title={Ivermectin for the treatment of COVID-19 outpatients}, author={Concerned, Carl}, journal={Research Square}, year={2021}, doi={10.21203/rs.3.rs-100956}}`;

interface Report {
  findings: { code: string; severity: string; file: string; line: number; evidence?: { notice?: { doi?: string; date?: string } } }[];
  references: { key: string; status: string; retraction?: { status: string; notice: { type: string; doi: string; url: string; date: string } | null } }[];
}

describe('attest check on retracted works', () => {
  let world: SimulatedSources;
  let dir: string;
  let remove: () => Promise<void>;
  let config: string;

  beforeEach(async () => {
    world = await SimulatedSources.start([RETRACTED, CONCERN]);
    ({ dir, remove } = await makeTempDir());
    config = path.join(dir, 'attest.json');
    const settings: Record<string, unknown> = { 'attest.sources.enabled': ['crossref', 'openalex'] };
    for (const id of ['crossref', 'openalex']) settings[`attest.sources.${id}.baseUrl`] = `${world.server.baseUrl}/${id}`;
    await fs.writeFile(config, JSON.stringify(settings));
    await fs.writeFile(path.join(dir, 'refs.bib'), BIB);
    await fs.writeFile(
      path.join(dir, 'paper.tex'),
      'Hydroxychloroquine raises mortality \\cite{mehra2020}.\nIvermectin shortens illness \\cite{ivermectin}.\n\\bibliography{refs}\n',
    );
  });

  afterEach(async () => {
    await world.close();
    await remove();
  });

  const check = (...flags: string[]): ReturnType<typeof attest> => attest('check', path.join(dir, 'paper.tex'), '--config', config, '--cache', path.join(dir, 'cache'), ...flags);

  it('shows the retraction and the concern in text, JSON and SARIF, and fails the run', async () => {
    const text = await check();
    assert.equal(text.code, 1, text.err);
    assert.match(
      text.out,
      /paper\.tex:1:\d+: error: 'mehra2020' was retracted on 2020-06-05 \(notice https:\/\/doi\.org\/10\.1016\/s0140-6736\(20\)31324-6, per Crossref\)\. .* \[retracted\]/,
    );
    assert.match(text.out, /paper\.tex:2:\d+: warning: 'ivermectin' is the subject of an expression of concern on 2021-07-14 .* \[expression-of-concern\]/);
    assert.match(text.out, /retractions: 1 retracted, 1 under an expression of concern, 0 withdrawn, 0 corrected\./);
    assert.doesNotMatch(text.out, /metadata-mismatch/);

    const json = JSON.parse((await check('--format', 'json')).out) as Report;
    const mehra = json.references.find((r) => r.key === 'mehra2020');
    assert.equal(mehra?.status, 'found');
    assert.deepEqual(mehra?.retraction?.status, 'retracted');
    assert.deepEqual(mehra?.retraction?.notice, {
      type: 'retraction',
      doi: '10.1016/s0140-6736(20)31324-6',
      url: 'https://doi.org/10.1016/s0140-6736(20)31324-6',
      date: '2020-06-05',
      label: 'Retraction',
      source: 'crossref',
    });
    assert.deepEqual(
      json.findings.map((f) => [f.code, f.severity, path.basename(f.file)]),
      [
        ['retracted', 'error', 'paper.tex'],
        ['expression-of-concern', 'warning', 'paper.tex'],
        ['retracted', 'error', 'refs.bib'],
        ['expression-of-concern', 'warning', 'refs.bib'],
      ],
    );

    const sarif = JSON.parse((await check('--format', 'sarif')).out) as { runs: { tool: { driver: { rules: { id: string }[] } }; results: { ruleId: string; level: string }[] }[] };
    const rules = sarif.runs[0].tool.driver.rules.map((r) => r.id);
    for (const code of ['retracted', 'expression-of-concern', 'withdrawn', 'corrected']) assert.ok(rules.includes(code), code);
    assert.deepEqual(
      sarif.runs[0].results.map((r) => [r.ruleId, r.level]),
      [
        ['retracted', 'error'],
        ['expression-of-concern', 'warning'],
        ['retracted', 'error'],
        ['expression-of-concern', 'warning'],
      ],
    );
  });

  it('honours a retraction ignored with a reason in the manuscript’s ignore list', async () => {
    const first = JSON.parse((await check('--format', 'json')).out) as Report & { citations: { key: string; sentence: string }[] };
    const claim = first.citations.find((c) => c.key === 'mehra2020')!.sentence;
    await fs.mkdir(path.join(dir, '.attest'));
    const ignored = { key: 'mehra2020', claim: createHash('sha256').update(claim).digest('hex'), text: claim, about: 'retraction', reason: 'We discuss the retraction.' };
    await fs.writeFile(path.join(dir, '.attest', 'ignore.json'), JSON.stringify({ version: 1, ignored: [ignored] }));
    const json = JSON.parse((await check('--format', 'json')).out) as Report;
    assert.deepEqual(
      json.findings.filter((f) => f.code === 'retracted'),
      [],
    );
    assert.equal(json.references.find((r) => r.key === 'mehra2020')?.retraction?.status, 'retracted');
  });
});

describe('how long a retraction status is kept', () => {
  it('asks again for an answer older than a week when the retraction status is wanted, and answers metadata from the cache', async () => {
    const world = await SimulatedSources.start([RETRACTED]);
    const { dir, remove } = await makeTempDir();
    try {
      const crossref = new CrossrefSource({ baseUrl: `${world.server.baseUrl}/crossref`, cache: new LookupCache(dir), requestsPerSecond: 1000 });
      await crossref.byDoi(RETRACTED.doi!);
      await crossref.byDoi(RETRACTED.doi!);
      assert.equal(world.server.requests.length, 1, 'metadata comes from the cache');
      await crossref.byDoi(RETRACTED.doi!, { maxCacheAgeMs: 7 * 24 * 3600_000 });
      assert.equal(world.server.requests.length, 1, 'an answer of today is young enough');
      // An answer stored eight days ago: metadata still from the cache, the retraction status asked again.
      const files = await fs.readdir(dir, { recursive: true });
      const entry = path.join(
        dir,
        files.find((f) => f.endsWith('.json'))!,
      );
      const stored = JSON.parse(await fs.readFile(entry, 'utf8')) as { storedAt: number };
      await fs.writeFile(entry, JSON.stringify({ ...stored, storedAt: Date.now() - 8 * 24 * 3600_000 }));
      await crossref.byDoi(RETRACTED.doi!);
      assert.equal(world.server.requests.length, 1);
      await crossref.byDoi(RETRACTED.doi!, { maxCacheAgeMs: 7 * 24 * 3600_000 });
      assert.equal(world.server.requests.length, 2);
    } finally {
      await world.close();
      await remove();
    }
  });
});

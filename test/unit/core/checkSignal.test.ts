import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { parseBibliography } from '../../../src/core/bibliography/parse';
import { SignalFanOut } from '../../../src/core/signalFanOut';
import { verifyEntries } from '../../../src/core/verify/references';
import { SimulatedSources, type SimulatedWork } from '../support/retractionWorld';

/** Forty works every source holds: enough lookups at once to queue at each source's gate. */
const WORKS: SimulatedWork[] = Array.from({ length: 40 }, (_, i) => ({
  doi: `10.5555/many.${i}`,
  title: `Study number ${i} of soil microbial communities under drought`,
  family: `Author${i}`,
  given: 'Ann',
  year: 2010 + (i % 10),
  journal: 'Soil Biology',
  isRetracted: false,
  europePmc: { pmid: String(30000000 + i), pubTypes: ['Journal Article'] },
}));

const BIBTEX = WORKS.map((w, i) => `@article{work${i}, title={${w.title}}, author={${w.family}, ${w.given}}, journal={${w.journal}}, year={${w.year}}, doi={${w.doi}}}`).join('\n');

describe('one check’s cancellation shared by its lookups', () => {
  let world: SimulatedSources;

  beforeEach(async () => {
    world = await SimulatedSources.start(WORKS);
  });

  afterEach(async () => {
    await world.close();
  });

  it('checks many citations on one signal without Node warning of an abort-listener leak', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      if (warning.name === 'MaxListenersExceededWarning') warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const verdicts = await verifyEntries(parseBibliography(BIBTEX, '/p/refs.bib').entries, world.sources(), { signal: controller.signal });
      assert.equal([...verdicts.values()].filter((l) => l.verdict.status === 'found' && l.retraction?.status === 'none').length, WORKS.length);
      // Node emits its warnings on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(warnings, []);
  });

  it('leaves no listener on a signal that outlives the check, as an editor session’s does', async () => {
    const session = new AbortController();
    await verifyEntries(parseBibliography(BIBTEX, '/p/refs.bib').entries.slice(0, 3), world.sources(), { signal: session.signal });
    assert.equal(getEventListeners(session.signal, 'abort').length, 0);
  });
});

describe('a signal fanned out to pieces of work', () => {
  it('aborts the signal of each piece under way with the shared reason, and of one started after', async () => {
    const shared = new AbortController();
    const fanOut = new SignalFanOut(shared.signal);
    let seen: AbortSignal | undefined;
    const running = fanOut.run(
      (own) =>
        new Promise((_resolve, reject) => {
          seen = own;
          own?.addEventListener('abort', () => reject(own.reason));
        }),
    );
    shared.abort(new Error('the check was cancelled'));
    await assert.rejects(running, /the check was cancelled/);
    assert.equal(seen?.aborted, true);
    assert.equal(await fanOut.run(async (own) => own?.reason), shared.signal.reason);
    fanOut.dispose();
  });

  it('hangs one listener on the shared signal however many pieces run, and none once disposed', async () => {
    const shared = new AbortController();
    const fanOut = new SignalFanOut(shared.signal);
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const pieces = Array.from({ length: 20 }, () =>
      fanOut.run(async (own) => {
        own?.addEventListener('abort', () => undefined);
        await held;
      }),
    );
    assert.equal(getEventListeners(shared.signal, 'abort').length, 1);
    release();
    await Promise.all(pieces);
    fanOut.dispose();
    assert.equal(getEventListeners(shared.signal, 'abort').length, 0);
  });
});

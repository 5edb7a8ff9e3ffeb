import { performance } from 'node:perf_hooks';
import { LibraryThread } from '../../src/core/index/libraryThread';
import { WorkerEmbedder } from '../../src/core/models/pool';
import { CLAIM } from '../syntheticPapers';
async function main(dir: string, encoderDir: string, model: string): Promise<void> {
  const t0 = performance.now();
  const mark = (what: string) => console.log(what, Math.round(performance.now() - t0));
  const thread = new LibraryThread();
  const opening = thread.setUp({ dir, liveSources: [] }).then((m) => { mark('store open'); return m; });
  const embedder = await WorkerEmbedder.start(encoderDir, { threads: 2 });
  mark('encoder ready');
  await opening;
  await thread.setUp({ dir, encoder: { model, embedder }, liveSources: [] });
  mark('setup');
  const found = await thread.find({ text: CLAIM, limit: 10 });
  mark(`found ${found.mode}`);
  const again = await thread.find({ text: CLAIM + ' again', limit: 10 });
  mark(`found again ${again.mode}`);
  await thread.dispose(); await embedder.dispose();
}
const [dir, enc, model] = process.argv.slice(2);
void main(dir, enc, model);

/**
 * `node out/bench/encoders/embedScifact.js [NAME…]`: embeds BEIR SciFact's abstracts and claims with
 * the fetched encoders (all of them, or those named) into the bench's cache, so that the retrieval
 * bench finds them there. Meant to run in the background, once: it prints its progress.
 */
import * as path from 'node:path';
import { haveEvalData } from '../evalData';
import { cachedEmbeddings } from './embeddings';
import { encoderCache, isLaidOut, REGISTRY_ENCODERS } from './registry';
import { scifactTexts } from './scifact';

async function main(): Promise<void> {
  if (!haveEvalData('embedding SciFact', 'beir-scifact/corpus.jsonl', 'beir-scifact/queries.jsonl')) return;
  const cache = encoderCache();
  const names = process.argv.slice(2);
  const { passages, queries } = await scifactTexts();
  for (const encoder of REGISTRY_ENCODERS.filter((e) => names.length === 0 || names.includes(e.name))) {
    if (!(await isLaidOut(encoder, cache))) {
      console.log(`${encoder.name}: not fetched (npm run models:fetch)`);
      continue;
    }
    const dir = path.join(cache, encoder.name);
    for (const [kind, texts] of [
      ['query', queries],
      ['passage', passages],
    ] as const) {
      await cachedEmbeddings(dir, texts, kind, cache, {
        onProgress: ({ done, total, rate }) => console.log(`${encoder.name} ${kind}: ${done}/${total}, ${rate.toFixed(1)}/s`),
      });
    }
  }
}

void main();

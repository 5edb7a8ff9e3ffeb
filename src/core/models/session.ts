/**
 * An ONNX Runtime session over one model file, fed from a `TokenBatch`: it gives the model exactly
 * the inputs its graph declares (DeBERTa-v3 exports take no `token_type_ids`; BERT exports do) and
 * hands one output back as a typed array.
 */
import * as ort from 'onnxruntime-node';
import { ModelError } from './errors';
import { optimizedCopyOf, writeOptimizedCopy } from './optimizedGraph';
import type { TokenBatch } from './tokenizer';

export interface SessionOptions {
  /** Threads one inference may use; ONNX Runtime's default is one per physical core. */
  readonly threads?: number;
  /**
   * The folder the graph's optimised copy (optimizedGraph.ts) is kept in, written there at the first
   * load: the folder of a model Attest downloaded, or one of Attest's storage for a model it ships.
   * Without it, a copy beside the graph is loaded where there is one, and none is written: a folder
   * the user names is only read.
   */
  readonly optimizedCopies?: string;
  /**
   * Pack the weights for the processor's kernels as the session is made (ONNX Runtime's default).
   * Packing took about 140 ms of a session over fp32 bge-small-en-v1.5 (40 ms over int8) and makes
   * each inference faster (a query 7 ms, 2 ms over int8): worth it unless the session runs a few times.
   */
  readonly prepack?: boolean;
}

export interface OutputTensor {
  readonly data: Float32Array;
  readonly dims: readonly number[];
}

const FEEDS: Readonly<Record<string, (batch: TokenBatch) => BigInt64Array>> = {
  input_ids: (batch) => batch.inputIds,
  attention_mask: (batch) => batch.attentionMask,
  token_type_ids: (batch) => batch.tokenTypeIds,
};

export class OnnxSession {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly file: string,
  ) {}

  /** Loads the graph's optimised copy (optimizedGraph.ts) where one was made from it, else the graph. */
  static async open(file: string, options: SessionOptions = {}): Promise<OnnxSession> {
    const settings: ort.InferenceSession.SessionOptions = {
      executionProviders: ['cpu'],
      // Errors only: its warnings are about the graph, not anything a user can act on.
      logSeverityLevel: 3,
      ...(options.threads !== undefined ? { intraOpNumThreads: options.threads } : {}),
      extra: {
        session: {
          // x86 CPUs without VNNI multiply an int8 graph's uint8 activations by its int8 weights in
          // pairs summed into 16 bits, which saturate: a built-in verifier's int8 graph (e0a96a5) gave other
          // verdicts there (SciFact dev macro-F1 0.476 where it was exported, 0.486 on a VNNI CPU). This
          // has ONNX Runtime multiply exactly on those CPUs (slower there; a no-op elsewhere), so a
          // verdict, and the thresholds chosen for it, are the same on every machine up to float rounding.
          x64quantprecision: '1',
          ...(options.prepack === false && { disable_prepacking: '1' }),
        },
      },
    };
    const copies = options.optimizedCopies;
    let copy = await optimizedCopyOf(file, copies);
    // Making the copy costs one slower start (about 0.5 s for bge-small int8); a folder it cannot be written to keeps the graph.
    if (copy === undefined && copies !== undefined) copy = await writeOptimizedCopy(file, copies).catch(() => undefined);
    let session: ort.InferenceSession | undefined;
    // A copy that fails to load costs that attempt only: the graph it came from is what counts.
    if (copy !== undefined) session = await ort.InferenceSession.create(copy, settings).catch(() => undefined);
    try {
      session ??= await ort.InferenceSession.create(file, settings);
    } catch (error) {
      throw new ModelError(
        `ONNX Runtime could not load ${file} (${(error as Error).message}). The file may be incomplete or not an ONNX model: download it again.`,
        file,
      );
    }
    const unknown = session.inputNames.filter((name) => !(name in FEEDS));
    if (unknown.length > 0) {
      await session.release();
      throw new ModelError(
        `${file} takes inputs Attest cannot supply (${unknown.join(', ')}); it supplies ${Object.keys(FEEDS).join(', ')}. Use a text-classification or feature-extraction export.`,
        file,
      );
    }
    return new OnnxSession(session, file);
  }

  /** `preferred` when the graph has such an output, else its first one. */
  outputName(preferred: string): string {
    return this.session.outputNames.includes(preferred) ? preferred : this.session.outputNames[0];
  }

  async run(batch: TokenBatch, output: string): Promise<OutputTensor> {
    const feeds: Record<string, ort.Tensor> = {};
    for (const name of this.session.inputNames) {
      feeds[name] = new ort.Tensor('int64', FEEDS[name](batch), [batch.size, batch.length]);
    }
    const results = await this.session.run(feeds, [output]);
    const tensor = results[output];
    if (tensor.type !== 'float32') {
      throw new ModelError(`${this.file} gives ${output} as ${tensor.type}; Attest reads float32 outputs.`, this.file);
    }
    return { data: tensor.data as Float32Array, dims: tensor.dims };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

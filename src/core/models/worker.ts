/**
 * The worker thread that holds one model (see pool.ts): loads it from `workerData`, answers
 * 'ready' or 'load-failed', then runs each batch it is sent and answers with its result or error,
 * until it is asked to close.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { OnnxEmbedder } from './embedder';
import { OnnxNliModel } from './nli';
import type { CloseRequest, WorkerModelSpec, WorkerReply, WorkerRequest } from './protocol';
import { serializeError } from './protocol';

type Loaded = { readonly kind: 'nli'; readonly model: OnnxNliModel } | { readonly kind: 'embedder'; readonly model: OnnxEmbedder };

async function load(spec: WorkerModelSpec): Promise<Loaded> {
  return spec.kind === 'nli'
    ? { kind: 'nli', model: await OnnxNliModel.load(spec.dir, spec.options) }
    : { kind: 'embedder', model: await OnnxEmbedder.load(spec.dir, spec.options) };
}

async function answer(loaded: Loaded, request: WorkerRequest): Promise<WorkerReply> {
  if (request.type === 'classify' && loaded.kind === 'nli') {
    return { type: 'classified', id: request.id, scores: await loaded.model.classify(request.pairs) };
  }
  if (request.type === 'embed' && loaded.kind === 'embedder') {
    return { type: 'embedded', id: request.id, vectors: await loaded.model.embed(request.texts, request.kind) };
  }
  throw new Error(`a worker holding ${loaded.kind === 'nli' ? 'an NLI model' : 'a sentence encoder'} cannot ${request.type}`);
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('worker.js runs as a worker thread started by pool.ts');
  let loaded: Loaded;
  try {
    loaded = await load(workerData as WorkerModelSpec);
  } catch (error) {
    port.postMessage({ type: 'load-failed', error: serializeError(error) } satisfies WorkerReply);
    return;
  }
  let running: Promise<void> = Promise.resolve();
  port.on('message', (request: WorkerRequest | CloseRequest) => {
    if (request.type === 'close') {
      // Ending the thread while ONNX Runtime is inside a run aborts the whole process, so the run
      // finishes first; with the model released and the port closed, the thread ends by itself.
      void running.then(() => loaded.model.dispose()).finally(() => port.close());
      return;
    }
    running = answer(loaded, request).then(
      (reply) => port.postMessage(reply),
      (error: unknown) => port.postMessage({ type: 'failed', id: request.id, error: serializeError(error) } satisfies WorkerReply),
    );
  });
  port.postMessage({ type: 'ready', ...(loaded.kind === 'nli' && loaded.model.judging ? { judging: loaded.model.judging } : {}) } satisfies WorkerReply);
}

void main();

import * as ort from 'onnxruntime-node';

/** ONNX Runtime's per-session settings (`extra.session`) that Attest asked for, one record per session made. */
export type SessionEntries = Record<string, string> | undefined;

/** What `run` returns, with the session settings of every ONNX Runtime session it made. */
export async function sessionEntriesAsked<T>(run: () => Promise<T>): Promise<{ result: T; asked: SessionEntries[] }> {
  const create = ort.InferenceSession.create;
  const asked: SessionEntries[] = [];
  ort.InferenceSession.create = ((...args: Parameters<typeof create>) => {
    asked.push((args[1] as { extra?: { session?: Record<string, string> } } | undefined)?.extra?.session);
    return create.apply(ort.InferenceSession, args);
  }) as typeof create;
  try {
    return { result: await run(), asked };
  } finally {
    ort.InferenceSession.create = create;
  }
}

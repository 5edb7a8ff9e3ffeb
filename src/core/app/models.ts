/** The models Attest runs, without ONNX Runtime: their folders, names, options, downloads, errors and the pool that starts them on first use. */
export { builtInIdentity, builtInNliFolder, builtInRerankerFolder } from '../models/builtIn';
export { copiesFolderOf } from '../models/copiesFolder';
export { downloadModel, ModelDownloadError } from '../models/download';
export { ModelError } from '../models/errors';
export { readFolderJudging } from '../models/folder';
export { contentDigest, modelName, sameModel, withContent } from '../models/identity';
export { exportFiles, hasFiles, modelLocation, type ModelLocation } from '../models/location';
export { NliModelOnFirstUse } from '../models/nliOnFirstUse';
export { OnFirstUse } from '../models/onFirstUse';
export type { ModelOptions } from '../models/options';
export { LanesEmbedder, StartingEmbedder, WorkerEmbedder, WorkerNliModel } from '../models/pool';
export { onnxRuntimeAvailable } from '../models/runtime';

/** The models that load ONNX Runtime when this module is loaded (a tenth of a second): the sentence encoder, the reranker and the NLI model. Adapters import it lazily, or only for its types. */
export { type Embedder, OnnxEmbedder } from '../models/embedder';
export { type NliModel, OnnxNliModel } from '../models/nli';
export { OnnxReranker, type Reranker } from '../models/reranker';

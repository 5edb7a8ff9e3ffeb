import { encodeModel, FLOAT, floats, INT64, int64s, intAttribute, node, tensorInfo } from './proto';

/**
 * Two tiny graphs standing in for real exports, each a known function of the token ids so a test can
 * compute exactly what Attest must get back. Token ids are folded onto a few rows (`id mod ROWS`) of
 * small integer tables, so every sum is exact in float32.
 */

const ROWS = 13;
const DIM = 4;

function nliWeight(row: number, label: number): number {
  return ((row * (label + 2) + label) % 5) - 2;
}

/** What the NLI graph adds to the last logit for every token of the second segment. */
const SEGMENT_B_BONUS = 3;

function encoderWeight(row: number, d: number): number {
  return ((row * (d + 1) + d) % 7) - 3;
}

/** Every token's state also carries the sum of these over the whole text, so the CLS token's state depends on the text. */
function contextWeight(row: number, d: number): number {
  return ((row + 2 * d) % 3) - 1;
}

function table(rows: number, cols: number, weight: (row: number, col: number) => number): number[] {
  const values: number[] = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) values.push(weight(r, c));
  return values;
}

export interface NliGraphOptions {
  /** How many logits the graph gives per pair; real NLI exports give 3. */
  readonly labels?: number;
  /** Declare a `token_type_ids` input, as BERT-style exports do (DeBERTa-v3 exports do not). */
  readonly tokenTypes?: boolean;
}

/**
 * `logits[b][k] = Σ_t mask[b,t] · (W[id[b,t] mod ROWS][k] + (k is last ? 3 · type[b,t] : 0))`.
 */
export function nliGraph(options: NliGraphOptions = {}): Uint8Array {
  const labels = options.labels ?? 3;
  const nodes = [
    node('Mod', ['input_ids', 'rows'], ['row_ids']),
    node('Gather', ['weights', 'row_ids'], ['token_logits'], [intAttribute('axis', 0)]),
    node('Cast', ['attention_mask'], ['mask_f'], [intAttribute('to', FLOAT)]),
    node('Unsqueeze', ['mask_f', 'last_axis'], ['mask_3d']),
  ];
  const inputs = [tensorInfo('input_ids', INT64, ['batch', 'sequence']), tensorInfo('attention_mask', INT64, ['batch', 'sequence'])];
  const initializer = [
    int64s('rows', [], [ROWS]),
    floats('weights', [ROWS, labels], table(ROWS, labels, nliWeight)),
    int64s('last_axis', [1], [-1]),
    int64s('sequence_axis', [1], [1]),
  ];
  let perToken = 'token_logits';
  if (options.tokenTypes) {
    const bonus = Array.from({ length: labels }, (_, k) => (k === labels - 1 ? SEGMENT_B_BONUS : 0));
    initializer.push(floats('segment_bonus', [labels], bonus));
    inputs.push(tensorInfo('token_type_ids', INT64, ['batch', 'sequence']));
    nodes.push(
      node('Cast', ['token_type_ids'], ['types_f'], [intAttribute('to', FLOAT)]),
      node('Unsqueeze', ['types_f', 'last_axis'], ['types_3d']),
      node('Mul', ['types_3d', 'segment_bonus'], ['bonus']),
      node('Add', ['token_logits', 'bonus'], ['token_logits_typed']),
    );
    perToken = 'token_logits_typed';
  }
  nodes.push(node('Mul', [perToken, 'mask_3d'], ['masked']), node('ReduceSum', ['masked', 'sequence_axis'], ['logits'], [intAttribute('keepdims', 0)]));
  return encodeModel({
    name: 'nli',
    node: nodes,
    initializer,
    input: inputs,
    output: [tensorInfo('logits', FLOAT, ['batch', labels])],
  });
}

/** The NLI graph's logits for one unpadded encoding. */
export function nliLogits(ids: readonly number[], typeIds: readonly number[] | undefined, labels = 3): number[] {
  const logits = new Array<number>(labels).fill(0);
  ids.forEach((id, t) => {
    for (let k = 0; k < labels; k++) logits[k] += nliWeight(id % ROWS, k);
    if (typeIds) logits[labels - 1] += SEGMENT_B_BONUS * typeIds[t];
  });
  return logits;
}

/**
 * `last_hidden_state[b,t] = E[id[b,t] mod ROWS] + Σ_u mask[b,u] · C[id[b,u] mod ROWS]`, with the
 * three inputs a BERT-style encoder export takes.
 */
export function encoderGraph(): Uint8Array {
  return encodeModel({
    name: 'encoder',
    node: [
      node('Mod', ['input_ids', 'rows'], ['row_ids']),
      node('Gather', ['token_table', 'row_ids'], ['token_states'], [intAttribute('axis', 0)]),
      node('Gather', ['context_table', 'row_ids'], ['context_terms'], [intAttribute('axis', 0)]),
      node('Cast', ['attention_mask'], ['mask_f'], [intAttribute('to', FLOAT)]),
      node('Unsqueeze', ['mask_f', 'last_axis'], ['mask_3d']),
      node('Mul', ['context_terms', 'mask_3d'], ['masked_context']),
      node('ReduceSum', ['masked_context', 'sequence_axis'], ['context'], [intAttribute('keepdims', 1)]),
      // Real encoders read the segment ids; here they only have to arrive, so they count for nothing.
      node('Cast', ['token_type_ids'], ['types_f'], [intAttribute('to', FLOAT)]),
      node('Unsqueeze', ['types_f', 'last_axis'], ['types_3d']),
      node('Mul', ['types_3d', 'zero'], ['no_types']),
      node('Add', ['token_states', 'context'], ['with_context']),
      node('Add', ['with_context', 'no_types'], ['last_hidden_state']),
    ],
    initializer: [
      int64s('rows', [], [ROWS]),
      floats('token_table', [ROWS, DIM], table(ROWS, DIM, encoderWeight)),
      floats('context_table', [ROWS, DIM], table(ROWS, DIM, contextWeight)),
      floats('zero', [1], [0]),
      int64s('last_axis', [1], [-1]),
      int64s('sequence_axis', [1], [1]),
    ],
    input: [
      tensorInfo('input_ids', INT64, ['batch', 'sequence']),
      tensorInfo('attention_mask', INT64, ['batch', 'sequence']),
      tensorInfo('token_type_ids', INT64, ['batch', 'sequence']),
    ],
    output: [tensorInfo('last_hidden_state', FLOAT, ['batch', 'sequence', DIM])],
  });
}

/** The encoder graph's state of each token of one unpadded encoding. */
export function encoderStates(ids: readonly number[]): number[][] {
  const context = new Array<number>(DIM).fill(0);
  for (const id of ids) for (let d = 0; d < DIM; d++) context[d] += contextWeight(id % ROWS, d);
  return ids.map((id) => Array.from({ length: DIM }, (_, d) => encoderWeight(id % ROWS, d) + context[d]));
}

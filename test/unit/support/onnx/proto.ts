import { onnx } from 'onnx-proto';

/**
 * Just enough of the ONNX format to write the small graphs the model tests run: constant tensors,
 * nodes, typed inputs and outputs, and a model at opset 13 (where ReduceSum and Unsqueeze take their
 * axes as inputs).
 */

export const FLOAT = onnx.TensorProto.DataType.FLOAT;
export const INT64 = onnx.TensorProto.DataType.INT64;

export function floats(name: string, dims: readonly number[], values: readonly number[]): onnx.ITensorProto {
  return { name, dims: [...dims], dataType: FLOAT, floatData: [...values] };
}

export function int64s(name: string, dims: readonly number[], values: readonly number[]): onnx.ITensorProto {
  return { name, dims: [...dims], dataType: INT64, int64Data: [...values] };
}

export function node(opType: string, inputs: readonly string[], outputs: readonly string[], attribute: onnx.IAttributeProto[] = []): onnx.INodeProto {
  return { opType, input: [...inputs], output: [...outputs], attribute };
}

export function intAttribute(name: string, value: number): onnx.IAttributeProto {
  return { name, type: onnx.AttributeProto.AttributeType.INT, i: value };
}

/** A graph input or output; a string dimension is symbolic (`batch`, `sequence`). */
export function tensorInfo(name: string, elemType: number, shape: ReadonlyArray<number | string>): onnx.IValueInfoProto {
  const dim = shape.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d }));
  return { name, type: { tensorType: { elemType, shape: { dim } } } };
}

export function encodeModel(graph: onnx.IGraphProto): Uint8Array {
  return onnx.ModelProto.encode({
    irVersion: 7,
    producerName: 'attest-tests',
    opsetImport: [{ domain: '', version: 13 }],
    graph,
  }).finish();
}

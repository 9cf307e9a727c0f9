/**
 * A small ONNX graph builder on onnx-proto: initializers from typed arrays, nodes with int / ints /
 * float attributes, auto-named outputs, and a deterministic encoder (no timestamps, fixed field
 * order), so equal inputs give equal bytes.
 */
import onnxProto from 'onnx-proto';
import { valueInfo } from './onnx-graph.ts';

const { onnx } = onnxProto;
export const T = onnx.TensorProto.DataType;
type Node = ReturnType<typeof onnx.NodeProto.create>;
type Tensor = ReturnType<typeof onnx.TensorProto.create>;
export type Attr = number | number[] | { f: number };

export class GraphBuilder {
  readonly nodes: Node[] = [];
  readonly initializer: Tensor[] = [];
  private readonly names = new Set<string>();
  private n = 0;

  constant(name: string, dataType: number, dims: number[], data: ArrayBufferView): string {
    if (this.names.has(name)) throw new Error(`duplicate initializer ${name}`);
    this.names.add(name);
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    this.initializer.push(onnx.TensorProto.create({ name, dataType, dims, rawData: bytes }));
    return name;
  }
  float(name: string, dims: number[], data: Float32Array): string {
    return this.constant(name, T.FLOAT, dims, data);
  }
  int8(name: string, dims: number[], data: Int8Array): string {
    return this.constant(name, T.INT8, dims, data);
  }
  uint8(name: string, dims: number[], data: Uint8Array): string {
    return this.constant(name, T.UINT8, dims, data);
  }
  int64(name: string, values: number[]): string {
    return this.constant(name, T.INT64, [values.length], BigInt64Array.from(values.map(BigInt)));
  }
  scalar(name: string, value: number): string {
    return this.constant(name, T.FLOAT, [], Float32Array.of(value));
  }
  /** A constant made once under `name` and reused by every later caller. */
  shared(name: string, make: () => string): string {
    return this.names.has(name) ? name : make();
  }
  /** One node; returns its first output's name (`outputs` names them, else auto-named). */
  op(opType: string, inputs: string[], attrs: Record<string, Attr> = {}, outputs?: string[] | number): string {
    const outs = Array.isArray(outputs) ? outputs : Array.from({ length: outputs ?? 1 }, (_, i) => `${opType.toLowerCase()}_${this.n}${i ? `_${i}` : ''}`);
    const name = `${opType.toLowerCase()}_node_${this.n++}`;
    const attribute = Object.entries(attrs).map(([key, v]) =>
      Array.isArray(v)
        ? onnx.AttributeProto.create({ name: key, type: onnx.AttributeProto.AttributeType.INTS, ints: v })
        : typeof v === 'object'
          ? onnx.AttributeProto.create({ name: key, type: onnx.AttributeProto.AttributeType.FLOAT, f: v.f })
          : onnx.AttributeProto.create({ name: key, type: onnx.AttributeProto.AttributeType.INT, i: v }),
    );
    this.nodes.push(onnx.NodeProto.create({ name, opType, input: inputs, output: outs, attribute }));
    return outs[0];
  }
  /** All outputs of a multi-output node. */
  ops(opType: string, inputs: string[], count: number, attrs: Record<string, Attr> = {}): string[] {
    const base = `${opType.toLowerCase()}_${this.n}`;
    const outs = Array.from({ length: count }, (_, i) => `${base}_${i}`);
    this.op(opType, inputs, attrs, outs);
    return outs;
  }

  encode(opts: { name: string; doc: string; inputs: ReturnType<typeof valueInfo>[]; outputs: ReturnType<typeof valueInfo>[]; opset: number; producer: string }): Uint8Array {
    const graph = onnx.GraphProto.create({ name: opts.name, docString: opts.doc, node: this.nodes, initializer: this.initializer, input: opts.inputs, output: opts.outputs });
    const model = onnx.ModelProto.create({
      irVersion: 8,
      producerName: opts.producer,
      producerVersion: '1',
      opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: opts.opset })],
      graph,
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

/**
 * Writes the static model as an ONNX graph that transformers.js runs like an encoder:
 * inputs `input_ids`, `attention_mask` (int64 [batch, seq]); output `last_hidden_state`
 * (float32 [batch, seq, dim]) = the embedding-matrix rows of the ids. `attention_mask` is declared
 * but unused: transformers.js applies it in mean pooling. Encoding is deterministic (no
 * timestamps, fixed field order), so equal matrices give equal bytes.
 */
import onnxProto from 'onnx-proto';
import type { StaticModel } from './static-model.ts';

const { onnx } = onnxProto;
const T = onnx.TensorProto.DataType;

/** `ir_version` 8 / opset 13: understood by every onnxruntime transformers.js 3–4 ships. */
const IR_VERSION = 8;
const OPSET = 13;

/** A graph input/output: named dimensions are symbolic (batch, sequence), numbers are fixed. */
export function valueInfo(name: string, elemType: number, dims: (string | number)[]) {
  return onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType,
        shape: onnx.TensorShapeProto.create({
          dim: dims.map((d) => onnx.TensorShapeProto.Dimension.create(typeof d === 'number' ? { dimValue: d } : { dimParam: d })),
        }),
      }),
    }),
  });
}

function tensor(name: string, dataType: number, dims: number[], data: ArrayBufferView) {
  // rawData is little-endian; typed arrays are little-endian on every platform we build on.
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return onnx.TensorProto.create({ name, dataType, dims, rawData: bytes });
}

function axis0(): InstanceType<typeof onnx.AttributeProto> {
  return onnx.AttributeProto.create({ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 });
}

function encodeModel(nodes: ReturnType<typeof onnx.NodeProto.create>[], initializer: ReturnType<typeof tensor>[], dim: number, doc: string): Uint8Array {
  const graph = onnx.GraphProto.create({
    name: 'static_embedding',
    docString: doc,
    node: nodes,
    initializer,
    input: [valueInfo('input_ids', T.INT64, ['batch_size', 'sequence_length']), valueInfo('attention_mask', T.INT64, ['batch_size', 'sequence_length'])],
    output: [
      onnx.ValueInfoProto.create({
        name: 'last_hidden_state',
        type: onnx.TypeProto.create({
          tensorType: onnx.TypeProto.Tensor.create({
            elemType: T.FLOAT,
            shape: onnx.TensorShapeProto.create({
              dim: [
                onnx.TensorShapeProto.Dimension.create({ dimParam: 'batch_size' }),
                onnx.TensorShapeProto.Dimension.create({ dimParam: 'sequence_length' }),
                onnx.TensorShapeProto.Dimension.create({ dimValue: dim }),
              ],
            }),
          }),
        }),
      }),
    ],
  });
  const model = onnx.ModelProto.create({
    irVersion: IR_VERSION,
    producerName: 'rcp-in-page/scripts/build-models.ts',
    producerVersion: '1',
    opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: OPSET })],
    graph,
  });
  return onnx.ModelProto.encode(model).finish();
}

/** float32 graph: one Gather. */
export function buildFloatModel(model: StaticModel, doc: string): Uint8Array {
  const rows = model.tokens.length;
  return encodeModel(
    [onnx.NodeProto.create({ name: 'embed', opType: 'Gather', input: ['embeddings', 'input_ids'], output: ['last_hidden_state'], attribute: [axis0()] })],
    [tensor('embeddings', T.FLOAT, [rows, model.dimension], model.matrix)],
    model.dimension,
    doc,
  );
}

/**
 * int8 graph, symmetric per-row quantisation: q = round(127 * x / max|row|), scale = max|row| / 127.
 * Gather runs on int8 rows and their scales, then Cast + Mul rebuild float32, so only the looked-up
 * rows are dequantised. Output contract is identical to the float graph.
 */
export function buildQuantizedModel(model: StaticModel, doc: string): Uint8Array {
  const { q, scales } = quantizeRows(model);
  const rows = model.tokens.length;
  return encodeModel(
    [
      onnx.NodeProto.create({ name: 'embed_q', opType: 'Gather', input: ['embeddings_q', 'input_ids'], output: ['rows_q'], attribute: [axis0()] }),
      onnx.NodeProto.create({ name: 'embed_scale', opType: 'Gather', input: ['row_scales', 'input_ids'], output: ['rows_scale'], attribute: [axis0()] }),
      onnx.NodeProto.create({
        name: 'to_float',
        opType: 'Cast',
        input: ['rows_q'],
        output: ['rows_f'],
        attribute: [onnx.AttributeProto.create({ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: T.FLOAT })],
      }),
      onnx.NodeProto.create({ name: 'dequantize', opType: 'Mul', input: ['rows_f', 'rows_scale'], output: ['last_hidden_state'] }),
    ],
    [tensor('embeddings_q', T.INT8, [rows, model.dimension], q), tensor('row_scales', T.FLOAT, [rows, 1], scales)],
    model.dimension,
    doc,
  );
}

/** Per-row symmetric int8 quantisation (exported for tests and measurement). */
export function quantizeRows(model: StaticModel): { q: Int8Array; scales: Float32Array } {
  const d = model.dimension;
  const rows = model.tokens.length;
  const q = new Int8Array(rows * d);
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let max = 0;
    for (let j = 0; j < d; j++) max = Math.max(max, Math.abs(model.matrix[r * d + j]));
    const scale = Math.fround(max / 127);
    scales[r] = scale;
    for (let j = 0; j < d; j++) q[r * d + j] = scale > 0 ? Math.round(model.matrix[r * d + j] / scale) : 0;
  }
  return { q, scales };
}

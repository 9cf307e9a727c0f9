/**
 * The encoder weight file our own runtime reads (`encoder/model.bin`, `encoder/model_quantized.bin`
 * in a model folder), written by scripts/models/encoder-weights.ts from the same Hugging Face
 * tensor map the ONNX writer takes, so both runtimes run the same numbers:
 *
 *   bytes 0–3   "RCPW"
 *   bytes 4–7   format version (u32 little-endian, 1)
 *   bytes 8–11  header length N (u32 LE)
 *   N bytes     header: UTF-8 JSON (`WeightsHeader`)
 *   then        tensors, each at a 64-byte-aligned offset from the start of the file
 *
 * Tensors keep their Hugging Face names (`encoder.layer.0.attention.self.query.weight`, no `bert.`
 * prefix). A linear weight is stored as the ONNX graph's MatMul operand, [in, out]; in an int8 file
 * it is int8 with `<name>_scale` (float32 [out], symmetric per output channel) and, where outlier
 * input channels were smoothed, `<prefix>.input_smoothing` (float32 [in], the 1/s factors the input
 * is multiplied by). The word-embedding table is int8 per row with `weight_scale` [rows]. Everything
 * else (biases, LayerNorm, position and type tables) is float32.
 *
 * A tensor stored 4-bit (Q4_0 blocks along its rows, q4.ts) is two tensors instead: `<name>_q4codes`
 * (uint8 [rows, cols/2]) and `<name>_q4scales` (uint16 fp16 bits [rows, cols/32]), in the PyTorch
 * layout (a linear weight [out, in]). The runtime keeps a 4-bit word table 4-bit and requantises a
 * 4-bit linear weight to int8 per output column at load (bert-weights.ts).
 */

/** File names in a model folder, by weight precision (as ONNX_FILE names the ONNX files). */
export const WEIGHTS_FILE = Object.freeze({ fp32: 'encoder/model.bin', q8: 'encoder/model_quantized.bin' } as const);

export const WEIGHTS_MAGIC = 'RCPW';
export const WEIGHTS_VERSION = 1;
const ALIGN = 64;

/** The encoder's sizes, from the model's config.json. */
export interface EncoderShape {
  layers: number;
  hidden: number;
  heads: number;
  intermediate: number;
  maxPositions: number;
  typeVocab: number;
  vocab: number;
  layerNormEps: number;
}

export type TensorDtype = 'float32' | 'int8' | 'uint8' | 'uint16';

export interface TensorEntry {
  name: string;
  dtype: TensorDtype;
  shape: number[];
  /** Byte offset from the start of the file (64-byte aligned). */
  offset: number;
}

export interface WeightsHeader {
  /** Only the post-LN BERT encoder with erf GELU and absolute positions (scripts/models/bert-onnx.ts's graph). */
  architecture: 'bert';
  /** `q8`: int8 linear weights and word table; `fp32`: all float32. */
  dtype: 'fp32' | 'q8';
  shape: EncoderShape;
  tensors: TensorEntry[];
  /** Provenance, for people. */
  description: string;
}

export type TensorData = Float32Array | Int8Array | Uint8Array | Uint16Array;

/** A parsed weight file: its header and typed views of its tensors (no copies). */
export interface EncoderWeights {
  header: WeightsHeader;
  /** The tensor, or undefined when the file has none of that name. */
  find(name: string): TensorData | undefined;
  /** The tensor, checked for dtype and shape; throws naming the tensor otherwise. */
  get(name: string, dtype: TensorDtype, shape: readonly number[]): TensorData;
  float(name: string, shape: readonly number[]): Float32Array;
  int8(name: string, shape: readonly number[]): Int8Array;
  uint8(name: string, shape: readonly number[]): Uint8Array;
  uint16(name: string, shape: readonly number[]): Uint16Array;
}

const BYTES: Record<TensorDtype, number> = { float32: 4, int8: 1, uint8: 1, uint16: 2 };

const dtypeOf = (data: TensorData): TensorDtype =>
  data instanceof Int8Array ? 'int8' : data instanceof Uint8Array ? 'uint8' : data instanceof Uint16Array ? 'uint16' : 'float32';

function viewOf(buffer: ArrayBuffer, dtype: TensorDtype, offset: number, count: number): TensorData {
  switch (dtype) {
    case 'int8':
      return new Int8Array(buffer, offset, count);
    case 'uint8':
      return new Uint8Array(buffer, offset, count);
    case 'uint16':
      return new Uint16Array(buffer, offset, count);
    case 'float32':
      return new Float32Array(buffer, offset, count);
    default:
      throw new Error(`encoder weight file: unknown tensor dtype ${String(dtype)}`);
  }
}
const align = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

/** One tensor to write. */
export interface NamedTensor {
  name: string;
  data: TensorData;
  shape: number[];
}

/** Serialises `tensors` (in the given order) behind a header; the offsets are computed here. */
export function encodeWeights(header: Omit<WeightsHeader, 'tensors'>, tensors: readonly NamedTensor[]): Uint8Array {
  for (const t of tensors) if (t.shape.reduce((a, b) => a * b, 1) !== t.data.length) throw new Error(`${t.name}: shape [${t.shape}] does not hold ${t.data.length} values`);
  // The offsets depend on the header's length, which depends on the offsets' digits: iterate until stable.
  let entries: TensorEntry[] = [];
  let headerBytes = new Uint8Array(0);
  for (let pass = 0; ; pass++) {
    let at = align(12 + headerBytes.length);
    entries = tensors.map((t) => {
      const e: TensorEntry = { name: t.name, dtype: dtypeOf(t.data), shape: t.shape, offset: at };
      at = align(at + t.data.byteLength);
      return e;
    });
    const next = new TextEncoder().encode(JSON.stringify({ ...header, tensors: entries }));
    const stable = next.length === headerBytes.length;
    headerBytes = next;
    if (stable) break;
    if (pass > 8) throw new Error('encodeWeights: header length does not settle');
  }
  const last = tensors.at(-1);
  const out = new Uint8Array(last ? entries.at(-1)!.offset + last.data.byteLength : align(12 + headerBytes.length));
  out.set(new TextEncoder().encode(WEIGHTS_MAGIC), 0);
  const view = new DataView(out.buffer);
  view.setUint32(4, WEIGHTS_VERSION, true);
  view.setUint32(8, headerBytes.length, true);
  out.set(headerBytes, 12);
  tensors.forEach((t, i) => out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), entries[i].offset));
  return out;
}

/** Parses a weight file; throws a clear error on anything that is not one this runtime reads. */
export function decodeWeights(buffer: ArrayBuffer): EncoderWeights {
  const bytes = new Uint8Array(buffer);
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 4)) !== WEIGHTS_MAGIC) throw new Error('not an encoder weight file (no RCPW magic)');
  const view = new DataView(buffer);
  const version = view.getUint32(4, true);
  if (version !== WEIGHTS_VERSION) throw new Error(`encoder weight file version ${version}; this runtime reads ${WEIGHTS_VERSION}`);
  const length = view.getUint32(8, true);
  if (12 + length > bytes.length) throw new Error('encoder weight file: header runs past the end');
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + length))) as WeightsHeader;
  if (header.architecture !== 'bert') throw new Error(`encoder weight file: architecture ${String(header.architecture)} is not supported`);
  const views = new Map<string, TensorData>();
  for (const e of header.tensors) {
    const count = e.shape.reduce((a, b) => a * b, 1);
    if (!(e.dtype in BYTES)) throw new Error(`encoder weight file: tensor ${e.name} has unknown dtype ${String(e.dtype)}`);
    if (e.offset % ALIGN || e.offset + count * BYTES[e.dtype] > bytes.length) throw new Error(`encoder weight file: tensor ${e.name} lies outside the file`);
    views.set(e.name, viewOf(buffer, e.dtype, e.offset, count));
  }
  const entries = new Map(header.tensors.map((e) => [e.name, e]));
  const get = (name: string, dtype: TensorDtype, shape: readonly number[]): TensorData => {
    const e = entries.get(name);
    if (!e) throw new Error(`encoder weight file: no tensor ${name}`);
    if (e.dtype !== dtype || e.shape.join(',') !== shape.join(',')) throw new Error(`encoder weight file: ${name} is ${e.dtype} [${e.shape}], expected ${dtype} [${shape}]`);
    return views.get(name)!;
  };
  return {
    header,
    find: (name) => views.get(name),
    get,
    float: (name, shape) => get(name, 'float32', shape) as Float32Array,
    int8: (name, shape) => get(name, 'int8', shape) as Int8Array,
    uint8: (name, shape) => get(name, 'uint8', shape) as Uint8Array,
    uint16: (name, shape) => get(name, 'uint16', shape) as Uint16Array,
  };
}

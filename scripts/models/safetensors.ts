/**
 * safetensors reader: 8-byte little-endian header length N, N bytes of JSON
 * `{ name: { dtype, shape, data_offsets: [begin, end] }, "__metadata__"?: {...} }`, then the raw
 * little-endian tensor bytes (offsets are relative to the end of the header). Only F32 is needed
 * here (sentence-transformers checkpoints); F16/BF16 are widened and I64 converted to float32.
 */

import { halfToFloat } from '../../src/models/encoder-runtime/q4.ts';

export interface SafeTensor {
  dtype: string;
  shape: number[];
  /** Always float32 (widened from F16/BF16; I64, e.g. BERT's position_ids buffer, converted). */
  data: Float32Array;
  /**
   * Set when the source stored the tensor 4-bit (E5S1, scripts/models/e5s1.ts): its Q4_0 blocks,
   * of which `data` is the exact dequantisation, so a writer can ship them without requantising.
   */
  q4?: Q4Blocks;
}

/**
 * ggml Q4_0 blocks along the last axis: per 32 values an fp16 scale d (raw bits) and 16 bytes whose
 * byte j holds value j (low nibble) and value j + 16 (high nibble); value = d·(nibble − 8).
 */
export interface Q4Blocks {
  blockSize: 32;
  /** fp16 bits, one per block, blocks in row-major order. */
  scales: Uint16Array;
  /** 16 bytes per block. */
  codes: Uint8Array;
}

export interface SafeTensors {
  tensors: Map<string, SafeTensor>;
  metadata: Record<string, string>;
}

const WIDTH: Record<string, number> = { F32: 4, F16: 2, BF16: 2, I64: 8 };

export function parseSafetensors(bytes: Uint8Array): SafeTensors {
  if (bytes.length < 8) throw new Error('safetensors: file shorter than its header length');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = Number(view.getBigUint64(0, true));
  if (headerLen > bytes.length - 8 || headerLen > 100_000_000) throw new Error(`safetensors: header length ${headerLen} exceeds the file`);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLen))) as Record<string, unknown>;
  const base = 8 + headerLen;
  const tensors = new Map<string, SafeTensor>();
  let metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = value as Record<string, string>;
      continue;
    }
    const { dtype, shape, data_offsets: offsets } = value as { dtype: string; shape: number[]; data_offsets: [number, number] };
    const width = WIDTH[dtype];
    if (!width) throw new Error(`safetensors: tensor ${name} has unsupported dtype ${dtype}`);
    const count = shape.reduce((a, b) => a * b, 1);
    const [begin, end] = offsets;
    if (end - begin !== count * width || base + end > bytes.length) throw new Error(`safetensors: tensor ${name} [${shape}] ${dtype} has bad offsets ${begin}..${end}`);
    const raw = bytes.subarray(base + begin, base + end);
    const data = new Float32Array(count);
    const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    if (dtype === 'F32') for (let i = 0; i < count; i++) data[i] = dv.getFloat32(i * 4, true);
    else if (dtype === 'I64') for (let i = 0; i < count; i++) data[i] = Number(dv.getBigInt64(i * 8, true));
    else if (dtype === 'BF16') for (let i = 0; i < count; i++) data[i] = bf16(dv.getUint16(i * 2, true));
    else for (let i = 0; i < count; i++) data[i] = f16(dv.getUint16(i * 2, true));
    tensors.set(name, { dtype, shape, data });
  }
  return { tensors, metadata };
}

const scratch = new DataView(new ArrayBuffer(4));
function bf16(bits: number): number {
  scratch.setUint32(0, bits << 16);
  return scratch.getFloat32(0);
}
/** IEEE half-precision bits → number: the runtime's decoder (the build reads fp16 as the browser does). */
export const f16 = halfToFloat;

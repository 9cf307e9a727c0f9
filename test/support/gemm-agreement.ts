/**
 * The int8 GEMM kernel of one dot variant against the plain-JS linear layer, over row counts around
 * its tiles (4 rows; 6 for the relaxed variant, which switches to 4-row tiles past the last multiple
 * of 12 in each block of 48 rows) and widths around its panels and unrolling. Run by
 * test/models/encoder-kernels.test.ts in Node (the variants Node 20 validates) and by
 * e2e/encoder-kernels.spec.ts in Chromium (all three).
 */
import { linearForward } from '../../src/models/encoder-runtime/reference.ts';
import type { Int8Linear } from '../../src/models/encoder-runtime/bert-weights.ts';
import { columnSums, gemmFunction, gemmName, packWeights, type DotKind } from '../../src/models/encoder-runtime/kernels/gemm.ts';
import { quantizeFunction, quantizeName } from '../../src/models/encoder-runtime/kernels/rows.ts';
import { instantiate } from '../../src/util/wasm-compile.ts';
import { moduleBytes } from '../../src/util/wasm-module.ts';

/** Deterministic values in [-s, s]. */
export function values(n: number, s: number, seed = 1): Float32Array {
  const a = new Float32Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) (x = (x * 16807) % 2147483647), (a[i] = ((x / 2147483647) * 2 - 1) * s);
  return a;
}

export const GEMM_CASES: readonly (readonly [K: number, N: number, rows: number])[] = [
  [32, 8, 4],
  [48, 24, 12],
  [64, 40, 36],
  ...[8, 12, 16, 20, 24, 40, 44, 48, 52, 60, 84, 100].map((rows) => [64, 16, rows] as const),
  [384, 16, 28],
];

export interface GemmDisagreement {
  K: number;
  N: number;
  rows: number;
  index: number;
  got: number;
  want: number;
}

/**
 * The first output that differs from the reference by more than float32 rounding (1e-5 relative),
 * or undefined when every case agrees; throws where the variant does not compile here.
 */
export function gemmDisagreement(dot: DotKind): GemmDisagreement | undefined {
  for (const [K, N, rows] of GEMM_CASES) {
    const w = Int8Array.from(values(K * N, 127.4, K + rows), Math.round);
    const scale = values(N, 0.01, 3).map(Math.abs);
    const bias = values(N, 0.5, 5);
    const x = values(rows * K, 2, 7 + rows);
    const layer: Int8Linear = { kind: 'i8', inDim: K, outDim: N, weight: w, scale, bias };
    const want = linearForward(layer, x, rows);
    const memory = new WebAssembly.Memory({ initial: 16 });
    const module = new WebAssembly.Module(moduleBytes([gemmFunction(K, dot), quantizeFunction(K)]));
    const exports = instantiate<Record<string, (...a: number[]) => void>>(module, memory);
    let at = 64;
    const put = (data: Float32Array | Int8Array | Uint8Array | Int32Array): number => {
      const p = at;
      new Uint8Array(memory.buffer, p, data.byteLength).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      at = Math.ceil((p + data.byteLength) / 64) * 64 + 64;
      return p;
    };
    const X = put(x), ones = put(new Float32Array(K).fill(1)), codes = put(new Uint8Array(rows * K)), rs = put(new Float32Array(rows)), rz = put(new Int32Array(rows));
    exports[quantizeName(K)](X, rows, ones, codes, rs, rz);
    const W = put(packWeights(w, K, N)), cs = put(columnSums(w, K, N)), csc = put(scale), b = put(bias), out = put(new Float32Array(rows * N));
    exports[gemmName(K)](codes, rows, W, N, out, rs, rz, cs, csc, b);
    const got = new Float32Array(memory.buffer, out, rows * N);
    for (let i = 0; i < want.length; i++) {
      if (!(Math.abs(got[i] - want[i]) <= 1e-5 * (1 + Math.abs(want[i])))) return { K, N, rows, index: i, got: got[i], want: want[i] };
    }
  }
  return undefined;
}

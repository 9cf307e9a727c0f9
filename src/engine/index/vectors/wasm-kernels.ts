/**
 * The scan kernels as a WebAssembly SIMD module, emitted instruction by instruction here (a few
 * hundred bytes, util/wasm-code.ts), so no compiler or .wasm asset is needed at build or run time:
 * the bytes are the program. One module per sign-bit row width (the Hamming scan is unrolled for it).
 *
 *   hamming(q, base, n, out, hist)      out[i] (u16) = popcount(q XOR bits_i), bitStride bytes each;
 *                                       hist counts the rows per distance (`histogramBytes`)
 *   dots(q, base, n, stride, out)        out[i] (i32) = Σ q16[j] · codes_i[j], stride int8 codes each
 *   within(out, n, cut, dst, max) → m    the rows i with out[i] (u16) ≤ cut, ascending, as u32 in
 *                                        dst (the first `max` of them); m = how many there are
 *
 * `q` of `dots` is the query quantized to int16 (stride lanes); both strides are multiples of 16.
 * The module imports its memory ("e" "m"), so every vector block gets a memory of its own and
 * nothing needs an allocator. Requires fixed-width SIMD (Chromium 91+, Firefox 89+, Safari 16.4+,
 * Node 16.4+); `kernelModule()` is undefined where it does not validate (then the JS kernels run).
 */

import { Code } from '../../../util/wasm-code.ts';
import { ModuleCache } from '../../../util/wasm-compile.ts';
import { I32, moduleBytes, type WasmFunction } from '../../../util/wasm-module.ts';

/**
 * acc (i32x4) = the partial sums of Σ_j code[p + j] · query[j], j < stride (a multiple of 16), 16
 * codes per step: the codes sign-extended to two i16x8 halves, each multiplied with the query half
 * that `half(0 | 1)` pushes (i16x8, for j .. j + 8 and j + 8 .. j + 16) by `i32x4.dot_i16x8_s`.
 * The body of `dots`, and of the graph's `gather` (knn-kernels.ts), whose query is int8.
 */
export function rowDot(c: Code, l: { p: number; j: number; acc: number; codes: number }, stride: () => void, half: (h: 0 | 1) => void): void {
  const { p, j, acc, codes } = l;
  c.i32x4Const(0).set(acc);
  c.forRange(j, () => c.i32(0), stride, 16, () => {
    c.get(p).get(j).op('i32_add').vLoad().set(codes);
    c.get(acc);
    c.get(codes).v('i16x8_extend_low_i8x16_s');
    half(0);
    c.v('i32x4_dot_i16x8_s').v('i32x4_add');
    c.get(codes).v('i16x8_extend_high_i8x16_s');
    half(1);
    c.v('i32x4_dot_i16x8_s').v('i32x4_add');
    c.set(acc);
  });
}

/**
 * dots(q, base, n, stride, out): out[i] = Σ_j q16[j]·codes_i[j] (int16 query × int8 codes, summed
 * in int32), 16 codes per step.
 */
function dotsFunction(): WasmFunction {
  const c = new Code('dots', [I32, I32, I32, I32, I32]);
  const [Q, BASE, N, STRIDE, OUT] = [0, 1, 2, 3, 4];
  const [i, j, p] = c.locals('i32', 3);
  const [acc, codes] = c.locals('v128', 2);
  c.get(BASE).set(p);
  c.forRange(i, () => c.i32(0), () => c.get(N), 1, () => {
    rowDot(c, { p, j, acc, codes }, () => c.get(STRIDE), (half) => c.get(Q).get(j).i32(1).op('i32_shl').op('i32_add').vLoad(16 * half));
    c.get(OUT).get(i).i32(2).op('i32_shl').op('i32_add').i32x4LaneSum(acc).i32Store();
    c.get(p).get(STRIDE).op('i32_add').set(p);
  });
  return c.fn();
}

/** Bytes of `hamming`'s distance histogram for rows of `bitStride` bytes: 4 lanes × (bits + 1) u32. */
export const histogramBytes = (bitStride: number): number => 4 * 4 * (bitStride * 8 + 1);

/**
 * hamming(q, base, n, out, hist) for rows of `bitStride` bytes: out[i] (u16) = popcount(q XOR
 * bits_i), and hist[lane][d] (u32, `histogramBytes` in all) += 1 for each row at distance d, lane =
 * the row's index mod 4 (four counters per distance, so that neighbouring rows at one distance do
 * not wait on each other's increment; the caller zeroes them and sums the lanes).
 * The query stays in registers and four rows are counted per step, their per-lane totals reduced
 * together (one shuffle tree instead of four horizontal sums), so the scan is nearly bound by
 * reading the bits (docs/bench.md, "Dense frontier (issue 24)").
 */
function hammingFunction(bitStride: number): WasmFunction {
  const c = new Code('hamming', [I32, I32, I32, I32, I32]);
  const [Q, BASE, N, OUT, HIST] = [0, 1, 2, 3, 4];
  const [i, p, o, at, fours] = c.locals('i32', 5);
  const qv = c.locals('v128', bitStride / 16);
  const rows = c.locals('v128', 4);
  const [u, w] = c.locals('v128', 2);
  const lane = histogramBytes(bitStride) / 4;
  /** Pushes the row at byte `offset` from p as 4 partial counts (i32x4). */
  const rowCounts = (offset: number): void => {
    qv.forEach((q, j) => {
      c.get(p).vLoad(offset + 16 * j).get(q).v('v128_xor').v('i8x16_popcnt');
      if (j > 0) c.v('i8x16_add'); // ≤ 8 per byte per 16 bytes: no overflow below 496-byte rows
    });
    c.v('i16x8_extadd_pairwise_i8x16_u').v('i32x4_extadd_pairwise_i16x8_u');
  };
  /** hist[l][d] += 1, with d on the stack. */
  const count = (l: number): void => {
    c.i32(2).op('i32_shl').get(HIST).op('i32_add').tee(at).get(at).i32Load(l * lane).i32(1).op('i32_add').i32Store(l * lane);
  };
  qv.forEach((q, j) => c.get(Q).vLoad(16 * j).set(q));
  c.get(BASE).set(p);
  c.get(OUT).set(o);
  c.get(N).i32(-4).op('i32_and').set(fours);
  c.forRange(i, () => c.i32(0), () => c.get(fours), 4, () => {
    rows.forEach((r, k) => {
      rowCounts(k * bitStride);
      c.set(r);
    });
    c.i32x4PairSums(rows[0], rows[1]).set(u);
    c.i32x4PairSums(rows[2], rows[3]).set(w);
    c.i32x4PairSums(u, w).set(u); // [d0 d1 d2 d3]
    c.get(o).get(u).get(u).v('i16x8_narrow_i32x4_u').vStore64Lane(0);
    for (let l = 0; l < 4; l++) {
      c.get(u).i32x4Extract(l);
      count(l);
    }
    c.addTo(p, 4 * bitStride);
    c.addTo(o, 8);
  });
  // The last n mod 4 rows, one at a time (lane 0 of the histogram).
  c.forRange(i, () => c.get(fours), () => c.get(N), 1, () => {
    rowCounts(0);
    c.set(u);
    c.i32x4LaneSum(u).set(at);
    c.get(o).get(at).i32Store16();
    c.get(at);
    count(0);
    c.addTo(p, bitStride);
    c.addTo(o, 2);
  });
  return c.fn();
}

/**
 * within(out, n, cut, dst, max) → m: the rows i with out[i] (u16, ≤ 32767) ≤ cut (−1 ≤ cut ≤
 * 32767), ascending, as u32 in dst (the first `max` of them); m = how many there are. Eight rows are
 * compared at once and only a group with a row within the cut is looked at row by row: a cut keeps
 * a few thousand of a million.
 */
function withinFunction(): WasmFunction {
  const c = new Code('within', [I32, I32, I32, I32, I32], [I32]);
  const [OUT, N, CUT, DST, MAX] = [0, 1, 2, 3, 4];
  const [i, m, mask, eights, row] = c.locals('i32', 5);
  const cut = c.local('v128');
  /** Records row `row` when it is within the cut (its distance already compared: `test` pushes the outcome). */
  const keep = (test: () => void): void => {
    test();
    c.if(() => {
      c.get(m).get(MAX).op('i32_lt_u').if(() => c.get(DST).get(m).i32(2).op('i32_shl').op('i32_add').get(row).i32Store());
      c.addTo(m, 1);
    });
  };
  c.get(CUT).v('i16x8_splat').set(cut);
  c.get(N).i32(-8).op('i32_and').set(eights);
  c.forRange(i, () => c.i32(0), () => c.get(eights), 8, () => {
    c.get(OUT).get(i).i32(1).op('i32_shl').op('i32_add').vLoad().get(cut).v('i16x8_le_s').v('i16x8_bitmask').tee(mask);
    c.if(() => {
      for (let j = 0; j < 8; j++) {
        c.get(i).i32(j).op('i32_add').set(row);
        keep(() => c.get(mask).i32(1 << j).op('i32_and'));
      }
    });
  });
  c.forRange(row, () => c.get(eights), () => c.get(N), 1, () => keep(() => c.get(OUT).get(row).i32(1).op('i32_shl').op('i32_add').i32Load16u().get(CUT).op('i32_le_s')));
  c.get(m);
  return c.fn();
}

/** The module's bytes, for rows of `bitStride` sign-bit bytes (a multiple of 16, at most 496). */
export function kernelModuleBytes(bitStride: number): Uint8Array<ArrayBuffer> {
  return moduleBytes([hammingFunction(bitStride), dotsFunction(), withinFunction()]);
}

/** The exported kernels of one instance (bound to one memory). */
export interface KernelInstance {
  hamming(q: number, base: number, n: number, out: number, hist: number): void;
  dots(q: number, base: number, n: number, stride: number, out: number): void;
  within(out: number, n: number, cut: number, dst: number, max: number): number;
}

/** The compiled modules, by bit stride. */
const modules = new ModuleCache(kernelModuleBytes);

const supported = (bitStride: number): boolean => bitStride > 0 && bitStride % 16 === 0 && bitStride <= 496;

/** The compiled module for rows of `bitStride` sign-bit bytes, or undefined where WebAssembly SIMD is unavailable (compiled once per stride). */
export function kernelModule(bitStride: number): WebAssembly.Module | undefined {
  return supported(bitStride) ? modules.module(bitStride) : undefined;
}

/**
 * Instantiates the kernels over `memory`, synchronously (a block is built on a search's first
 * use of its segment, and the module is 1.5–4 KB), or undefined where they do not run here.
 */
export function instantiateKernels(memory: WebAssembly.Memory, bitStride: number): KernelInstance | undefined {
  return supported(bitStride) ? modules.instance<KernelInstance>(bitStride, memory) : undefined;
}

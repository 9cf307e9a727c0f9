/**
 * The int8 GEMM of a linear layer, as WebAssembly generated for one input width K:
 *
 *   out[m, n] = rowScale[m]·colScale[n]·(Σ_k x[m, k]·w[k, n] − rowZero[m]·colSum[n]) + bias[n]
 *
 * x holds activation codes 0..127 (numerics.ts `quantizeRow`), one row of K bytes per token; w the
 * int8 weights, packed by `packWeights` into panels of 8 output columns: for every 4 consecutive k,
 * 32 bytes = columns n..n+7 × k..k+3. So one 16-byte load holds 4 columns × 4 k, one 4-byte splat of
 * an activation row holds the same 4 k, and a dot product with 4-wide sums gives 4 columns at once.
 *
 * Three variants, identical integer results (the runtime times them at load and keeps the fastest):
 *   - relaxed: `i32x4.relaxed_dot_i8x16_i7x16_add_s` (weights signed, activations 0..127 — the range
 *     in which it is deterministic), tile 6 rows × 8 columns = 12 accumulators (4 rows for the
 *     rows past the last multiple of 12); one instruction where the CPU has VNNI (x86) or SDOT (Arm);
 *   - relaxed16: `i16x8.relaxed_dot_i8x16_i7x16_s` then `i32x4.dot_i16x8_s` by ones (the pairwise
 *     int16 sums cannot overflow: |2·127·127| < 2¹⁵), tile 4 rows × 8 columns (its temporaries
 *     leave no registers for a fifth row); on x86 without VNNI this is
 *     pmaddubsw + pmaddwd, where V8 lowers the fused form to the same plus rebuilding a constant;
 *   - simd: the weights widened to int16 (`extend_low/high`) and `i32x4.dot_i16x8_s`, tile 4 rows ×
 *     4 columns, whose pairwise sums are folded into columns at the end (no relaxed SIMD needed).
 * Cache blocking: rows are taken MC at a time (their codes stay in L1/L2) and each 8-column panel of
 * weights (8·K bytes, in L1) is swept over those rows before the next panel.
 */
import { Code } from '../../../util/wasm-code.ts';
import { I32, type WasmFunction } from '../../../util/wasm-module.ts';

/** Rows per cache block (a multiple of 4 and of 6: whole tiles of either height). */
const MC = 48;
/** k-steps of 4 per unrolled iteration. */
const UNROLL = 4;

export type DotKind = 'relaxed' | 'relaxed16' | 'simd';

/** Name of the GEMM function for input width `k`. */
export const gemmName = (k: number) => `gemm_k${k}`;

/**
 * Packs int8 weights [K, N] (row-major, as stored) into the panel layout above. N must be a multiple
 * of 8 and K of 16.
 */
export function packWeights(w: Int8Array, K: number, N: number): Int8Array {
  if (N % 8 || K % 16) throw new Error(`packWeights: ${K}×${N} is not a multiple of 16×8`);
  const out = new Int8Array(K * N);
  let at = 0;
  for (let p = 0; p < N; p += 8) for (let k = 0; k < K; k += 4) for (let c = 0; c < 8; c++) for (let j = 0; j < 4; j++) out[at++] = w[(k + j) * N + p + c];
  return out;
}

/** Σ_k w[k, n] per column, for the zero-point correction. */
export function columnSums(w: Int8Array, K: number, N: number): Int32Array {
  const s = new Int32Array(N);
  for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) s[n] += w[k * N + n];
  return s;
}

/**
 * gemm_k<K>(x, rows, w, n, out, rowScale, rowZero, colSum, colScale, bias): rows a multiple of 4,
 * n of 8; out is [rows × n] float32.
 */
export function gemmFunction(K: number, dot: DotKind): WasmFunction {
  if (K % (4 * UNROLL)) throw new Error(`gemm: K ${K} is not a multiple of ${4 * UNROLL}`);
  const c = new Code(gemmName(K), [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32]);
  const [X, ROWS, W, N, OUT, RSCALE, RZERO, CSUM, CSCALE, BIAS] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const m0 = c.local('i32');
  const mEnd = c.local('i32');
  const panel = c.local('i32'); // first column of the panel
  const r = c.local('i32');
  const wp = c.local('i32');
  const xp = c.local('i32');
  const kk = c.local('i32');
  const wPanel = c.local('i32');
  // relaxed: 6-row tiles where the rows allow (12 accumulator chains instead of 8: the fused dot's
  // latency, not its throughput, bounds a 4-row tile; 15 live vectors still fit x64's 16 registers).
  // Against 5-row tiles over multiples of 20, a 14-token query (16 rows: 6 + 6 + 4 instead of four
  // 4-row tiles) runs 12–15% faster, document batches 0–4% (docs/models.md).
  const tall = dot === 'relaxed' ? 6 : 4;
  // Accumulators: [row][group] (relaxed: 2 groups of 4 columns; simd: low/high halves of one group).
  const accs = Array.from({ length: tall }, () => c.locals('v128', 2));
  const wv = c.locals('v128', 2);
  const xv = c.local('v128');
  const tmp = c.local('v128');
  const ones = c.local('v128');
  const col = c.local('i32');
  const tallEnd = c.local('i32');
  const wide = dot !== 'simd'; // 8 columns per tile
  if (dot === 'relaxed16') c.vConst(new Uint8Array(new Int16Array(8).fill(1).buffer)).set(ones);

  const tile = (group: number, height: number) => {
    // group: which 4-column group of the panel the simd variant computes (relaxed: both).
    const acc = accs.slice(0, height);
    for (const row of acc) for (const a of row) c.i32x4Const(0).set(a);
    c.get(wPanel).i32(group * 16).op('i32_add').set(wp);
    c.get(X).get(r).i32(K).op('i32_mul').op('i32_add').set(xp);
    c.forRange(kk, () => c.i32(0), () => c.i32(K / 4), UNROLL, () => {
      for (let u = 0; u < UNROLL; u++) {
        if (wide) {
          c.get(wp).vLoad(u * 32).set(wv[0]);
          c.get(wp).vLoad(u * 32 + 16).set(wv[1]);
          for (let row = 0; row < height; row++) {
            c.get(xp).vLoad32Splat(row * K + u * 4).set(xv);
            for (let g = 0; g < 2; g++) {
              if (dot === 'relaxed') c.get(wv[g]).get(xv).get(acc[row][g]).v('i32x4_relaxed_dot_i8x16_i7x16_add_s').set(acc[row][g]);
              else c.get(acc[row][g]).get(wv[g]).get(xv).v('i16x8_relaxed_dot_i8x16_i7x16_s').get(ones).v('i32x4_dot_i16x8_s').v('i32x4_add').set(acc[row][g]);
            }
          }
        } else {
          c.get(wp).vLoad(u * 32).tee(tmp).v('i16x8_extend_low_i8x16_s').set(wv[0]);
          c.get(tmp).v('i16x8_extend_high_i8x16_s').set(wv[1]);
          for (let row = 0; row < height; row++) {
            c.get(xp).vLoad32Splat(row * K + u * 4).v('i16x8_extend_low_i8x16_u').set(xv);
            for (let h = 0; h < 2; h++) c.get(acc[row][h]).get(wv[h]).get(xv).v('i32x4_dot_i16x8_s').v('i32x4_add').set(acc[row][h]);
          }
        }
      }
      c.get(wp).i32(UNROLL * 32).op('i32_add').set(wp);
      c.get(xp).i32(UNROLL * 4).op('i32_add').set(xp);
    });
    // Epilogue: 4 columns at a time.
    for (let row = 0; row < height; row++) {
      const groups = wide ? [0, 1] : [group];
      for (const g of groups) {
        if (wide) c.get(acc[row][g]).set(tmp);
        else {
          // [n0a n0b n1a n1b] + [n2a n2b n3a n3b] → [n0 n1 n2 n3]
          const [lo, hi] = acc[row];
          c.i32x4PairSums(lo, hi).set(tmp);
        }
        c.get(panel).i32(g * 4).op('i32_add').i32(2).op('i32_shl').set(col); // byte offset of the 4 columns
        // out[r+row, col..] = (acc − zero·colSum)·(rowScale·colScale) + bias
        c.get(OUT).get(r).i32(row).op('i32_add').get(N).op('i32_mul').i32(2).op('i32_shl').op('i32_add').get(col).op('i32_add');
        c.get(tmp);
        c.get(RZERO).get(r).i32(2).op('i32_shl').op('i32_add').vLoad32Splat(row * 4);
        c.get(CSUM).get(col).op('i32_add').vLoad().v('i32x4_mul').v('i32x4_sub').v('f32x4_convert_i32x4_s');
        c.get(RSCALE).get(r).i32(2).op('i32_shl').op('i32_add').vLoad32Splat(row * 4);
        c.get(CSCALE).get(col).op('i32_add').vLoad().v('f32x4_mul').v('f32x4_mul');
        c.get(BIAS).get(col).op('i32_add').vLoad().v('f32x4_add');
        c.vStore();
      }
    }
  };

  c.forRange(m0, () => c.i32(0), () => c.get(ROWS), MC, () => {
    c.get(m0).i32(MC).op('i32_add').tee(mEnd).get(ROWS).get(mEnd).get(ROWS).op('i32_lt_s').op('select').set(mEnd);
    // Tall tiles over the leading multiple of 12 rows (of 4 and of 6), 4-row tiles over the rest.
    if (tall > 4) c.get(mEnd).get(m0).op('i32_sub').i32(12).op('i32_div_s').i32(12).op('i32_mul').get(m0).op('i32_add').set(tallEnd);
    else c.get(m0).set(tallEnd);
    c.forRange(panel, () => c.i32(0), () => c.get(N), 8, () => {
      c.get(W).get(panel).i32(K).op('i32_mul').op('i32_add').set(wPanel); // panel p starts at p·8·K bytes = panel·K
      if (tall > 4) c.forRange(r, () => c.get(m0), () => c.get(tallEnd), tall, () => tile(0, tall));
      c.forRange(r, () => c.get(tallEnd), () => c.get(mEnd), 4, () => {
        if (wide) tile(0, 4);
        else {
          tile(0, 4);
          tile(1, 4);
        }
      });
    });
  });
  return c.fn();
}

/**
 * Self-attention of one sequence, per head, in three steps (Q already scaled by 1/√d: folded into
 * the query weights at load). The input is the fused QKV projection, one row of 3·H float32 per
 * token ([Q | K | V], head h at columns h·d…); the sequence is unpadded, so no mask is needed (the
 * padding mask of a batch is the sequence's own length here).
 *
 *   1. prepare (`attention_prep`): Q's rows of the head are quantised like any activation row
 *      (7-bit codes with a zero point, numerics.ts `quantizeRow`); K's rows symmetrically to int8,
 *      one scale per key (maxabs/127), packed as the GEMM's weight panels (gemm.ts) with their sums;
 *      V's rows copied contiguous ([n × d]: in place, a head's 128-byte slices lie 3·H·4 bytes apart,
 *      a stride that maps them onto a few L1 sets and made P·V thrash).
 *   2. scores = Q·Kᵀ by the int8 GEMM of width d (gemm.ts), [n4 × n8] float32: the same integer
 *      dot products as the linear layers, 16 per instruction, where float32 does 4. The scores are
 *      the part of attention that tolerates 8 bits: their rounding error (≈ 1/254 of a row's range)
 *      moves a softmax weight by well under 1%; P·V stays float32, because rounding probabilities
 *      to 7 bits would zero every weight below 1/254 of the row's largest, a biased loss.
 *   3. softmax and P·V (`attention_pv`): 4 query rows at a time, softmax over the n real keys (pad
 *      scores set to −∞), then P·V over the n keys, 8 channels at a time, float32.
 *
 * Query rows are taken in blocks of 4 past the sequence's end: the extra rows' results land in rows
 * that the next sequence rewrites (or in the padding rows after the batch), never read as this
 * sequence's. `attend` runs the three steps for every head.
 */
import { Code } from '../../../util/wasm-code.ts';
import { I32, type WasmFunction } from '../../../util/wasm-module.ts';
import { ACT_MAX } from '../numerics.ts';
import { gemmName } from './gemm.ts';
import { reduceLanes, rowCodes, rowScaleAndZero } from './rows.ts';
import { ConstPool, exp, expConstants, madd, MAGIC } from './simd-math.ts';

export const attentionPrepName = (H: number, heads: number) => `attention_prep_h${H}_n${heads}`;
export const attentionPvName = (H: number, heads: number) => `attention_pv_h${H}_n${heads}`;

/** Largest int8 key code (symmetric, so −127…127). */
const KEY_MAX = 127;

/**
 * attention_prep_h<H>_n<heads>(qkv, n, head, qCodes, qScale, qZero, kCodes, kSum, kScale, vh):
 * Q rows 0…n4 → qCodes [n4 × d] u7 with qScale/qZero per row; K rows 0…n8 → kCodes (panels of 8
 * keys, gemm.ts `packWeights` layout) with kSum (Σ codes) and kScale per key, keys past n all 0;
 * V rows 0…n8 → vh [n8 × d] (rows past n are copied too and never read).
 */
export function attentionPrepFunction(H: number, heads: number): WasmFunction {
  const d = H / heads;
  if (d % 16) throw new Error(`attention: head size ${d} is not a multiple of 16`);
  const ROW = 3 * H * 4;
  const c = new Code(attentionPrepName(H, heads), [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32]);
  const [QKV, N, HEAD, QC, QS, QZ, KC, KSUM, KSCALE, VH] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const [i, p, end, zero, out] = c.locals('i32', 5);
  const [lo, hi, v, vinv, vzero, sum] = c.locals('v128', 6);
  const q = c.locals('v128', 4);
  const [flo, fhi, scale, inv] = c.locals('f32', 4);
  const base = c.local('i32');
  const k = new ConstPool(c).hold([0, MAGIC], [ACT_MAX, 0]);
  c.get(QKV).get(HEAD).i32(d * 4).op('i32_mul').op('i32_add').set(base);

  // Q: 7-bit codes per row, as numerics.ts quantizeRow (the range includes 0).
  c.forRange(i, () => c.i32(0), () => c.get(N).i32(3).op('i32_add').i32(-4).op('i32_and'), 1, () => {
    c.get(base).get(i).i32(ROW).op('i32_mul').op('i32_add').set(p);
    k.f32(0).tee(lo).set(hi);
    for (let j = 0; j < d / 4; j++) {
      c.get(p).vLoad(j * 16).tee(v).get(lo).v('f32x4_pmin').set(lo);
      c.get(v).get(hi).v('f32x4_pmax').set(hi);
    }
    const row = { vlo: lo, vhi: hi, lo: flo, hi: fhi, scale, inv, zero, vinv, vzero };
    rowScaleAndZero(c, row, () => c.get(QS).get(i).i32(2).op('i32_shl').op('i32_add'), () => c.get(QZ).get(i).i32(2).op('i32_shl').op('i32_add'));
    c.get(QC).get(i).i32(d).op('i32_mul').op('i32_add').set(out);
    for (let g = 0; g < d / 16; g++) {
      c.get(out);
      rowCodes(c, k, q, row, (offset) => c.get(p).vLoad(g * 64 + offset));
      c.vStore(g * 16);
    }
  });

  // K: int8 codes per key (scale maxabs/127), 4 consecutive channels per 32-bit word of the panel.
  c.get(N).i32(7).op('i32_add').i32(-8).op('i32_and').set(end);
  c.forRange(i, () => c.i32(0), () => c.get(end), 1, () => {
    c.get(base).get(i).i32(ROW).op('i32_mul').op('i32_add').i32(H * 4).op('i32_add').set(p);
    k.f32(0).set(hi);
    for (let j = 0; j < d / 4; j++) c.get(p).vLoad(j * 16).v('f32x4_abs').get(hi).v('f32x4_pmax').set(hi);
    reduceLanes(c, hi, 'f32_max');
    c.set(fhi);
    // Keys past n: scale 0, codes 0 (NaN·0 truncates to 0 too, whatever the rows there hold).
    c.get(i).get(N).op('i32_lt_s').op('i32_eqz').if(() => c.f32(0).set(fhi));
    c.get(fhi).f32(KEY_MAX).op('f32_div').set(scale);
    c.f32(0).set(inv);
    c.get(scale).f32(0).op('f32_gt').if(() => c.f32(1).get(scale).op('f32_div').set(inv));
    c.get(KSCALE).get(i).i32(2).op('i32_shl').op('i32_add').get(scale).f32Store();
    c.get(inv).v('f32x4_splat').set(vinv);
    // Panel of key i: (i >> 3)·8·d bytes, then 4 bytes per key within each 32-byte group of 4 channels.
    c.get(KC).get(i).i32(3).op('i32_shr_u').i32(8 * d).op('i32_mul').op('i32_add').get(i).i32(7).op('i32_and').i32(2).op('i32_shl').op('i32_add').set(out);
    k.i32(0).set(sum);
    for (let j = 0; j < d / 4; j++) {
      c.get(p).vLoad(j * 16).get(vinv).v('f32x4_mul').v('f32x4_nearest').v('i32x4_trunc_sat_f32x4_s').tee(v);
      c.get(sum).v('i32x4_add').set(sum);
      c.get(out).get(v).get(v).v('i16x8_narrow_i32x4_s').tee(v).get(v).v('i8x16_narrow_i16x8_s').vStore32Lane(0, j * 32);
    }
    c.get(KSUM).get(i).i32(2).op('i32_shl').op('i32_add');
    c.i32x4LaneSum(sum);
    c.i32Store();
    // vh[i] = V[i][h·d …]
    c.get(VH).get(i).i32(d * 4).op('i32_mul').op('i32_add').set(out);
    for (let j = 0; j < d / 4; j++) c.get(out).get(p).vLoad(H * 4 + j * 16).vStore(j * 16);
  });
  return c.fn();
}

/**
 * attention_pv_h<H>_n<heads>(p, n, head, vh, out): for the scores p [n4 × n8] of one head,
 * softmax over the n real keys of each row (in place), then out[i][h·d …] = P[i]·vh.
 */
export function attentionPvFunction(H: number, heads: number, relaxed: boolean): WasmFunction {
  const d = H / heads;
  if (d % 8) throw new Error(`attention: head size ${d} is not a multiple of 8`);
  const c = new Code(attentionPvName(H, heads), [I32, I32, I32, I32, I32]);
  const [P, N, HEAD, VH, OUT] = [0, 1, 2, 3, 4];
  const [i, j, ch, n8, stride, pp, vp, r4, rows] = c.locals('i32', 9);
  const acc = Array.from({ length: 4 }, () => c.locals('v128', 2));
  const [k0, k1, x, sum, t0, t1, vmax, vmax2] = c.locals('v128', 8);
  const inv = c.locals('f32', 4);
  const fmax = c.local('f32');
  const prow = c.locals('i32', 4);
  const k = expConstants(new ConstPool(c)).hold([-Infinity, 0]);

  c.get(N).i32(7).op('i32_add').i32(-8).op('i32_and').set(n8);
  c.get(n8).i32(2).op('i32_shl').set(stride); // bytes per row of p
  c.get(P).set(rows);
  c.forRange(i, () => c.i32(0), () => c.get(N), 4, () => {
    // Softmax of each row over the n real keys (pad scores −∞ → exp ≈ 0, never read by P·V).
    for (let r = 0; r < 4; r++) {
      c.get(rows).get(stride).i32(r).op('i32_mul').op('i32_add').set(pp);
      c.forRange(j, () => c.get(N), () => c.get(n8), 1, () => c.get(pp).get(j).i32(2).op('i32_shl').op('i32_add').f32(-Infinity).f32Store());
      // Two running maxima (a row is a whole number of 8 floats): one chain waits on f32x4.max's
      // latency every 4 values, two halve the pass.
      k.f32(-Infinity).set(vmax);
      k.f32(-Infinity).set(vmax2);
      c.forRange(j, () => c.i32(0), () => c.get(stride), 32, () => {
        c.get(pp).get(j).op('i32_add').vLoad().get(vmax).v('f32x4_pmax').set(vmax);
        c.get(pp).get(j).op('i32_add').vLoad(16).get(vmax2).v('f32x4_pmax').set(vmax2);
      });
      c.get(vmax).get(vmax2).v('f32x4_pmax').set(vmax);
      reduceLanes(c, vmax, 'f32_max');
      c.set(fmax);
      c.get(fmax).v('f32x4_splat').set(vmax);
      k.f32(0).set(sum);
      c.forRange(j, () => c.i32(0), () => c.get(stride), 16, () => {
        c.get(pp).get(j).op('i32_add').vLoad().get(vmax).v('f32x4_sub').set(x);
        c.get(pp).get(j).op('i32_add');
        exp(c, x, t0, t1, relaxed, k);
        c.tee(x).vStore();
        c.get(sum).get(x).v('f32x4_add').set(sum);
      });
      // Only the n real entries count (pad entries are ≈ 1e-38 each).
      c.f32(1);
      reduceLanes(c, sum, 'f32_add');
      c.op('f32_div').set(inv[r]);
    }
    // P·V, 8 channels at a time: acc[r] += p[r][j]·vh[j] over the n keys.
    c.forRange(ch, () => c.i32(0), () => c.i32(d * 4), 32, () => {
      for (const row of acc) for (const a of row) c.i32x4Const(0).set(a);
      c.get(VH).get(ch).op('i32_add').set(vp);
      for (let r = 0; r < 4; r++) c.get(rows).get(stride).i32(r).op('i32_mul').op('i32_add').set(prow[r]);
      c.forRange(j, () => c.i32(0), () => c.get(N), 1, () => {
        c.get(vp).vLoad().set(k0);
        c.get(vp).vLoad(16).set(k1);
        for (let r = 0; r < 4; r++) {
          c.get(prow[r]).vLoad32Splat().set(x);
          for (let b = 0; b < 2; b++) madd(c, relaxed, () => c.get(x), () => c.get(b ? k1 : k0), () => c.get(acc[r][b])), c.set(acc[r][b]);
        }
        c.get(vp).i32(d * 4).op('i32_add').set(vp);
        for (const q of prow) c.addTo(q, 4);
      });
      for (let r = 0; r < 4; r++) {
        c.get(OUT).get(i).i32(r).op('i32_add').i32(H * 4).op('i32_mul').op('i32_add').get(HEAD).i32(d * 4).op('i32_mul').op('i32_add').get(ch).op('i32_add').set(r4);
        for (let b = 0; b < 2; b++) c.get(r4).get(acc[r][b]).get(inv[r]).v('f32x4_splat').v('f32x4_mul').vStore(b * 16);
      }
    });
    c.get(rows).get(stride).i32(2).op('i32_shl').op('i32_add').set(rows);
  });
  return c.fn();
}

/** The scratch areas of `attend`. */
interface AttentionScratchSizes {
  qCodes: number;
  qScale: number;
  qZero: number;
  kCodes: number;
  kSum: number;
  kScale: number;
  /** n8 float32 zeros: the scores' bias. */
  zeros: number;
  vh: number;
  p: number;
}
/** Byte offsets of the scratch areas in the kernels' memory (`zeros` must hold zeros). */
export type AttentionScratch = { [K in keyof AttentionScratchSizes]: number };

/**
 * Places the scratch of `attend` for sequences of at most `maxSeq` tokens: `take` reserves `bytes`
 * for the named area and returns its byte offset.
 */
export function placeAttentionScratch(H: number, heads: number, maxSeq: number, take: (bytes: number, area: keyof AttentionScratch) => number): AttentionScratch {
  const d = H / heads;
  const n8 = Math.ceil(maxSeq / 8) * 8;
  const sizes: AttentionScratchSizes = { qCodes: n8 * d, qScale: n8 * 4, qZero: n8 * 4, kCodes: n8 * d, kSum: n8 * 4, kScale: n8 * 4, zeros: n8 * 4, vh: n8 * d * 4, p: n8 * n8 * 4 };
  const at = {} as AttentionScratch;
  for (const area of Object.keys(sizes) as (keyof AttentionScratch)[]) at[area] = take(sizes[area], area);
  return at;
}

type Kernel = (...args: number[]) => void;

/**
 * Attention of one sequence, every head: qkv [n × 3H] float32 at byte `qkv`, the context rows
 * [n × H] to byte `out` (see the file comment for the rows past n).
 */
export function attend(k: Record<string, Kernel>, H: number, heads: number, qkv: number, n: number, out: number, s: AttentionScratch): void {
  const prep = k[attentionPrepName(H, heads)];
  const pv = k[attentionPvName(H, heads)];
  const scores = k[gemmName(H / heads)];
  const n4 = Math.ceil(n / 4) * 4;
  const n8 = Math.ceil(n / 8) * 8;
  for (let h = 0; h < heads; h++) {
    prep(qkv, n, h, s.qCodes, s.qScale, s.qZero, s.kCodes, s.kSum, s.kScale, s.vh);
    scores(s.qCodes, n4, s.kCodes, n8, s.p, s.qScale, s.qZero, s.kSum, s.kScale, s.zeros);
    pv(s.p, n, h, s.vh, out);
  }
}

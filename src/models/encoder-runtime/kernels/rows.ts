/**
 * Row-wise kernels, generated for one row width: activation quantisation (numerics.ts
 * `quantizeRow`, input smoothing folded in), residual add + LayerNorm, and GELU in place.
 */
import { Code, lanes32 } from '../../../util/wasm-code.ts';
import { F32, I32, type WasmFunction } from '../../../util/wasm-module.ts';
import { ACT_MAX } from '../numerics.ts';
import { ConstPool, erf, erfConstants, MAGIC, MAGIC_BITS } from './simd-math.ts';

export const quantizeName = (k: number) => `quantize_k${k}`;
export const layerNormName = (h: number) => `add_layernorm_h${h}`;
export const GELU = 'gelu';

/**
 * Pushes the f32 minimum (or maximum, or sum) of the four lanes of local `v` (min and max clobber
 * `v`). Minima and maxima fold halves with pmin/pmax (two shuffles, two minps): scalar `f32.min`
 * has wasm's NaN and ±0 rules too, which V8 builds from compares and branches. Sums keep the
 * lane order, so their rounding is unchanged.
 */
export function reduceLanes(c: Code, v: number, op: 'f32_min' | 'f32_max' | 'f32_add'): void {
  if (op === 'f32_add') {
    c.get(v).f32x4Extract(0).get(v).f32x4Extract(1).op(op).get(v).f32x4Extract(2).op(op).get(v).f32x4Extract(3).op(op);
    return;
  }
  for (const lanes of [[2, 3, 0, 1], [1, 0, 3, 2]]) c.get(v).get(v).shuffle(lanes32(lanes)).get(v).v(op === 'f32_min' ? 'f32x4_pmin' : 'f32x4_pmax').set(v);
  c.get(v).f32x4Extract(0);
}

/**
 * quantize_k<K>(x, rows, smoothing, codes, rowScale, rowZero): each row of K float32, multiplied by
 * `smoothing` (K float32; all ones for a layer without smoothing), is quantised to K codes 0..127
 * with its own scale (float32) and zero point (int32), exactly as numerics.ts `quantizeRow`. x is
 * not modified (it is the residual of the next LayerNorm).
 */
export function quantizeFunction(K: number): WasmFunction {
  if (K % 16) throw new Error(`quantize: K ${K} is not a multiple of 16`);
  const c = new Code(quantizeName(K), [I32, I32, I32, I32, I32, I32]);
  const [X, ROWS, SMOOTH, CODES, RSCALE, RZERO] = [0, 1, 2, 3, 4, 5];
  const [m, j, p, out, zero] = c.locals('i32', 5);
  const [lo, hi, v, vinv, vzero, lo2, hi2] = c.locals('v128', 7);
  const q = c.locals('v128', 4);
  const [flo, fhi, scale, inv] = c.locals('f32', 4);
  const k = new ConstPool(c).hold([MAGIC], [ACT_MAX, 0]);
  /** Pushes x·smoothing for the 4 values at byte j + offset of the row. */
  const smoothed = (offset: number) => c.get(p).get(j).op('i32_add').vLoad(offset).get(SMOOTH).get(j).op('i32_add').vLoad(offset).v('f32x4_mul');
  c.forRange(m, () => c.i32(0), () => c.get(ROWS), 1, () => {
    c.get(X).get(m).i32(K * 4).op('i32_mul').op('i32_add').set(p);
    // Two chains each for the minima and maxima (K is a multiple of 16): one chain waits on
    // f32x4.min/max's latency every 4 values.
    c.f32x4Const(0).tee(lo).tee(hi).tee(lo2).set(hi2);
    c.forRange(j, () => c.i32(0), () => c.i32(K * 4), 32, () => {
      smoothed(0);
      c.tee(v).get(lo).v('f32x4_pmin').set(lo);
      c.get(v).get(hi).v('f32x4_pmax').set(hi);
      smoothed(16);
      c.tee(v).get(lo2).v('f32x4_pmin').set(lo2);
      c.get(v).get(hi2).v('f32x4_pmax').set(hi2);
    });
    c.get(lo).get(lo2).v('f32x4_pmin').set(lo);
    c.get(hi).get(hi2).v('f32x4_pmax').set(hi);
    const row = { vlo: lo, vhi: hi, lo: flo, hi: fhi, scale, inv, zero, vinv, vzero };
    rowScaleAndZero(c, row, () => c.get(RSCALE).get(m).i32(2).op('i32_shl').op('i32_add'), () => c.get(RZERO).get(m).i32(2).op('i32_shl').op('i32_add'));
    c.get(CODES).get(m).i32(K).op('i32_mul').op('i32_add').set(out);
    // 16 values → 16 codes per step.
    c.forRange(j, () => c.i32(0), () => c.i32(K * 4), 64, () => {
      c.get(out);
      rowCodes(c, k, q, row, smoothed);
      c.vStore();
      c.addTo(out, 16);
    });
  });
  return c.fn();
}

/** The f32/i32/v128 locals of one row's quantisation (rowScaleAndZero, rowCodes). */
export interface RowLocals {
  /** v128: the row's lane-wise minima (≤ 0) and maxima (≥ 0). */
  vlo: number;
  vhi: number;
  /** f32: their reductions. */
  lo: number;
  hi: number;
  /** f32 scale and 1/scale, i32 zero point; splats for the codes: 1/scale, and MAGIC's bits less the zero point. */
  scale: number;
  inv: number;
  zero: number;
  vinv: number;
  vzero: number;
}

/**
 * A row's scale and zero point from its lane-wise minima and maxima, as numerics.ts quantizeRow
 * computes them: stored at the addresses `scaleAt` and `zeroAt` push, and splatted for rowCodes.
 */
export function rowScaleAndZero(c: Code, l: RowLocals, scaleAt: () => void, zeroAt: () => void): void {
  reduceLanes(c, l.vlo, 'f32_min');
  c.set(l.lo);
  reduceLanes(c, l.vhi, 'f32_max');
  c.set(l.hi);
  // scale = (hi − lo)/127, 1 for an all-zero row
  c.get(l.hi).get(l.lo).op('f32_sub').f32(ACT_MAX).op('f32_div').set(l.scale);
  c.get(l.scale).f32(0).op('f32_gt').op('i32_eqz').if(() => c.f32(1).set(l.scale));
  scaleAt();
  c.get(l.scale).f32Store();
  c.f32(1).get(l.scale).op('f32_div').set(l.inv);
  // zero = clamp(nearest(−lo·inv), 0, 127)
  c.get(l.lo).op('f32_neg').get(l.inv).op('f32_mul').op('f32_nearest').i32TruncSat().set(l.zero);
  c.get(l.zero).i32(ACT_MAX).get(l.zero).i32(ACT_MAX).op('i32_lt_s').op('select').set(l.zero);
  c.get(l.zero).i32(0).get(l.zero).i32(0).op('i32_gt_s').op('select').set(l.zero);
  zeroAt();
  c.get(l.zero).i32Store();
  c.get(l.inv).v('f32x4_splat').set(l.vinv);
  c.i32(MAGIC_BITS).get(l.zero).op('i32_sub').v('i32x4_splat').set(l.vzero);
}

/**
 * Pushes the 16 codes (0..127, one v128) of the 4 f32x4 values `value(i)` pushes (i = 0…3); `q`: 4
 * v128 scratch locals; `k` holds MAGIC. x/scale + MAGIC rounds half to even as `nearest` does and
 * leaves the integer in the low bits (|x/scale| ≤ 127 within the row's range): two cheap operations
 * where nearest plus a saturating conversion cost V8 about ten.
 */
export function rowCodes(c: Code, k: ConstPool, q: readonly number[], l: RowLocals, value: (offset: number) => void): void {
  for (let i = 0; i < 4; i++) {
    value(i * 16);
    c.get(l.vinv).v('f32x4_mul');
    k.f32(MAGIC);
    c.v('f32x4_add').get(l.vzero).v('i32x4_sub');
    k.i32(ACT_MAX);
    c.v('i32x4_min_s');
    k.i32(0);
    c.v('i32x4_max_s').set(q[i]);
  }
  c.get(q[0]).get(q[1]).v('i16x8_narrow_i32x4_s').get(q[2]).get(q[3]).v('i16x8_narrow_i32x4_s').v('i8x16_narrow_i16x8_u');
}

/**
 * add_layernorm_h<H>(x, residual, gamma, beta, rows, eps): x ← LayerNorm(x + residual) per row of
 * H float32, in place; residual 0 = none.
 */
export function layerNormFunction(H: number): WasmFunction {
  if (H % 4) throw new Error(`layernorm: H ${H} is not a multiple of 4`);
  const c = new Code(layerNormName(H), [I32, I32, I32, I32, I32, F32]);
  const [X, RES, GAMMA, BETA, ROWS, EPS] = [0, 1, 2, 3, 4, 5];
  const [m, j, p, r] = c.locals('i32', 4);
  const [sum, v, vmean, vinv] = c.locals('v128', 4);
  const [mean, variance] = c.locals('f32', 2);
  c.forRange(m, () => c.i32(0), () => c.get(ROWS), 1, () => {
    c.get(X).get(m).i32(H * 4).op('i32_mul').op('i32_add').set(p);
    c.get(RES).get(m).i32(H * 4).op('i32_mul').op('i32_add').set(r);
    c.f32x4Const(0).set(sum);
    c.forRange(j, () => c.i32(0), () => c.i32(H * 4), 16, () => {
      c.get(p).get(j).op('i32_add').vLoad().set(v);
      c.get(RES).if(() => {
        c.get(v).get(r).get(j).op('i32_add').vLoad().v('f32x4_add').set(v);
        c.get(p).get(j).op('i32_add').get(v).vStore();
      });
      c.get(sum).get(v).v('f32x4_add').set(sum);
    });
    reduceLanes(c, sum, 'f32_add');
    c.f32(H).op('f32_div').tee(mean).v('f32x4_splat').set(vmean);
    c.f32x4Const(0).set(sum);
    c.forRange(j, () => c.i32(0), () => c.i32(H * 4), 16, () => {
      c.get(p).get(j).op('i32_add').vLoad().get(vmean).v('f32x4_sub').tee(v).get(v).v('f32x4_mul').get(sum).v('f32x4_add').set(sum);
    });
    reduceLanes(c, sum, 'f32_add');
    c.f32(H).op('f32_div').set(variance);
    c.f32(1).get(variance).get(EPS).op('f32_add').op('f32_sqrt').op('f32_div').v('f32x4_splat').set(vinv);
    c.forRange(j, () => c.i32(0), () => c.i32(H * 4), 16, () => {
      c.get(p).get(j).op('i32_add');
      c.get(p).get(j).op('i32_add').vLoad().get(vmean).v('f32x4_sub').get(vinv).v('f32x4_mul');
      c.get(GAMMA).get(j).op('i32_add').vLoad().v('f32x4_mul').get(BETA).get(j).op('i32_add').vLoad().v('f32x4_add');
      c.vStore();
    });
  });
  void mean;
  return c.fn();
}

/** gelu(x, n): x ← x·(1 + erf(x/√2))/2 for n float32 (n a multiple of 4), in place. */
export function geluFunction(relaxed: boolean): WasmFunction {
  const c = new Code(GELU, [I32, I32]);
  const [X, N] = [0, 1];
  const [j, end] = c.locals('i32', 2);
  const [x, e, t0, t1] = c.locals('v128', 4);
  const k = erfConstants(new ConstPool(c)).hold([Math.SQRT1_2, 1, 0.5]);
  c.get(X).get(N).i32(2).op('i32_shl').op('i32_add').set(end);
  c.forRange(j, () => c.get(X), () => c.get(end), 16, () => {
    c.get(j).vLoad().tee(x);
    k.f32(Math.SQRT1_2);
    c.v('f32x4_mul').set(e);
    erf(c, e, t0, t1, relaxed, k);
    k.f32(1);
    c.v('f32x4_add').get(x).v('f32x4_mul');
    k.f32(0.5);
    c.v('f32x4_mul').set(e);
    c.get(j).get(e).vStore();
  });
  return c.fn();
}

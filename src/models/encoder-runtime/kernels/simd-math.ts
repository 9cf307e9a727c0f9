/**
 * Vector math the kernels inline: exp (softmax), erf (GELU) and a fused multiply-add that is
 * `f32x4.relaxed_madd` where relaxed SIMD is on and a multiply then an add elsewhere.
 *
 * Every kernel takes minima and maxima with `f32x4.pmin`/`pmax` (b < a ? b : a), one minps/maxps
 * on x64, not `f32x4.min`/`max`, whose NaN and ±0 rules V8 builds from about eight instructions:
 * the kernels' values are never NaN, and a zero's sign changes no code or result.
 */
import type { Code } from '../../../util/wasm-code.ts';
import { ERF_CLAMP, ERF_DENOMINATOR, ERF_NUMERATOR } from '../numerics.ts';

/** a·b + c for f32x4 values pushed by the three callbacks (in that order). */
export function madd(c: Code, relaxed: boolean, a: () => void, b: () => void, acc: () => void): void {
  if (relaxed) {
    a();
    b();
    acc();
    c.v('f32x4_relaxed_madd');
  } else {
    acc();
    a();
    b();
    c.v('f32x4_mul').v('f32x4_add');
  }
}

/** A held constant's key: its kind and value (−0 apart from 0, as its bits differ). */
const constKey = (kind: 'f' | 'i', v: number): string => `${kind}${Object.is(v, -0) ? '-0' : v}`;

/**
 * v128 constants held in locals. V8 builds an inline `v128.const` from immediates at every use
 * (several instructions per constant on x64); a local set once before a loop stays in a register,
 * or one load away when registers run out. `hold` emits the sets, so call it before the loop.
 */
export class ConstPool {
  private readonly held = new Map<string, number>();
  constructor(private readonly c: Code) {}

  /** Creates and sets a local for each f32x4 splat value (and each i32x4 one with `i32`). */
  hold(f32: readonly number[], i32: readonly number[] = []): this {
    for (const [kind, values] of [['f', f32], ['i', i32]] as const) {
      for (const v of values) {
        const key = constKey(kind, v);
        if (this.held.has(key)) continue;
        const local = this.c.local('v128');
        (kind === 'f' ? this.c.f32x4Const(v) : this.c.i32x4Const(v)).set(local);
        this.held.set(key, local);
      }
    }
    return this;
  }

  /** Pushes the f32x4 splat of v: its local when held, inline otherwise. */
  f32(v: number): Code {
    const local = this.held.get(constKey('f', v));
    return local === undefined ? this.c.f32x4Const(v) : this.c.get(local);
  }

  /** Pushes the i32x4 splat of v. */
  i32(v: number): Code {
    const local = this.held.get(constKey('i', v));
    return local === undefined ? this.c.i32x4Const(v) : this.c.get(local);
  }
}

/** 1.5·2²³: x + MAGIC rounds x to an integer held in the sum's low mantissa bits (|x| < 2²²). */
export const MAGIC = 12582912;
/** The float bits of MAGIC: bits(x + MAGIC) − this = round(x). */
export const MAGIC_BITS = 0x4b400000;
/** The float bits of MAGIC less the exponent bias: bits(x + MAGIC) − this = n + 127. */
const MAGIC_BITS_LESS_BIAS = MAGIC_BITS - 127;
const EXP_POLY = [1 / 120, 1 / 24, 1 / 6, 1 / 2];
const LN2_HI = 0.693359375;
const LN2_LO = -2.12194440e-4;

/** The constants `exp` reads (hold them before the loop that calls it). */
export const expConstants = (k: ConstPool): ConstPool => k.hold([-87, Math.LOG2E, MAGIC, LN2_HI, LN2_LO, ...EXP_POLY, 1], [MAGIC_BITS_LESS_BIAS]);

/**
 * Pushes exp(x) for the f32x4 in local `x` (clobbers locals t0, t1). Cephes' expf: x = n·ln2 + r
 * with n = round(x·log2 e), r in ±ln2/2 (ln2 split in two for exactness), e^r = 1 + r + r²·p(r)
 * with p Taylor's next four terms (relative error ≤ 2.4e-6 on ±ln2/2: softmax's probabilities feed
 * int8-rounded products, so Cephes' two further terms bought nothing but time), 2^n by building the
 * exponent bits. n is rounded by adding 1.5·2²³ (its bits then hold n + 0x4b400000), which gives
 * 2^n's bits by one integer subtraction and a shift, where `nearest` plus a saturating conversion
 * cost V8 a dozen instructions. Inputs below −87 give ≈ 0 (softmax subtracts the maximum first, so
 * inputs are ≤ 0).
 */
export function exp(c: Code, x: number, t0: number, t1: number, relaxed: boolean, k: ConstPool): void {
  // x = max(x, -87); t0 = x·log2e + MAGIC (n in the low bits)
  c.get(x);
  k.f32(-87);
  c.v('f32x4_pmax').set(x);
  madd(c, relaxed, () => c.get(x), () => k.f32(Math.LOG2E), () => k.f32(MAGIC));
  c.set(t0);
  // t1 = n = t0 − MAGIC; r = x − n·C1 − n·C2
  c.get(t0);
  k.f32(MAGIC);
  c.v('f32x4_sub').set(t1);
  c.get(x).get(t1);
  k.f32(LN2_HI);
  c.v('f32x4_mul').v('f32x4_sub').get(t1);
  k.f32(LN2_LO);
  c.v('f32x4_mul').v('f32x4_sub').set(x);
  // p(r)
  k.f32(EXP_POLY[0]);
  c.set(t1);
  for (const p of EXP_POLY.slice(1)) madd(c, relaxed, () => c.get(t1), () => c.get(x), () => k.f32(p)), c.set(t1);
  // e^r = p·r² + r + 1
  c.get(t1).get(x).get(x).v('f32x4_mul').v('f32x4_mul').get(x).v('f32x4_add');
  k.f32(1);
  c.v('f32x4_add');
  // · 2^n: bits (n + 127) << 23
  c.get(t0);
  k.i32(MAGIC_BITS_LESS_BIAS);
  c.v('i32x4_sub').i32(23).v('i32x4_shl').v('f32x4_mul');
}

/** The constants `erf` reads (hold them before the loop that calls it). */
export const erfConstants = (k: ConstPool): ConstPool => k.hold([ERF_CLAMP, -ERF_CLAMP, ...ERF_NUMERATOR, ...ERF_DENOMINATOR]);

/** Pushes erf(x) for the f32x4 in local `x` (clobbers x, t0, t1): numerics.ts's rational approximation. */
export function erf(c: Code, x: number, t0: number, t1: number, relaxed: boolean, k: ConstPool): void {
  c.get(x);
  k.f32(ERF_CLAMP);
  c.v('f32x4_pmin');
  k.f32(-ERF_CLAMP);
  c.v('f32x4_pmax').set(x);
  c.get(x).get(x).v('f32x4_mul').set(t0); // x²
  k.f32(ERF_NUMERATOR[6]);
  c.set(t1);
  for (let i = 5; i >= 0; i--) madd(c, relaxed, () => c.get(t1), () => c.get(t0), () => k.f32(ERF_NUMERATOR[i])), c.set(t1);
  c.get(x).get(t1).v('f32x4_mul').set(x); // numerator
  k.f32(ERF_DENOMINATOR[4]);
  c.set(t1);
  for (let i = 3; i >= 0; i--) madd(c, relaxed, () => c.get(t1), () => c.get(t0), () => k.f32(ERF_DENOMINATOR[i])), c.set(t1);
  c.get(x).get(t1).v('f32x4_div');
}

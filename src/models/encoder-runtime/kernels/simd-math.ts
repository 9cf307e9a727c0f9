/**
 * Vector math the kernels inline: exp (softmax), erf (GELU) and a fused multiply-add that is
 * `f32x4.relaxed_madd` where relaxed SIMD is on and a multiply then an add elsewhere.
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

/**
 * Pushes exp(x) for the f32x4 in local `x` (clobbers locals t0, t1). Cephes' expf: x = n·ln2 + r
 * with n = round(x·log2 e), r in ±ln2/2 (ln2 split in two for exactness), e^r by a degree-6
 * polynomial, 2^n by building the exponent bits; inputs below −87 give 0 (softmax subtracts the
 * maximum first, so inputs are ≤ 0).
 */
export function exp(c: Code, x: number, t0: number, t1: number, relaxed: boolean): void {
  // x = max(x, -87); n = nearest(x·log2e)
  c.get(x).f32x4Const(-87).v('f32x4_max').set(x);
  c.get(x).f32x4Const(Math.LOG2E).v('f32x4_mul').v('f32x4_nearest').set(t0);
  // r = x − n·C1 − n·C2
  c.get(x).get(t0).f32x4Const(0.693359375).v('f32x4_mul').v('f32x4_sub').get(t0).f32x4Const(-2.12194440e-4).v('f32x4_mul').v('f32x4_sub').set(x);
  // p(r)
  const P = [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1];
  c.f32x4Const(P[0]).set(t1);
  for (const k of P.slice(1)) madd(c, relaxed, () => c.get(t1), () => c.get(x), () => c.f32x4Const(k)), c.set(t1);
  // e^r = p·r² + r + 1
  c.get(t1).get(x).get(x).v('f32x4_mul').v('f32x4_mul').get(x).v('f32x4_add').f32x4Const(1).v('f32x4_add');
  // · 2^n: (n + 127) << 23 as float bits
  c.get(t0).v('i32x4_trunc_sat_f32x4_s').i32x4Const(127).v('i32x4_add').i32(23).v('i32x4_shl').v('f32x4_mul');
}

/** Pushes erf(x) for the f32x4 in local `x` (clobbers x, t0, t1): numerics.ts's rational approximation. */
export function erf(c: Code, x: number, t0: number, t1: number, relaxed: boolean): void {
  c.get(x).f32x4Const(ERF_CLAMP).v('f32x4_min').f32x4Const(-ERF_CLAMP).v('f32x4_max').set(x);
  c.get(x).get(x).v('f32x4_mul').set(t0); // x²
  c.f32x4Const(ERF_NUMERATOR[6]).set(t1);
  for (let i = 5; i >= 0; i--) madd(c, relaxed, () => c.get(t1), () => c.get(t0), () => c.f32x4Const(ERF_NUMERATOR[i])), c.set(t1);
  c.get(x).get(t1).v('f32x4_mul').set(x); // numerator
  c.f32x4Const(ERF_DENOMINATOR[4]).set(t1);
  for (let i = 3; i >= 0; i--) madd(c, relaxed, () => c.get(t1), () => c.get(t0), () => c.f32x4Const(ERF_DENOMINATOR[i])), c.set(t1);
  c.get(x).get(t1).v('f32x4_div');
}

/**
 * The numeric recipes the encoder runtime shares between its plain-JS reference and its WASM
 * kernels, so both compute the same function:
 *   - erf as a rational function of x on [-4, 4] (Eigen's float erf; |error| < 3e-7, and
 *     erf(±4) is ±1 in float32 anyway), since GELU is the model's erf GELU;
 *   - dynamic activation quantisation per row to 7 bits: the int8 dot products of WASM relaxed
 *     SIMD (`i32x4.relaxed_dot_i8x16_i7x16_add_s`) are deterministic only while one operand lies in
 *     0..127, so each row x of a linear layer's input becomes q = round(x/s) + z in 0..127 with its
 *     own scale s = (max − min)/127 and zero point z. A scale per row (per token) rather than per
 *     tensor keeps a token with large activations from coarsening every other token's grid, and
 *     makes a text's vector independent of the texts batched with it.
 */

/** Odd numerator coefficients α1…α13 of erf(x) ≈ x·P(x²)/Q(x²). */
export const ERF_NUMERATOR = Object.freeze([-1.60960333262415e-2, -2.95459980854025e-3, -7.34990630326855e-4, -5.69250639462346e-5, -2.10102402082508e-6, 2.77068142495902e-8, -2.72614225801306e-10]);
/** Even denominator coefficients β0…β8. */
export const ERF_DENOMINATOR = Object.freeze([-1.42647390514189e-2, -7.37332916720468e-3, -1.68282697438203e-3, -2.13374055278905e-4, -1.45660718464996e-5]);
export const ERF_CLAMP = 4;

/** erf(x) by the shared rational approximation. */
export function erf(x: number): number {
  const c = Math.max(-ERF_CLAMP, Math.min(ERF_CLAMP, x));
  const x2 = c * c;
  let p = ERF_NUMERATOR[6];
  for (let i = 5; i >= 0; i--) p = p * x2 + ERF_NUMERATOR[i];
  let q = ERF_DENOMINATOR[4];
  for (let i = 3; i >= 0; i--) q = q * x2 + ERF_DENOMINATOR[i];
  return (c * p) / q;
}

/** The model's GELU: x·(1 + erf(x/√2))/2. */
export const gelu = (x: number): number => 0.5 * x * (1 + erf(x * Math.SQRT1_2));

/** Largest activation code (7 bits). */
export const ACT_MAX = 127;

/** Quantisation of one row: q = clamp(round(x/scale) + zero, 0, 127). */
export interface RowQuantization {
  scale: number;
  zero: number;
}

/**
 * Quantises `x` (one row) into `out` (codes 0..127) and returns its scale and zero point. The range
 * always includes 0, so a zero activation is exact and an all-zero row gets scale 1.
 */
export function quantizeRow(x: ArrayLike<number>, out: Uint8Array): RowQuantization {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < x.length; i++) {
    if (x[i] < lo) lo = x[i];
    if (x[i] > hi) hi = x[i];
  }
  // Rounded to float32 step by step, as the WASM kernel computes them.
  const scale = Math.fround(Math.fround(hi - lo) / ACT_MAX) || 1;
  const inv = Math.fround(1 / scale);
  const zero = Math.min(ACT_MAX, Math.max(0, roundEven(Math.fround(-lo * inv))));
  for (let i = 0; i < x.length; i++) out[i] = Math.min(ACT_MAX, Math.max(0, roundEven(Math.fround(x[i] * inv)) + zero));
  return { scale, zero };
}

/** Round half to even, as WASM's `f32x4.nearest` does. */
export function roundEven(v: number): number {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

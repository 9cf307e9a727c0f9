/**
 * The scan kernels as a WebAssembly SIMD module, emitted byte by byte here (a few hundred bytes),
 * so no compiler or .wasm asset is needed at build or run time: the bytes are the program.
 *
 *   hamming(q, base, n, bitStride, out)  out[i] (u16) = popcount(q XOR bits_i), bitStride bytes each
 *   dots(q, base, n, stride, out)        out[i] (i32) = Σ q16[j] · codes_i[j], stride int8 codes each
 *   within(out, n, cut, dst, max) → m    the rows i with out[i] (u16) ≤ cut, ascending, as u32 in
 *                                        dst (the first `max` of them); m = how many there are
 *
 * `q` of `dots` is the query quantized to int16 (stride lanes); both strides are multiples of 16.
 * The module imports its memory ("e" "m"), so every vector block gets a memory of its own and
 * nothing needs an allocator. Requires fixed-width SIMD (Chromium 91+, Firefox 89+, Safari 16.4+,
 * Node 16.4+); `wasmKernels()` is undefined where it does not validate (then the JS kernels run).
 */

import { compileModule, I32, leb, moduleBytes, V128, type WasmFunction } from '../../../util/wasm-module.ts';

// Instructions used below.
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const tee = (i: number) => [0x22, i];
const i32c = (v: number) => [0x41, ...leb(v)]; // small non-negative constants only
const ADD = 0x6a;
const SHL = 0x74;
const LT_U = 0x49;
const GE_U = 0x4f;
const simd = (op: number, ...imm: number[]) => [0xfd, ...leb(op), ...imm];
const V_LOAD = (offset = 0) => simd(0x00, 0x04, ...leb(offset)); // align 2^4
const V_XOR = simd(0x51);
const I8_POPCNT = simd(0x62);
const I8_ADD = simd(0x6e);
const I16_EXTADD_U8 = simd(0x7d);
const I32_EXTADD_U16 = simd(0x7f);
const I32_SPLAT = simd(0x11);
const I32_LANE = (l: number) => simd(0x1b, l);
const I32X4_ADD = simd(0xae);
const I16_EXT_LO_S8 = simd(0x87);
const I16_EXT_HI_S8 = simd(0x88);
const I32_DOT_I16 = simd(0xba);
const LE_U = 0x4d;
const I32_STORE = [0x36, 0x02, 0x00];
const I32_STORE16 = [0x3b, 0x01, 0x00];
const I32_LOAD16_U = [0x2f, 0x01, 0x00];

/** Sum of the four i32 lanes of local `v`. */
const laneSum = (v: number) => [...get(v), ...I32_LANE(0), ...get(v), ...I32_LANE(1), ADD, ...get(v), ...I32_LANE(2), ADD, ...get(v), ...I32_LANE(3), ADD];

// Parameters: 0 q, 1 base, 2 n, 3 stride, 4 out. Locals: 5 i, 6 j, 7 p, 8 acc (v128), 9 tmp (v128).
const [Q, BASE, N, STRIDE, OUT, I, J, P, ACC, TMP] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/** Outer loop over the n vectors; `inner` leaves the per-vector result, `store` writes it. */
function overVectors(inner: number[], store: number[]): number[] {
  return [
    ...get(BASE), ...set(P),
    0x02, 0x40, 0x03, 0x40, // block, loop
    ...get(I), ...get(N), GE_U, 0x0d, 1, // i >= n: exit
    ...i32c(0), ...I32_SPLAT, ...set(ACC),
    ...i32c(0), ...set(J),
    0x03, 0x40, ...inner, ...get(J), ...i32c(16), ADD, ...tee(J), ...get(STRIDE), LT_U, 0x0d, 0, 0x0b,
    ...store,
    ...get(P), ...get(STRIDE), ADD, ...set(P),
    ...get(I), ...i32c(1), ADD, ...set(I),
    0x0c, 0, 0x0b, 0x0b, // br loop; end loop; end block
  ];
}

const hammingBody = overVectors(
  // acc += popcnt(q[j..] ^ p[j..]) per byte lane (at most 8 per 16 bytes: safe for strides ≤ 496).
  [...get(ACC), ...get(Q), ...get(J), ADD, ...V_LOAD(), ...get(P), ...get(J), ADD, ...V_LOAD(), ...V_XOR, ...I8_POPCNT, ...I8_ADD, ...set(ACC)],
  [
    ...get(ACC), ...I16_EXTADD_U8, ...I32_EXTADD_U16, ...set(TMP),
    ...get(OUT), ...get(I), ...i32c(1), SHL, ADD, ...laneSum(TMP), ...I32_STORE16,
  ],
);

// within(out, n, cut, dst, max): parameters 0–4 as named; locals 5 i, 6 m.
const [W_OUT, W_N, W_CUT, W_DST, W_MAX, W_I, W_M] = [0, 1, 2, 3, 4, 5, 6];
const withinBody = [
  0x02, 0x40, 0x03, 0x40, // block, loop
  ...get(W_I), ...get(W_N), GE_U, 0x0d, 1, // i >= n: exit
  ...get(W_OUT), ...get(W_I), ...i32c(1), SHL, ADD, ...I32_LOAD16_U, ...get(W_CUT), LE_U,
  0x04, 0x40, // if out[i] <= cut
  ...get(W_M), ...get(W_MAX), LT_U,
  0x04, 0x40, // if m < max: dst[m] = i
  ...get(W_DST), ...get(W_M), ...i32c(2), SHL, ADD, ...get(W_I), ...I32_STORE,
  0x0b,
  ...get(W_M), ...i32c(1), ADD, ...set(W_M),
  0x0b,
  ...get(W_I), ...i32c(1), ADD, ...set(W_I),
  0x0c, 0, 0x0b, 0x0b, // br loop; end loop; end block
  ...get(W_M),
];

const dotsBody = overVectors(
  [
    ...get(P), ...get(J), ADD, ...V_LOAD(), ...set(TMP),
    ...get(ACC),
    ...get(TMP), ...I16_EXT_LO_S8, ...get(Q), ...get(J), ...i32c(1), SHL, ADD, ...V_LOAD(), ...I32_DOT_I16, ...I32X4_ADD,
    ...get(TMP), ...I16_EXT_HI_S8, ...get(Q), ...get(J), ...i32c(1), SHL, ADD, ...V_LOAD(16), ...I32_DOT_I16, ...I32X4_ADD,
    ...set(ACC),
  ],
  [...get(OUT), ...get(I), ...i32c(2), SHL, ADD, ...laneSum(ACC), 0x36, 0x02, 0x00], // i32.store
);

/** The module's bytes. */
export function kernelModuleBytes(): Uint8Array<ArrayBuffer> {
  const fn = (name: string, body: number[]): WasmFunction => ({ name, params: [I32, I32, I32, I32, I32], results: [], locals: [I32, I32, I32, V128, V128], body });
  const within: WasmFunction = { name: 'within', params: [I32, I32, I32, I32, I32], results: [I32], locals: [I32, I32], body: withinBody };
  return moduleBytes([fn('hamming', hammingBody), fn('dots', dotsBody), within]);
}

/** The exported kernels of one instance (bound to one memory). */
export interface KernelInstance {
  hamming(q: number, base: number, n: number, bitStride: number, out: number): void;
  dots(q: number, base: number, n: number, stride: number, out: number): void;
  within(out: number, n: number, cut: number, dst: number, max: number): number;
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, or undefined where WebAssembly SIMD is unavailable (compiled once). */
export function kernelModule(): WebAssembly.Module | undefined {
  if (compiled === undefined) {
    compiled = compileModule(kernelModuleBytes()) ?? null; // null also under a CSP without 'wasm-unsafe-eval'
  }
  return compiled ?? undefined;
}

/** Instantiates the kernels over `memory` (synchronously: the module is tiny). */
export function instantiateKernels(memory: WebAssembly.Memory): KernelInstance | undefined {
  const m = kernelModule();
  if (!m) return undefined;
  return new WebAssembly.Instance(m, { e: { m: memory } }).exports as unknown as KernelInstance;
}

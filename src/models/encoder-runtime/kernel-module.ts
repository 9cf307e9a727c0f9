/**
 * The encoder's WebAssembly module, generated at load time for the model's sizes (so widths are
 * constants in the code), in the fastest variant that runs correctly here: each GEMM variant
 * (gemm.ts) that `WebAssembly.validate` accepts and whose self-test passes (Node 20's baseline
 * compiler, for one, computes `i32x4.relaxed_dot_i8x16_i7x16_add_s` wrongly) is timed on a small
 * product, and the fastest kept (on x86 with VNNI the fused relaxed dot is one instruction; without
 * it the two-step form is cheaper; without relaxed SIMD only the int16 one runs). Undefined where
 * none compiles (no SIMD, or a CSP without 'wasm-unsafe-eval'), and the caller falls back.
 */
import { compileModule, moduleBytes } from '../../util/wasm-module.ts';
import { attentionPrepFunction, attentionPvFunction } from './kernels/attention.ts';
import { columnSums, gemmFunction, gemmName, packWeights, type DotKind } from './kernels/gemm.ts';
import { geluFunction, layerNormFunction, quantizeFunction } from './kernels/rows.ts';
import type { EncoderShape } from './weights-file.ts';

export interface EncoderKernels {
  module: WebAssembly.Module;
  dot: DotKind;
  /** Milliseconds of the timing product per variant that passed its self-test (empty when only one was tried). */
  timings?: Partial<Record<DotKind, number>>;
}

/** For logs: `WASM relaxed SIMD (relaxed16 dot)` / `WASM SIMD`. */
export function describeKernels(k: Pick<EncoderKernels, 'dot'>): string {
  return k.dot === 'simd' ? 'WASM SIMD' : `WASM relaxed SIMD (${k.dot} dot)`;
}

/** The module's bytes for `shape` in variant `dot`. */
export function encoderModuleBytes(shape: EncoderShape, dot: DotKind): Uint8Array<ArrayBuffer> {
  const relaxed = dot !== 'simd';
  const widths = [...new Set([shape.hidden, shape.intermediate])];
  // The attention scores are a GEMM of the head's width (kernels/attention.ts).
  const gemmWidths = [...new Set([...widths, shape.hidden / shape.heads])];
  return moduleBytes([
    ...gemmWidths.map((k) => gemmFunction(k, dot)),
    ...widths.map((k) => quantizeFunction(k)),
    layerNormFunction(shape.hidden),
    geluFunction(relaxed),
    attentionPrepFunction(shape.hidden, shape.heads),
    attentionPvFunction(shape.hidden, shape.heads, relaxed),
  ]);
}

/**
 * The compiled GEMM of `module` on a small product: a function that runs it once, or undefined when
 * it computes the product wrongly (see the file comment).
 */
function checkedProduct(module: WebAssembly.Module, K: number): (() => void) | undefined {
  const N = 64;
  const rows = 64;
  const memory = new WebAssembly.Memory({ initial: 1 });
  const exports = new WebAssembly.Instance(module, { e: { m: memory } }).exports as Record<string, (...a: number[]) => void>;
  const w = Int8Array.from({ length: K * N }, (_, i) => ((i * 37) % 255) - 127);
  const x = Uint8Array.from({ length: rows * K }, (_, i) => (i * 13) % 128);
  const X = 64;
  const W = X + rows * K;
  const OUT = W + K * N;
  const RS = OUT + rows * N * 4;
  const RZ = RS + rows * 4;
  const CS = RZ + rows * 4;
  const CSC = CS + N * 4;
  const B = CSC + N * 4;
  if (B + N * 4 > memory.buffer.byteLength) memory.grow(Math.ceil((B + N * 4 - memory.buffer.byteLength) / 65536));
  new Uint8Array(memory.buffer, X).set(x);
  new Int8Array(memory.buffer, W).set(packWeights(w, K, N));
  new Float32Array(memory.buffer, RS, rows).fill(1);
  new Int32Array(memory.buffer, CS, N).set(columnSums(w, K, N));
  new Float32Array(memory.buffer, CSC, N).fill(1);
  const gemm = () => exports[gemmName(K)](X, rows, W, N, OUT, RS, RZ, CS, CSC, B);
  gemm();
  const out = new Float32Array(memory.buffer, OUT, rows * N);
  for (let m = 0; m < rows; m++) {
    for (let n = 0; n < N; n++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += x[m * K + k] * w[k * N + n];
      if (out[m * N + n] !== s) return undefined;
    }
  }
  return gemm;
}

/**
 * Milliseconds per call of each product, best of several samples taken in turn: a load spike then
 * slows every variant's sample of that round rather than only the one being timed (timed one after
 * the other, the fastest variant lost to relaxed16 under a loaded test run), and the first samples
 * may run before the optimising compiler has finished.
 */
function timeInTurn<T extends string>(products: ReadonlyMap<T, () => void>): Map<T, number> {
  // Each sample repeats the product for at least 2 ms: without cross-origin isolation the page's
  // clock ticks in 100 µs steps, about the length of one product, and a single call read off it
  // picked the slower variant (13 against 19.6 passages/s in one run).
  const reps = new Map<T, number>();
  for (const [name, run] of products) {
    let n = 1;
    for (let t0 = performance.now(); performance.now() - t0 < 2; n++) run();
    reps.set(name, n);
  }
  const best = new Map<T, number>([...products.keys()].map((name) => [name, Infinity]));
  for (let round = 0; round < 5; round++) {
    for (const [name, run] of products) {
      const n = reps.get(name)!;
      const t0 = performance.now();
      for (let r = 0; r < n; r++) run();
      best.set(name, Math.min(best.get(name)!, (performance.now() - t0) / n));
    }
  }
  return best;
}

let cache: Map<string, EncoderKernels | null> | undefined;

/** The kernels for `shape` (compiled once per shape), or undefined where WebAssembly SIMD cannot run here. */
export function encoderKernels(shape: EncoderShape, only?: DotKind): EncoderKernels | undefined {
  cache ??= new Map();
  const key = `${JSON.stringify(shape)}|${only ?? ''}`;
  if (!cache.has(key)) {
    const modules = new Map<DotKind, WebAssembly.Module>();
    const products = new Map<DotKind, () => void>();
    for (const dot of only ? [only] : (['relaxed', 'relaxed16', 'simd'] as const)) {
      const module = compileModule(encoderModuleBytes(shape, dot));
      const product = module && checkedProduct(module, shape.hidden);
      if (module && product) {
        modules.set(dot, module);
        products.set(dot, product);
      }
    }
    const timings: Partial<Record<DotKind, number>> = Object.fromEntries(timeInTurn(products));
    const fastest = [...modules.keys()].sort((a, b) => timings[a]! - timings[b]!)[0];
    cache.set(key, fastest ? { module: modules.get(fastest)!, dot: fastest, timings } : null);
  }
  return cache.get(key) ?? undefined;
}

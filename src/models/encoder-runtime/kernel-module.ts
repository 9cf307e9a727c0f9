/**
 * The encoder's WebAssembly module, generated at load time for the model's sizes (so widths are
 * constants in the code), in the fastest variant that runs correctly here: each GEMM variant
 * (gemm.ts) that `WebAssembly.validate` accepts and whose self-test passes (Node 20's baseline
 * compiler, for one, computes `i32x4.relaxed_dot_i8x16_i7x16_add_s` wrongly) is timed on a small
 * product, and the fastest kept (on x86 with VNNI the fused relaxed dot is one instruction; without
 * it the two-step form is cheaper; without relaxed SIMD only the int16 one runs). Undefined where
 * none compiles (no SIMD, or a CSP without 'wasm-unsafe-eval'), and the caller falls back.
 */
import { instantiate, ModuleCache } from '../../util/wasm-compile.ts';
import { moduleBytes } from '../../util/wasm-module.ts';
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
  const exports = instantiate<Record<string, (...a: number[]) => void>>(module, memory);
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

/** Every variant's module, by the sizes its code is generated for. */
const modules = new ModuleCache<{ shape: EncoderShape; dot: DotKind }>(
  ({ shape, dot }) => encoderModuleBytes(shape, dot),
  ({ shape, dot }) => `${shape.hidden}/${shape.intermediate}/${shape.heads}/${dot}`,
);

/** The variant chosen per shape (and `only`): chosen once. */
const chosen = new Map<string, Promise<EncoderKernels | undefined>>();

/**
 * The kernels for `shape`, or undefined where WebAssembly SIMD cannot run here. The variants are
 * compiled asynchronously (13–21 KB each, on the thread that loads the model: the engine's worker
 * in the app), then self-tested and timed in turn.
 */
export function encoderKernels(shape: EncoderShape, only?: DotKind): Promise<EncoderKernels | undefined> {
  const key = `${JSON.stringify(shape)}|${only ?? ''}`;
  let k = chosen.get(key);
  if (!k) {
    k = chooseKernels(shape, only);
    chosen.set(key, k);
    k.catch(() => chosen.delete(key)); // a self-test that threw is tried again next time
  }
  return k;
}

async function chooseKernels(shape: EncoderShape, only?: DotKind): Promise<EncoderKernels | undefined> {
  const dots = only ? [only] : (['relaxed', 'relaxed16', 'simd'] as const);
  const compiled = await Promise.all(dots.map((dot) => modules.load({ shape, dot })));
  const passed = new Map<DotKind, WebAssembly.Module>();
  const products = new Map<DotKind, () => void>();
  dots.forEach((dot, i) => {
    const module = compiled[i];
    const product = module && checkedProduct(module, shape.hidden);
    if (module && product) {
      passed.set(dot, module);
      products.set(dot, product);
    }
  });
  const timings: Partial<Record<DotKind, number>> = Object.fromEntries(timeInTurn(products));
  const fastest = [...passed.keys()].sort((a, b) => timings[a]! - timings[b]!)[0];
  return fastest ? { module: passed.get(fastest)!, dot: fastest, timings } : undefined;
}

/**
 * The encoder's WebAssembly module, generated at load time for the model's sizes (so widths are
 * constants in the code), in the best variant this runtime runs correctly: relaxed SIMD when
 * `WebAssembly.validate` accepts it and a self-test of its int8 dot product passes (Node 20's
 * baseline compiler, for one, computes `i32x4.relaxed_dot_i8x16_i7x16_add_s` wrongly), else
 * fixed-width SIMD; undefined where neither compiles (no SIMD, or a CSP without
 * 'wasm-unsafe-eval'), and the caller falls back.
 */
import { compileModule, moduleBytes } from '../../util/wasm-module.ts';
import { attentionFunction } from './kernels/attention.ts';
import { columnSums, gemmFunction, gemmName, packWeights, type DotKind } from './kernels/gemm.ts';
import { geluFunction, layerNormFunction, quantizeFunction } from './kernels/rows.ts';
import type { EncoderShape } from './weights-file.ts';

export interface EncoderKernels {
  module: WebAssembly.Module;
  dot: DotKind;
}

/** The module's bytes for `shape` in variant `dot`. */
export function encoderModuleBytes(shape: EncoderShape, dot: DotKind): Uint8Array<ArrayBuffer> {
  const relaxed = dot === 'relaxed';
  const widths = [...new Set([shape.hidden, shape.intermediate])];
  return moduleBytes([
    ...widths.map((k) => gemmFunction(k, dot)),
    ...widths.map((k) => quantizeFunction(k)),
    layerNormFunction(shape.hidden),
    geluFunction(relaxed),
    attentionFunction(shape.hidden, shape.heads, relaxed),
  ]);
}

/** Whether the compiled GEMM of `module` computes a small product exactly (see the file comment). */
function selfTest(module: WebAssembly.Module, K: number): boolean {
  const N = 8;
  const rows = 4;
  const memory = new WebAssembly.Memory({ initial: 1 });
  const exports = new WebAssembly.Instance(module, { e: { m: memory } }).exports as Record<string, (...a: number[]) => void>;
  const w = Int8Array.from({ length: K * N }, (_, i) => ((i * 37) % 255) - 127);
  const x = Uint8Array.from({ length: rows * K }, (_, i) => (i * 13) % 128);
  const [X, W, OUT, RS, RZ, CS, CSC, B] = [0, 8192, 24576, 25600, 25616, 25632, 25664, 25696];
  if (rows * K > W || K * N > OUT - W) return false;
  new Uint8Array(memory.buffer, X).set(x);
  new Int8Array(memory.buffer, W).set(packWeights(w, K, N));
  new Float32Array(memory.buffer, RS, rows).fill(1);
  new Int32Array(memory.buffer, CS, N).set(columnSums(w, K, N));
  new Float32Array(memory.buffer, CSC, N).fill(1);
  exports[gemmName(K)](X, rows, W, N, OUT, RS, RZ, CS, CSC, B);
  const out = new Float32Array(memory.buffer, OUT, rows * N);
  for (let m = 0; m < rows; m++) {
    for (let n = 0; n < N; n++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += x[m * K + k] * w[k * N + n];
      if (out[m * N + n] !== s) return false;
    }
  }
  return true;
}

let cache: Map<string, EncoderKernels | null> | undefined;

/** The kernels for `shape` (compiled once per shape), or undefined where WebAssembly SIMD cannot run here. */
export function encoderKernels(shape: EncoderShape, only?: DotKind): EncoderKernels | undefined {
  cache ??= new Map();
  const key = `${JSON.stringify(shape)}|${only ?? ''}`;
  if (!cache.has(key)) {
    let found: EncoderKernels | null = null;
    for (const dot of only ? [only] : (['relaxed', 'simd'] as const)) {
      const module = compileModule(encoderModuleBytes(shape, dot));
      if (module && selfTest(module, shape.hidden)) {
        found = { module, dot };
        break;
      }
    }
    cache.set(key, found);
  }
  return cache.get(key) ?? undefined;
}

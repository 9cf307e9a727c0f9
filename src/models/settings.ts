/**
 * The one documented settings object for the embedding model. Defaults come from
 * `detectModelSupport()`; callers override single fields.
 */
import { DEFAULT_DECISION } from './catalog.ts';
import type { EmbedDevice, ModelLoadListener } from './progress.ts';
import type { ModelRuntimeSupport } from './support.ts';

/**
 * Model folder built by `npm run models` (scripts/build-models.ts) that runs when nothing names
 * another: decided in one place, catalog.ts `DEFAULT_DECISION` (measured on the dev sets).
 */
export const DEFAULT_MODEL: string = DEFAULT_DECISION.model;
/** URL path the app serves public/models/ under. */
export const DEFAULT_MODEL_BASE = '/models/';
/** URL path the app serves the onnxruntime-web wasm/mjs files under (see docs/models.md). */
export const DEFAULT_WASM_PATHS = '/ort/';
/**
 * The onnxruntime-web files the app must serve under `wasmPaths` (copy them from
 * node_modules/onnxruntime-web/dist/): the factory module and its binary.
 */
export const ORT_WASM_FILES = Object.freeze(['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'] as const);

/**
 * Texts per inference call; bounds padding waste and memory for long chunks, and how long a query
 * waits behind a document batch in flight (≈ 1 s for 8 passages of a 6-layer encoder on WASM).
 */
export const DEFAULT_BATCH_SIZE = 8;

/**
 * Which encoder runtime runs the model: `kernels` = our own WASM kernels (src/models/encoder-runtime/,
 * int8 models built by `npm run models`), `transformers.js` = onnxruntime-web (WebGPU or WASM) /
 * onnxruntime-node, `auto` = ours where they cover the model, measured against transformers.js on
 * WebGPU when a real GPU is there (encoder-choice.ts).
 */
export type EncoderRuntimeChoice = 'auto' | 'kernels' | 'transformers.js';

/** Weight precision: `q8` = onnx/model_quantized.onnx (≈10 MB), `fp32` = onnx/model.onnx (≈40 MB). */
export type EmbedDtype = 'fp32' | 'q8';

export interface EmbedderSettings {
  /** Folder name under `modelBase`. */
  model: string;
  /** Where model folders live: a URL path in the browser, a filesystem path in Node. Must end with '/'. */
  modelBase: string;
  /** `auto`: WebGPU when an adapter exists, else WASM (browser); `cpu` in Node. A forced device never falls back. */
  device: 'auto' | EmbedDevice;
  dtype: EmbedDtype;
  /** Browser only: prefix for onnxruntime-web's .wasm/.mjs files, on the app's own origin. */
  wasmPaths: string;
  batchSize: number;
  /** Node only: onnxruntime-node's intra-op threads (its default when absent). The browser's WASM threads: see `wasmThreads`. */
  threads?: number;
  /** The encoder runtime (default `auto`). */
  runtime?: EncoderRuntimeChoice;
  /** Our runtime's encoder workers (0 = in the calling thread); default one per core, at most 4. */
  encoderWorkers?: number;
  /** Load events (downloads, device choice). */
  onProgress?: ModelLoadListener;
  /**
   * Testing only: loading on these devices fails as if the device could not run the model, so the
   * WebGPU → WASM fallback can be exercised where WebGPU works (models config `failDevices`).
   */
  failDevices?: readonly EmbedDevice[];
}

/** Defaults for this runtime. In Node `modelBase` must be overridden with a filesystem path. */
export function defaultEmbedderSettings(_support: Readonly<ModelRuntimeSupport>): EmbedderSettings {
  return {
    model: DEFAULT_MODEL,
    modelBase: DEFAULT_MODEL_BASE,
    device: 'auto',
    dtype: 'q8',
    wasmPaths: DEFAULT_WASM_PATHS,
    batchSize: DEFAULT_BATCH_SIZE,
  };
}

/** Devices to try, in order, for the given settings and runtime. */
export function deviceCandidates(settings: EmbedderSettings, support: Readonly<ModelRuntimeSupport>): EmbedDevice[] {
  if (settings.device !== 'auto') return [settings.device];
  if (support.node) return ['cpu'];
  // A software (fallback) adapter is far slower than WASM: `auto` keeps to WASM there.
  return support.webgpu && !support.webgpuSoftware ? ['webgpu', 'wasm'] : ['wasm'];
}

/** The ONNX file transformers.js loads for a dtype (relative to the model folder). */
export const ONNX_FILE: Readonly<Record<EmbedDtype, string>> = Object.freeze({
  fp32: 'onnx/model.onnx',
  q8: 'onnx/model_quantized.onnx',
});

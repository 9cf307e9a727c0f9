/**
 * Runtime support relevant to model loading, detected once (WebGPU needs an async adapter
 * request) and frozen.
 */

/** What this runtime can do. */
export interface ModelRuntimeSupport {
  /** Node.js (filesystem model path, onnxruntime-node). */
  readonly node: boolean;
  /** `navigator.gpu.requestAdapter()` returned an adapter. */
  readonly webgpu: boolean;
  /**
   * That adapter is a fallback adapter (`info.isFallbackAdapter`: a CPU emulation such as
   * SwiftShader, which headless Chromium without a GPU offers). Measured here: MiniLM on it took
   * over 30 s for 16 passages, where WASM embeds ~17 per second, so `auto` skips it.
   */
  readonly webgpuSoftware?: boolean;
}

let detected: Promise<Readonly<ModelRuntimeSupport>> | undefined;

/** Detects support on first call; later calls return the same frozen object. */
export function detectModelSupport(): Promise<Readonly<ModelRuntimeSupport>> {
  return (detected ??= detect().then((s) => Object.freeze(s)));
}

async function detect(): Promise<ModelRuntimeSupport> {
  // Not `typeof navigator`: Node ≥ 21 has a navigator global too.
  const g = globalThis as { process?: { versions?: { node?: string } }; document?: unknown; WorkerGlobalScope?: unknown };
  const node = !!g.process?.versions?.node && g.document === undefined && g.WorkerGlobalScope === undefined;
  let webgpu = false;
  let webgpuSoftware = false;
  type Adapter = { info?: { isFallbackAdapter?: boolean }; isFallbackAdapter?: boolean } | null;
  const gpu = (globalThis.navigator as (Navigator & { gpu?: { requestAdapter(): Promise<Adapter> } }) | undefined)?.gpu;
  if (!node && gpu) {
    try {
      const adapter = await gpu.requestAdapter();
      webgpu = adapter != null;
      // `info.isFallbackAdapter` in current Chromium; the older attribute on the adapter itself.
      webgpuSoftware = adapter?.info?.isFallbackAdapter === true || adapter?.isFallbackAdapter === true;
    } catch {
      webgpu = false;
    }
  }
  return { node, webgpu, webgpuSoftware };
}

/**
 * WASM inference threads: every core (at most 4) when the page is cross-origin isolated (COOP +
 * COEP, which SharedArrayBuffer needs), else 1. onnxruntime-web's own default is half the cores,
 * i.e. one thread on a 2-core machine, which halves encoder ingest there.
 */
export function wasmThreads(g: { crossOriginIsolated?: boolean; navigator?: { hardwareConcurrency?: number } } = globalThis): number {
  const isolated = g.crossOriginIsolated === true;
  const cores = g.navigator?.hardwareConcurrency ?? 1;
  return isolated ? Math.max(1, Math.min(4, cores)) : 1;
}

/** The default number of encoder workers (our kernels' runtime, src/models/encoder-runtime): one per core, at most 4, where workers exist; 0 = the loading thread. */
export function defaultEncoderWorkers(support: Readonly<ModelRuntimeSupport>): number {
  if (support.node || typeof Worker === 'undefined') return 0;
  const cores = (globalThis.navigator as { hardwareConcurrency?: number } | undefined)?.hardwareConcurrency ?? 1;
  return Math.max(1, Math.min(4, cores));
}

/** The log line for the WebGPU choice that `device: 'auto'` makes here (src/models/settings.ts deviceCandidates). */
export function describeWebGpu(support: Readonly<ModelRuntimeSupport>): string {
  if (!support.webgpu) return 'WebGPU: no adapter here (navigator.gpu absent, or it gave none); the model runs on WASM';
  if (support.webgpuSoftware) return 'WebGPU: only a software fallback adapter (no GPU), slower than WASM; the model runs on WASM';
  return 'WebGPU: a hardware adapter; the model may run on it (timed against our WASM kernels where they cover the model)';
}

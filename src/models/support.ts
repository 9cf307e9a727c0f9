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

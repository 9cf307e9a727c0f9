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
  const gpu = (globalThis.navigator as (Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }) | undefined)?.gpu;
  if (!node && gpu) {
    try {
      webgpu = (await gpu.requestAdapter()) != null;
    } catch {
      webgpu = false;
    }
  }
  return { node, webgpu };
}

/**
 * The device loop shared by the embedder and the cross-encoder: try each candidate device in
 * order (WebGPU → WASM under `auto`), where a try includes a first inference (WebGPU shader
 * compilation and unsupported kernels fail there, not at session creation), and report the
 * device finally used — with `fallbackFrom`/`reason` when an earlier try failed.
 */
import type { EmbedDevice, ModelLoadEvent } from './progress.ts';
import { deviceCandidates, type EmbedderSettings } from './settings.ts';
import type { ModelRuntimeSupport } from './support.ts';

/** Runs `attempt` per candidate device until one succeeds; rejects with the last error. */
export async function loadOnFirstDevice<T>(
  name: string,
  settings: EmbedderSettings,
  support: Readonly<ModelRuntimeSupport>,
  emit: (e: ModelLoadEvent) => void,
  attempt: (device: EmbedDevice) => Promise<T>,
): Promise<{ value: T; device: EmbedDevice }> {
  const candidates = deviceCandidates(settings, support);
  const skipped = settings.device === 'auto' && support.webgpu && support.webgpuSoftware === true;
  let lastError: unknown;
  for (const [i, device] of candidates.entries()) {
    try {
      if (settings.failDevices?.includes(device)) throw new Error(`simulated ${device} failure (failDevices test setting)`);
      const value = await attempt(device);
      emit({ status: 'device', name, device, ...(i > 0 ? { fallbackFrom: candidates[0], reason: errorMessage(lastError) } : {}), ...(skipped ? { skippedSoftwareGpu: true as const } : {}) });
      return { value, device };
    } catch (e) {
      lastError = e;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(`cannot load ${name}: ${errorMessage(lastError)}`);
}

/** A listener wrapper that never lets a listener's exception fail the load. */
export function safeEmitter(listener: ((e: ModelLoadEvent) => void) | undefined): (e: ModelLoadEvent) => void {
  return (e) => {
    try {
      listener?.(e);
    } catch {
      // a listener's failure must not fail the load
    }
  };
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

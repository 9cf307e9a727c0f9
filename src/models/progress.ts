/**
 * Model-loading events, one union keyed on `status`: transformers.js's own download/load events
 * plus `device`, emitted once the device that will run the model is settled (after any fallback).
 */
import type { ProgressInfo } from '@huggingface/transformers';

/** Where inference runs. `cpu` is onnxruntime-node (Node only). */
export type EmbedDevice = 'webgpu' | 'wasm' | 'cpu';

/** Emitted when the embedder has chosen its device; `fallbackFrom` is set when a try failed. */
export interface DeviceChosenInfo {
  status: 'device';
  name: string;
  device: EmbedDevice;
  fallbackFrom?: EmbedDevice;
  /** Why the preferred device was abandoned (the error message). */
  reason?: string;
  /** `auto` passed over WebGPU because its only adapter is a software fallback (support.ts). */
  skippedSoftwareGpu?: true;
}

/** Every event `onProgress` receives while a model loads. */
export type ModelLoadEvent = ProgressInfo | DeviceChosenInfo;

/** Listener for ModelLoadEvent; must not throw (exceptions are swallowed). */
export type ModelLoadListener = (event: ModelLoadEvent) => void;

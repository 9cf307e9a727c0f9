/**
 * The control plane between page and worker (carried by comlink). RCP traffic never goes through
 * it: `connect()` only hands over a fresh MessagePort, which then carries RCP text frames.
 */
import type { ModelStatus } from '../models/status.ts';

export interface WorkerStatus {
  /** The engine opened its storage and can serve requests. */
  ready: boolean;
  /** Why the engine could not open, if it could not. */
  error?: string;
  /** Sessions whose port is open (closed ports are noticed where the browser reports it). */
  sessions: number;
  documents: number;
  chunks: number;
  indexVersion?: string;
  /** Dense model state, when a model is configured. */
  model?: ModelStatus;
}

/**
 * How the worker starts its engine; sent once, before the first session (`configure`). Every field
 * is optional: the playground sends none and gets `/models/`, `/ort/`, database `rcp-engine`.
 */
export interface EngineConfig {
  /** Absolute URL (or root path) of the models folder, ending in '/'. Default `/models/`. */
  modelBase?: string;
  /** Absolute URL (or root path) of onnxruntime-web's .mjs/.wasm files, ending in '/'. Default `/ort/`. */
  wasmPaths?: string;
  /** IndexedDB database name (also names the cross-tab lock and channel). Default `rcp-engine`. */
  database?: string;
  /** Where the dense model runs: `auto` (WebGPU, else WASM), `webgpu` or `wasm`. Default: the models config. */
  device?: 'auto' | 'webgpu' | 'wasm';
  /** `false` runs without dense models (sparse retrieval only) and fetches no model files. Default true. */
  models?: boolean;
}

export interface ControlApi {
  /**
   * Starts the engine with these settings. Only before the engine has started: the first
   * `connect()`/`status()` starts it with the defaults, after which `configure` rejects.
   */
  configure(config: EngineConfig): Promise<void>;
  /** A new, uninitialized RCP session on its own port. */
  connect(): Promise<MessagePort>;
  status(): Promise<WorkerStatus>;
}

/** What bridge.html exposes to the stdio/HTTP bridges: raw session ports, frames relayed untouched. */
export interface RcpBridge {
  open(): Promise<number>;
  send(sid: number, frame: string): void;
  close(sid: number): void;
}

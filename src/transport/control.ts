/**
 * The control plane between page and worker (carried by comlink). RCP traffic never goes through
 * it: `connect()` only hands over a fresh MessagePort, which then carries RCP text frames. The
 * status and bridge shapes are wire types in src/protocol/control.ts.
 */
import type { IndexLoss, WorkerStatus } from '../protocol/control.ts';
import type { AvailableModel } from '../protocol/control.ts';

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
  /**
   * URL path (ending in '/') of precomputed document vectors, `vectors-<model folder>.bin`
   * (src/models/precomputed.ts), used instead of inference for the texts they cover, e.g. the
   * playground's `/sample/` (its sample corpus). Default: none.
   */
  vectorsBase?: string;
  /**
   * Per-method request deadlines in ms (§13.1; src/server/deadlines.ts), e.g. `{ embed: 300000 }`
   * for a slow device (software WebGPU in tests). Default: the server's own.
   */
  deadlines?: Record<string, number>;
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
  /**
   * Settles once the engine opened its index and compared it with the record kept outside the
   * database (src/storage/witness.ts): the loss found (or an earlier one not yet dismissed), if any.
   */
  indexLoss(): Promise<IndexLoss | undefined>;
  /** Forgets the reported loss (the person has seen it); the record then describes the index as it is. */
  dismissIndexLoss(): Promise<void>;
  /** The built-in models this app serves, and the folder the worker runs. */
  models(): Promise<{ current?: string; available: AvailableModel[] }>;
  /**
   * Stores the person's model choice (undefined = /models/config.json's) for this browser; it takes
   * effect when the worker restarts, and other tabs are told to restart too.
   */
  chooseModel(embedder: string | undefined): Promise<void>;
}

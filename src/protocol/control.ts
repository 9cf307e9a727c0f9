/**
 * The control plane between page and worker, carried by comlink: how the worker starts
 * (`EngineConfig`), what it offers (`ControlApi`), its status, and the bridge page's relay. RCP
 * traffic never goes through it: `connect()` only hands over a fresh MessagePort, which then carries
 * RCP text frames. Types only.
 */

/** What the page and status displays see of the models. */
export interface ModelStatus {
  name: string;
  identity: string;
  state: 'loading' | 'ready' | 'failed';
  device?: string;
  /** 0..1 while files load. */
  progress?: number;
  error?: string;
  /** Load time of the embedder (files + session + warm-up inference), once ready. */
  loadMs?: number;
  /** onnxruntime-web's WASM inference threads (more than 1 only when the page is cross-origin isolated). */
  threads?: number;
  /** The encoder runtime, e.g. `rcp-kernels (WASM relaxed SIMD, 2 workers)` or `transformers.js (webgpu)`. */
  runtime?: string;
  /** The cross-encoder, when one is configured and loaded. */
  crossEncoder?: { name: string; identity: string; device: string; loadMs: number };
  /** The learned-sparse encoder, once loaded (on the first `embed/sparse`). */
  sparseEncoder?: { name: string; identity: string; device: string; loadMs: number };
}

/**
 * What the index holds, as the record kept outside its database remembers it (src/storage/witness.ts):
 * enough to tell at the next open that the database is missing, recreated or older.
 */
export interface IndexSummary {
  /** The database incarnation (a random id its first manifest got; a recreated database has another). */
  storeId: string;
  indexVersion: number;
  documents: number;
  chunks: number;
  /** Identity of the dense model the engine ran, if any. */
  model?: string;
}

/** An index found smaller than its record at an open; reported until dismissed (or the index is cleared). */
export interface IndexLoss {
  /** What the record said the index held. */
  expected: IndexSummary;
  /** What the database held when the loss was found. */
  found: IndexSummary;
  /** Why it counts as lost (a sentence). */
  reason: string;
  /** ISO time of the open that found it. */
  detectedAt: string;
  /** Chromium said it discarded the database (its `dataLoss` on upgrade), with its message. */
  browser?: string;
}

/** An index rebuilt (or brought forward) at an open from the recovery log kept outside its database (src/storage/recovery). */
export interface IndexRestored {
  /** 'restore': the database was rebuilt whole; 'catch-up': the changes it lacked were applied. */
  action: 'restore' | 'catch-up';
  /** What the index holds now, as the log gave it back. */
  documents: number;
  chunks: number;
  indexVersion: number;
  /** Why the database needed it (a sentence). */
  reason: string;
  /** ISO time of the open that did it. */
  detectedAt: string;
}

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
  /** Live chunks not yet embedded by the current model (background embedding or re-embedding after a switch). */
  pendingVectors?: number;
  /** Chunks embedded ahead of their segment's commit: dense search sees them, the database not yet. */
  unstoredVectors?: number;
  /** Dense model state, when a model is configured. */
  model?: ModelStatus;
  /** Documents the index lost since its record was written (src/storage/witness.ts), until dismissed. */
  indexLoss?: IndexLoss;
  /** The record of what the index held was unreadable at this open, so a loss cannot be told (a sentence), until dismissed. */
  indexWarning?: string;
  /** The index was restored from its recovery log at this open, until dismissed. */
  indexRestored?: IndexRestored;
}

/** What bridge.html exposes to the stdio/HTTP bridges: raw session ports, frames relayed untouched. */
export interface RcpBridge {
  /** Waits until the engine opened its index and compared it with its record: the loss found, if any. */
  indexLoss(): Promise<IndexLoss | undefined>;
  /** Waits for the same comparison: why it could not be made (the record was unreadable), if so. */
  indexWarning(): Promise<string | undefined>;
  open(): Promise<number>;
  send(sid: number, frame: string): void;
  close(sid: number): void;
}

/** A built-in model the worker can switch to, as the playground's model picker shows it. */
export interface AvailableModel {
  /** Folder under the models base. */
  name: string;
  /** One line for people. */
  label: string;
  /** The languages it was trained for (catalog), when stated. */
  languages?: string;
  dimension: number;
  license: string;
  /** Bytes of the ONNX file for `dtype` (what a switch downloads, besides the small tokenizer). */
  bytes?: number;
  dtype: 'fp32' | 'q8';
  minSimilarity?: number;
  backgroundEmbedding?: boolean;
  /** Maps a text and its translation close together (a query finds passages in other languages). */
  crossLingual?: boolean;
  /** Macro nDCG@10 over the dev collections, per mode, at the default fusion (docs/models.md). */
  quality?: { sparse: number; dense: number; hybrid: number };
}

/** A bundle file the page fetched ahead (src/bundle/prime.ts): its absolute URL and its bytes as served. */
export interface PrimedFile {
  url: string;
  bytes: ArrayBuffer;
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
  /**
   * URL path (ending in '/') of precomputed document vectors, `vectors-<model folder>.bin`
   * (src/models/precomputed.ts), used instead of inference for the texts they cover, e.g. the
   * playground's `/sample/` (its sample corpus). Default: none.
   */
  vectorsBase?: string;
  /**
   * Per-method request deadlines in ms (§13.1; `DEFAULT_DEADLINES` in src/server/rcp-session.ts), e.g. `{ embed: 300000 }`
   * for a slow device (software WebGPU in tests). Default: the server's own.
   */
  deadlines?: Record<string, number>;
  /**
   * Absolute URL of a static index bundle (`rcp-in-page index` output: its folder or its
   * rcp-bundle.json). The worker then serves that bundle, read-only, instead of its IndexedDB
   * index, with the model the bundle was built with. Default: none.
   */
  bundle?: string;
  /**
   * The bundle's first files, fetched by the page while this worker's script loaded
   * (src/bundle/prime.ts); checked like fetched ones. Default: none (the worker fetches them).
   */
  bundlePrimed?: PrimedFile[];
  /** `false` runs without dense models (sparse retrieval only) and fetches no model files. Default true. */
  models?: boolean;
  /**
   * The dense model folder to run, over the choice stored in this browser and config.json's
   * `embedder`; `auto` = the default (config.json's, no stored choice). A name that is not built
   * (src/models/built-models.ts) makes the start fail with the list of built ones: nothing is
   * opened or indexed. A model other than the one the index was embedded with re-embeds it in the
   * background. Default: the stored choice, else config.json's.
   */
  model?: string;
  /** With `model`: store it as this browser's choice (the bridges: a profile remembers its model; `auto` forgets it). */
  rememberModel?: boolean;
  /**
   * Remote RCP engines (over HTTP) this worker federates (src/server/aggregator.ts): a `retrieve`
   * with `_meta.federate: true` (or every one, with `federateByDefault`) is fanned out to them and
   * fused with the local answer; `catalog/list` lists them. Default: none (no `catalog`).
   */
  federation?: {
    engines: FederatedEngineConfig[];
    /** The fusion of the engines' lists (default `auto`, src/client/federation/fuse-hits.ts). */
    fusion?: 'auto' | 'rrf' | 'convex' | 'score' | 'global-bm25';
    federateByDefault?: boolean;
    /** This aggregator's identity in `_meta.federation.path` (default: a random one per worker). */
    identity?: string;
    deadlineMs?: number;
  };
}

/** One remote engine of a worker's federation: where the worker reaches it, and what catalog/list says of it. */
export interface FederatedEngineConfig {
  id: string;
  url: string;
  weight?: number;
  required?: boolean;
  headers?: Record<string, string>;
  /** The engine's own endpoint for `catalog/list` when `url` is a relay (the bridges'), not the engine. */
  endpoint?: { transport: 'stdio' | 'http'; url?: string; command?: string[] };
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
   * A port on which the worker beats (src/util/heartbeat.ts `Beat`) from now on, answered at once
   * (it does not start the engine): a watchdog tells a busy worker (late beats) from a gone one (none).
   */
  heartbeat(): Promise<MessagePort>;
  /**
   * A port on which the page starts encoder workers for this worker (src/models/encoder-runtime/
   * encoder-host.ts), so none is started from a worker; sent first, before the engine starts.
   */
  encoderHost(port: MessagePort): Promise<void>;
  /**
   * Settles once the engine opened its index and compared it with the record kept outside the
   * database (src/storage/witness.ts): the loss found (or an earlier one not yet dismissed), if any.
   */
  indexLoss(): Promise<IndexLoss | undefined>;
  /** Settles at the same moment: why that comparison could not be made (the record was unreadable), if so; until dismissed. */
  indexWarning(): Promise<string | undefined>;
  /** Forgets the reported loss or warning (the person has seen it); the record then describes the index as it is. */
  dismissIndexLoss(): Promise<void>;
  /** The built-in models this app serves, and the folder the worker runs. */
  models(): Promise<{ current?: string; available: AvailableModel[] }>;
  /**
   * Stores the person's model choice (undefined = /models/config.json's) for this browser; it takes
   * effect when the worker restarts, and other tabs are told to restart too.
   */
  chooseModel(embedder: string | undefined): Promise<void>;
  /** The languages of the live documents the person added (their `meta.lang`; the built-in sample left out), once the engine is open; undefined before. */
  languages(): Promise<CorpusLanguages | undefined>;
}

/**
 * How many live documents carry each language tag (`meta.lang`, detected at add when absent): the
 * person's documents, the playground's built-in sample (a `sample:` URI) left out.
 */
export interface CorpusLanguages {
  /** Live documents, with or without a known language (the built-in sample's not counted). */
  documents: number;
  /** Documents of the built-in sample left out, when there are any. */
  sample?: number;
  /** Documents per language tag (primary subtag, e.g. `de` for `de-CH`). */
  counts: Record<string, number>;
}

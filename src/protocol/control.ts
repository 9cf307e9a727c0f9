/**
 * Control-plane shapes between page and worker (carried by comlink, never RCP frames): the
 * worker's status and the bridge page's relay. Types only; the port-carrying `ControlApi` is in
 * src/transport/control.ts.
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
  /** WASM inference threads (more than 1 only when the page is cross-origin isolated). */
  threads?: number;
  /** The cross-encoder, when one is configured and loaded. */
  crossEncoder?: { name: string; identity: string; device: string; loadMs: number };
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
  /** Dense model state, when a model is configured. */
  model?: ModelStatus;
  /** Documents the index lost since its record was written (src/storage/witness.ts), until dismissed. */
  indexLoss?: IndexLoss;
}

/** What bridge.html exposes to the stdio/HTTP bridges: raw session ports, frames relayed untouched. */
export interface RcpBridge {
  /** Waits until the engine opened its index and compared it with its record: the loss found, if any. */
  indexLoss(): Promise<IndexLoss | undefined>;
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
  dimension: number;
  license: string;
  /** Bytes of the ONNX file for `dtype` (what a switch downloads, besides the small tokenizer). */
  bytes?: number;
  dtype: 'fp32' | 'q8';
  minSimilarity?: number;
  backgroundEmbedding?: boolean;
  /** Macro nDCG@10 over the dev collections, per mode, at the default fusion (docs/models.md). */
  quality?: { sparse: number; dense: number; hybrid: number };
}

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
}

/** What bridge.html exposes to the stdio/HTTP bridges: raw session ports, frames relayed untouched. */
export interface RcpBridge {
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
  /** Macro nDCG@10 over the dev collections, per mode, at the default fusion (docs/models.md). */
  quality?: { sparse: number; dense: number; hybrid: number };
}

/**
 * The control plane between page and worker (carried by comlink). RCP traffic never goes through
 * it: `connect()` only hands over a fresh MessagePort, which then carries RCP text frames.
 */
import type { AvailableModel } from '../models/available.ts';
import type { ModelStatus } from '../models/runtime.ts';

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

export interface ControlApi {
  /** A new, uninitialized RCP session on its own port. */
  connect(): Promise<MessagePort>;
  status(): Promise<WorkerStatus>;
  /** The built-in models this app serves, and the folder the worker runs. */
  models(): Promise<{ current?: string; available: AvailableModel[] }>;
  /**
   * Stores the person's model choice (undefined = /models/config.json's) for this browser; it takes
   * effect when the worker restarts, and other tabs are told to restart too.
   */
  chooseModel(embedder: string | undefined): Promise<void>;
}

/** What bridge.html exposes to the stdio/HTTP bridges: raw session ports, frames relayed untouched. */
export interface RcpBridge {
  open(): Promise<number>;
  send(sid: number, frame: string): void;
  close(sid: number): void;
}

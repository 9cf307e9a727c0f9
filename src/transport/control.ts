/**
 * The control plane between page and worker (carried by comlink). RCP traffic never goes through
 * it: `connect()` only hands over a fresh MessagePort, which then carries RCP text frames. The
 * status and bridge shapes are wire types in src/protocol/control.ts.
 */
import type { WorkerStatus } from '../protocol/control.ts';
import type { AvailableModel } from '../models/available.ts';

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

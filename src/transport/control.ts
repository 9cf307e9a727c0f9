/**
 * The control plane between page and worker (carried by comlink). RCP traffic never goes through
 * it: `connect()` only hands over a fresh MessagePort, which then carries RCP text frames. The
 * status and bridge shapes are wire types in src/protocol/control.ts.
 */
import type { WorkerStatus } from '../protocol/control.ts';

export interface ControlApi {
  /** A new, uninitialized RCP session on its own port. */
  connect(): Promise<MessagePort>;
  status(): Promise<WorkerStatus>;
}

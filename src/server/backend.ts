import type { RcpError } from '../protocol/errors.ts';
import type { Capabilities, Id, LogLevel, Method, PeerInfo, ProgressParams, ResultOf } from '../protocol/types.ts';

/** What a handler may do besides computing its result. */
export interface HandlerContext {
  /** Aborted on `notifications/cancel`, on the request deadline, or when the session closes. */
  readonly signal: AbortSignal;
  /** The capability set fixed at `initialize` for this session (§13.2). */
  readonly caps: Capabilities;
  readonly requestId: Id;
  /** Emits `notifications/progress`; a no-op unless the request carried a token and streaming is advertised (§9). */
  progress(update: Omit<ProgressParams, 'progressToken'>): void;
  /** Emits `notifications/log`; a no-op unless the client opted in (§17.1). */
  log(level: LogLevel, message: string, data?: unknown): void;
}

/** A method implementation. Params arrive unvalidated (`unknown`): each handler validates its own. */
export type Handler<M extends Method> = (params: unknown, ctx: HandlerContext) => Promise<ResultOf<M>> | ResultOf<M>;
export type HandlerTable = { [M in Method]?: Handler<M> };

/** An extension method (`x-<vendor>/<name>`, §6.2); params arrive unvalidated. */
export type VendorHandler = (params: unknown, ctx: HandlerContext) => Promise<unknown> | unknown;

/** Everything the transport-agnostic server needs from the engine side. */
export interface Backend {
  readonly serverInfo: PeerInfo;
  /** The current maximum capability set; a session snapshots it at `initialize`. */
  capabilities(): Capabilities;
  readonly handlers: HandlerTable;
  /** Methods that write (default `index/add`, `index/delete`): see RcpSession's write ordering. */
  readonly writeMethods?: readonly string[];
  /** Extension methods by full name; each is callable only while its `x-<vendor>` capability is advertised. */
  readonly vendorHandlers?: Readonly<Record<string, VendorHandler>>;
  /**
   * Session-independent events (model loading…) delivered as `notifications/log` to clients that
   * opted in (§17.1). Returns an unsubscribe function.
   */
  subscribe?(listener: (level: LogLevel, message: string, data?: unknown) => void): () => void;
  /** Maps backend failures (e.g. IndexedDB DOMExceptions) to typed RCP errors at the boundary. */
  mapError?(e: unknown): RcpError | undefined;
  /**
   * What every client must hear at `initialize`, as `usage.notes` of its result (e.g. an index
   * found smaller than its record, src/storage/witness.ts). Asked at each `initialize`.
   */
  notes?(): string[];
}

/**
 * What the session (rcp-session.ts) needs from the side that does the work — a `Backend` of
 * handlers — and the one interface the handlers need from the engine (`ServedEngine`).
 */
import type { Engine } from '../engine/engine.ts';
import type { Capabilities, Id, LogLevel, Method, PeerInfo, ProgressParams, ResultOf } from '../protocol/types.ts';
import { openFailure } from './errors.ts';

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
  /** Deadlines in ms of methods the session's defaults do not know (vendor methods). */
  readonly deadlines?: Readonly<Record<string, number>>;
  /** Extension methods by full name; each is callable only while its `x-<vendor>` capability is advertised. */
  readonly vendorHandlers?: Readonly<Record<string, VendorHandler>>;
  /**
   * Session-independent events (model loading…) delivered as `notifications/log` to clients that
   * opted in (§17.1). Returns an unsubscribe function.
   */
  subscribe?(listener: (level: LogLevel, message: string, data?: unknown) => void): () => void;
  /** Extra `initialize` result `_meta` fields (e.g. which runtime runs the model of `embed.identity`). */
  initializeMeta?(): Record<string, unknown>;
  /**
   * What every client must hear at `initialize`, as `usage.notes` of its result (e.g. an index
   * found smaller than its record, src/storage/witness.ts). Asked at each `initialize`, whose
   * answer waits for a promise (what the open finds is news to the first session too).
   */
  notes?(): string[] | Promise<string[]>;
}

/** The identity this server reports in `initialize` / `info`. */
export const SERVER_INFO: Readonly<PeerInfo> = Object.freeze({ name: 'rcp-in-page', version: '0.1.0' });

/**
 * Everything the server asks of the engine (src/engine's Engine): the RCP methods' work (retrieve
 * carries out a plan from `planRetrieve`, with no second validation), the `x-inpage` extension's,
 * and what capabilities and plans are built from. One interface, so the slices cannot drift.
 */
export type ServedEngine = Pick<
  Engine,
  | 'embedder' | 'rerankers' | 'capabilities' | 'retrieve' | 'transform' | 'add' | 'delete' | 'clear'
  | 'documents' | 'document' | 'facets' | 'exportDocuments' | 'stats' | 'corpusMap'
  | 'graph' | 'feedback' | 'documentFeedback' | 'quarantine' | 'release' | 'restoreExtras'
>;

/**
 * Waits for the engine; if its storage could not be opened, every call fails with that failure's
 * RCP error (errors.ts `openFailure`: -32010 unless a rule says otherwise), the capabilities staying
 * advertised (§13.2).
 */
export function engineReady<E>(engine: Promise<E>): () => Promise<E> {
  return async () => {
    try {
      return await engine;
    } catch (e) {
      throw openFailure(e);
    }
  };
}

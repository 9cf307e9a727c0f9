/**
 * One RCP/1 session over any text-frame transport (see RcpSession below), `serve` that binds one to
 * a transport, and the per-method deadlines it enforces. Over 300 lines on purpose: lifecycle, dispatch, cancellation, deadlines and write ordering share the in-flight map
 * and the session state; split apart they would each need that state passed around.
 */
import { ErrorCode } from '../protocol/codes.ts';
import { conformanceOf } from '../protocol/conformance.ts';
import { RcpError } from '../protocol/errors.ts';
import { isObject, isValidId, toWire } from '../protocol/json.ts';
import { notificationProblem } from '../protocol/framing.ts';
import { capErrorObject, checkDepth, echo } from '../protocol/limits.ts';
import { isDefinedMethod, METHOD_GATES, OPEN_METHODS, PROTOCOL_VERSION } from '../protocol/methods.ts';
import type { Capabilities, Id, InitializeResult, LogLevel, ResponseFrame } from '../protocol/types.ts';
import { validateInitialize, validatePing } from '../protocol/validate.ts';
import { LOG_LEVELS } from '../protocol/enums.ts';
import type { Transport } from '../transport/transport.ts';
import type { Backend, HandlerContext, VendorHandler } from './backend.ts';
import { toErrorObject } from './errors.ts';

/** Per-request deadlines in ms by method (§13.1): on expiry the request is answered with -32014. */
export interface Deadlines {
  default: number;
  /** Writes may embed thousands of chunks; they get longer. */
  'index/add': number;
  [method: string]: number;
}

export const DEFAULT_DEADLINES: Readonly<Deadlines> = Object.freeze({
  default: 30_000,
  'index/add': 600_000,
  'index/delete': 60_000,
  /** How long `shutdown` lets in-flight requests finish before cancelling them. */
  shutdown: 30_000,
});

/** The deadline of `method`: the caller's override, else the backend's own (vendor methods), else the default. */
export function deadlineFor(method: string, overrides?: Partial<Deadlines>, backend?: Readonly<Record<string, number>>): number {
  return overrides?.[method] ?? backend?.[method] ?? DEFAULT_DEADLINES[method] ?? overrides?.default ?? DEFAULT_DEADLINES.default;
}

/** Binds a fresh, uninitialized RCP session to a transport. One transport = one session. */
export function serve(transport: Transport, backend: Backend, deadlines?: Partial<Deadlines>): RcpSession {
  const session = new RcpSession({
    backend,
    deadlines,
    send: (frame) => transport.send(frame),
    onShutdown: () => transport.close(),
  });
  transport.onmessage = (frame) => void session.receive(frame);
  transport.onclose = () => session.close();
  transport.start();
  return session;
}

export interface SessionOptions {
  backend: Backend;
  /** Writes one frame (a JSON text, no trailing newline) to the peer. */
  send(frame: string): void;
  /** Called once after `shutdown` has been answered; the transport should close. */
  onShutdown?(): void;
  deadlines?: Partial<Deadlines>;
}

type State = 'new' | 'ready' | 'closed';

/**
 * Writes, unless the backend names its own: on cancel or deadline they settle truthfully (a
 * committed write is never reported as cancelled), and later requests on the session wait for them.
 */
const DEFAULT_WRITES: readonly string[] = ['index/add', 'index/delete'];

/**
 * One RCP/1 session (§13): lifecycle, gating, framing, batching, cancellation, progress, logs and
 * deadlines, over any transport that moves JSON text frames. Knows nothing about documents.
 * Guarantees: every request is answered exactly once; a notification (no `id`, `jsonrpc: "2.0"`,
 * a string `method`) is never answered; any other object without an `id` is -32600 with id null.
 */
export class RcpSession {
  private state: State = 'new';
  /** Set once the transport is gone or `shutdown` was answered: nothing more is written. */
  private ended = false;
  private caps: Capabilities | undefined;
  private logLevel: number | undefined;
  private readonly inFlight = new Map<Id, AbortController>();
  /**
   * Settles when every write received so far has settled. Requests run concurrently, but each
   * one starts only after the writes sent before it on this session: a client that pipelines
   * `index/add` then `retrieve` reads its own write.
   */
  private writes: Promise<unknown> = Promise.resolve();
  private unsubscribe: (() => void) | undefined;
  private readonly unanswered = new Set<Promise<unknown>>();
  private readonly opts: SessionOptions;

  constructor(opts: SessionOptions) {
    this.opts = opts;
  }

  /** Feeds one received frame (JSON text). Resolves when every response it caused was sent. */
  async receive(text: string): Promise<void> {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      this.write(errorFrame(null, new RcpError(ErrorCode.ParseError, 'parse error: invalid JSON')));
      return;
    }
    if (!Array.isArray(msg)) {
      const response = await this.handle(msg);
      if (response) this.write(response);
      return;
    }
    // §11: batches.
    if (msg.length === 0) {
      this.write(errorFrame(null, new RcpError(ErrorCode.InvalidRequest, 'invalid request: empty batch')));
      return;
    }
    const responses = (await Promise.all(msg.map((m) => this.handle(m)))).filter((r) => r !== undefined);
    if (responses.length > 0) this.write(responses);
  }

  /** Aborts everything in flight (transport died or closed). */
  close(): void {
    this.state = 'closed';
    this.ended = true;
    this.abortAll();
  }

  private emitLog(level: LogLevel, message: string, data: unknown, token: Id | undefined, logger: string): void {
    if (this.logLevel === undefined || LOG_LEVELS.indexOf(level) < this.logLevel) return;
    const p: Record<string, unknown> = { level, message, logger };
    if (data !== undefined) p.data = data;
    if (token !== undefined) p._meta = { progressToken: token };
    this.write({ jsonrpc: '2.0', method: 'notifications/log', params: p });
  }

  private abortAll(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const c of this.inFlight.values()) c.abort(new RcpError(ErrorCode.Cancelled, 'cancelled: session closed'));
  }

  /** The capability set this session is bound to (the backend's maximum before `initialize`). */
  capabilities(): Capabilities {
    return this.caps ?? this.opts.backend.capabilities();
  }

  private write(value: unknown): void {
    if (this.ended) return;
    let text: string;
    try {
      text = toWire(value);
    } catch (e) {
      // A result JSON cannot carry (a BigInt, a cycle) still gets its one answer: -32603.
      const internal = (id: unknown) => errorFrame(isValidId(id) ? id : null, toErrorObject(e));
      const ids = (Array.isArray(value) ? value : [value]).map((m) => (isObject(m) ? m.id : null));
      text = toWire(Array.isArray(value) ? ids.map(internal) : internal(ids[0]));
    }
    this.opts.send(text);
  }

  /** Handles one message; returns its response, or undefined when none is due. */
  private async handle(msg: unknown): Promise<ResponseFrame | undefined> {
    if (!isObject(msg)) return errorFrame(null, invalidRequest('not a JSON-RPC object'));
    if (!('id' in msg)) {
      const malformed = notificationProblem(msg);
      if (malformed) return errorFrame(null, invalidRequest(malformed));
      this.notification(msg);
      return undefined;
    }
    const id = msg.id;
    if (!isValidId(id)) return errorFrame(null, invalidRequest('id must be a string or a finite number'));
    if (msg.jsonrpc !== '2.0') return errorFrame(id, invalidRequest('jsonrpc must be "2.0"'));
    if (typeof msg.method !== 'string') return errorFrame(id, invalidRequest('method must be a string'));
    if (this.inFlight.has(id)) return errorFrame(id, invalidRequest('id is already in flight on this session'));
    // Tracked so `shutdown` lets it answer first. Added after `dispatch` started, so a shutdown
    // never waits for itself.
    const work = this.dispatch(id, msg.method, msg.params ?? {});
    this.unanswered.add(work);
    try {
      return { jsonrpc: '2.0', id, result: await work };
    } catch (e) {
      return errorFrame(id, toErrorObject(e));
    } finally {
      this.unanswered.delete(work);
    }
  }

  private notification(msg: Record<string, unknown>): void {
    // §7.14: cancel; every other notification (known or not) is silently ignored (§4.5).
    if (msg.method !== 'notifications/cancel' || !isObject(msg.params)) return;
    const target = msg.params.id;
    if (!isValidId(target)) return;
    this.inFlight.get(target)?.abort(new RcpError(ErrorCode.Cancelled, 'cancelled', optionalReason(msg.params.reason)));
  }

  private async dispatch(id: Id, method: string, params: unknown): Promise<unknown> {
    if (this.state === 'closed') throw new RcpError(ErrorCode.InvalidRequest, 'invalid request: session is shut down');
    if (method.startsWith('notifications/')) throw invalidRequest('notifications must not carry an id');
    if (!OPEN_METHODS.has(method) && this.state !== 'ready') {
      throw new RcpError(ErrorCode.NotInitialized, `not initialized: call initialize before ${method}`);
    }
    if (OPEN_METHODS.has(method)) checkParamsShape(params);
    switch (method) {
      case 'initialize':
        return this.initialize(params);
      case 'info':
        return this.describe(PROTOCOL_VERSION);
      case 'ping': {
        const { nonce } = validatePing(params);
        return nonce === undefined ? {} : { nonce };
      }
      case 'shutdown': {
        // §7.12/§13.1 orderly close: refuse new requests, let those in flight answer (up to a
        // grace period, then cancel them), answer, and stop.
        this.state = 'closed';
        const pending = [...this.unanswered];
        const grace = deadlineFor('shutdown', this.opts.deadlines, this.opts.backend.deadlines);
        await settledWithin(pending, grace);
        this.abortAll();
        await settledWithin(pending, grace); // the cancelled ones answer -32006 first
        setTimeout(() => {
          this.ended = true;
          this.opts.onShutdown?.();
        }, 0);
        return {};
      }
    }
    // §12: -32004 (not defined at all) takes precedence over -32003 (defined, not advertised).
    const caps = this.capabilities();
    const vendor = this.vendorHandler(method, caps);
    if (vendor) {
      checkParamsShape(params);
      return this.run(id, method, params, (ctx) => vendor(params, ctx));
    }
    if (!isDefinedMethod(method)) throw new RcpError(ErrorCode.UnknownMethod, `unknown method: ${echo(method)}`);
    const gate = METHOD_GATES[method];
    const advertised = gate !== null && caps[gate] !== undefined && (gate !== 'index' || method !== 'index/add' || caps.index?.writable === true);
    const handler = this.opts.backend.handlers[method];
    if (!advertised || !handler) {
      throw new RcpError(ErrorCode.CapabilityMissing, `capability missing: ${method} needs '${gate}'`, { option: gate ?? method });
    }
    checkParamsShape(params);
    return this.run(id, method, params, (ctx) => handler(params, ctx));
  }

  /** §6.2: an `x-<vendor>/<name>` method is served only when its `x-<vendor>` capability is advertised. */
  private vendorHandler(method: string, caps: Capabilities): VendorHandler | undefined {
    const match = /^(x-[a-z0-9-]+)\//.exec(method);
    if (!match || caps[match[1] as `x-${string}`] === undefined) return undefined;
    return this.opts.backend.vendorHandlers?.[method];
  }

  private async initialize(raw: unknown): Promise<InitializeResult> {
    if (this.state === 'ready') throw invalidRequest('already initialized; re-negotiation is not allowed (§13)');
    const params = validateInitialize(raw);
    if (params.protocolVersion < 1) {
      // §7.1: the floor cannot be met; the session stays uninitialized (§13).
      throw new RcpError(ErrorCode.VersionMismatch, `version mismatch: this server speaks RCP/1..${PROTOCOL_VERSION}`, {
        detail: `client offered ${params.protocolVersion}`,
        supported: [1, PROTOCOL_VERSION],
      });
    }
    this.caps = structuredClone(this.opts.backend.capabilities());
    deepFreeze(this.caps);
    const clientLog = params.capabilities?.log != null && this.caps.log !== undefined; // §4.6: null = absent
    const level = params._meta?.logLevel;
    this.logLevel = clientLog ? LOG_LEVELS.indexOf(level && LOG_LEVELS.includes(level) ? level : 'info') : undefined;
    this.state = 'ready';
    if (this.logLevel !== undefined) {
      this.unsubscribe = this.opts.backend.subscribe?.((level, message, data) => this.emitLog(level, message, data, undefined, 'engine'));
    }
    const result = this.describe(Math.min(params.protocolVersion, PROTOCOL_VERSION));
    // The session is ready from here (requests sent behind initialize are served); only the notes may be awaited.
    const notes = (await this.opts.backend.notes?.()) ?? [];
    return notes.length > 0 ? { ...result, usage: { notes } } : result;
  }

  private describe(protocolVersion: number): InitializeResult {
    const capabilities = this.capabilities();
    const conformance = conformanceOf(capabilities);
    const meta = { ...(conformance ? { conformance } : {}), ...this.opts.backend.initializeMeta?.() };
    return {
      protocolVersion,
      server: this.opts.backend.serverInfo,
      capabilities,
      ...(Object.keys(meta).length ? { _meta: meta } : {}),
    };
  }

  /** Runs a handler under its own AbortController, a deadline and the cancel map. */
  private async run(id: Id, method: string, params: unknown, call: (ctx: HandlerContext) => unknown): Promise<unknown> {
    const controller = new AbortController();
    const limit = deadlineFor(method, this.opts.deadlines, this.opts.backend.deadlines);
    const timer = setTimeout(
      () => controller.abort(new RcpError(ErrorCode.Timeout, `timeout: ${method} exceeded ${limit} ms`, { retryable: true })),
      limit,
    );
    this.inFlight.set(id, controller);
    const answered = { done: false };
    const ctx = this.context(id, params, controller.signal, answered);
    const mutating = (this.opts.backend.writeMethods ?? DEFAULT_WRITES).includes(method);
    const work = this.writes.then(() => {
      controller.signal.throwIfAborted(); // cancelled while waiting behind a write: never starts
      return call(ctx);
    });
    if (mutating) this.writes = work.catch(() => undefined);
    try {
      if (mutating) return await work; // settle truthfully: never claim "cancelled" for a committed write
      return await Promise.race([work, rejectOnAbort(controller.signal)]);
    } catch (e) {
      throw controller.signal.aborted && !(e instanceof RcpError) ? controller.signal.reason : e;
    } finally {
      clearTimeout(timer);
      answered.done = true;
      this.inFlight.delete(id);
      work.catch(() => undefined); // a handler finishing after an abort must not surface as unhandled
    }
  }

  private context(id: Id, params: unknown, signal: AbortSignal, answered: { done: boolean }): HandlerContext {
    const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
    const token = meta && isValidId(meta.progressToken) ? meta.progressToken : undefined;
    const caps = this.capabilities();
    return {
      signal,
      caps,
      requestId: id,
      progress: (update) => {
        if (token === undefined || caps.streaming === undefined || signal.aborted || answered.done) return; // §9: never after the answer
        this.write({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, ...update } });
      },
      log: (level: LogLevel, message: string, data?: unknown) => this.emitLog(level, message, data, token, 'rcp-in-page'),
    };
  }
}

const invalidRequest = (detail: string) => new RcpError(ErrorCode.InvalidRequest, `invalid request: ${detail}`, { detail });

function errorFrame(id: Id | null, e: RcpError | { code: number; message: string; data?: unknown }): ResponseFrame {
  const error = capErrorObject(e instanceof RcpError ? e.toJSON() : e);
  return { jsonrpc: '2.0', id, error } as ResponseFrame;
}


function optionalReason(reason: unknown): { detail: string } | undefined {
  return typeof reason === 'string' ? { detail: reason } : undefined;
}

/** Waits until every promise settled or `ms` passed, whichever is first (the timer never outlives it). */
async function settledWithin(pending: Promise<unknown>[], ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([Promise.allSettled(pending), new Promise((ok) => (timer = setTimeout(ok, ms)))]);
  clearTimeout(timer);
}

/** §4.1: params, when present, is an object (`null` counts as absent, §4.6), nested no deeper than the limit (§15.5). */
function checkParamsShape(params: unknown): void {
  if (params !== null && !isObject(params)) {
    throw new RcpError(ErrorCode.InvalidParams, 'invalid params: params must be an object', { field: 'params' });
  }
  checkDepth(params);
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

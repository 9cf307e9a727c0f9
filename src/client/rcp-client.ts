import { ErrorCode } from '../protocol/codes.ts';
import { RcpError } from '../protocol/errors.ts';
import { isObject, isValidId, toWire } from '../protocol/json.ts';
import { isDefinedMethod, METHOD_GATES, OPEN_METHODS, PROTOCOL_VERSION } from '../protocol/methods.ts';
import type {
  Capabilities,
  Id,
  InitializeResult,
  LogParams,
  Method,
  ParamsOf,
  PeerInfo,
  ProgressParams,
  ResultOf,
} from '../protocol/types.ts';
import type { Transport } from '../transport/transport.ts';

export interface ClientOptions {
  clientInfo?: PeerInfo;
  /** Client capabilities sent in `initialize` (e.g. `{ log: {} }` to receive logs). */
  capabilities?: Record<string, unknown>;
  /** Named default for every call without its own `timeoutMs`. */
  defaultTimeoutMs?: number;
  onLog?(params: LogParams): void;
  /** Sees every frame in both directions (the playground's protocol inspector). */
  onFrame?(direction: 'out' | 'in', frame: string): void;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?(params: ProgressParams): void;
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: RcpError): void;
  cleanup(): void;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Page-side RCP/1 client: initialize first, gate calls on advertised capabilities (failing locally
 * with -32003 before anything is sent), correlate responses by id (pipelining), turn an
 * AbortSignal into `notifications/cancel`, route progress by token, apply per-call timeouts.
 */
export class RcpClient {
  private nextId = 1;
  private readonly pending = new Map<Id, Pending>();
  private readonly progress = new Map<Id, (p: ProgressParams) => void>();
  private init: InitializeResult | undefined;
  private closed = false;
  private readonly transport: Transport;
  private readonly opts: ClientOptions;

  constructor(transport: Transport, opts: ClientOptions = {}) {
    this.transport = transport;
    this.opts = opts;
    transport.onmessage = (frame) => this.receive(frame);
    transport.onclose = () => {
      this.closed = true; // later calls fail at once instead of waiting for their timeout
      this.failAll(new RcpError(ErrorCode.InternalError, 'transport closed'));
    };
    transport.start();
  }

  /** Sends `initialize`; must complete before any gated call. */
  async connect(options: CallOptions = {}): Promise<InitializeResult> {
    const result = await this.call(
      'initialize',
      {
        protocolVersion: PROTOCOL_VERSION,
        client: this.opts.clientInfo ?? { name: 'rcp-in-page-client', version: '0.1.0' },
        capabilities: this.opts.capabilities ?? {},
      },
      options,
    );
    if (result.protocolVersion < 1) throw new RcpError(ErrorCode.VersionMismatch, 'server negotiated a version below 1');
    this.init = result;
    return result;
  }

  /**
   * Takes a server's `info` (same shape as `initialize.result`, §7.2) as this session's state,
   * instead of `connect()`. For HTTP servers that keep one session for all clients (§5.2: HTTP is
   * request-scoped) and refuse a second `initialize` once another client has sent one.
   */
  async adoptServerSession(options: CallOptions = {}): Promise<InitializeResult> {
    const info = await this.call('info', {}, options);
    if (!isObject(info) || typeof info.protocolVersion !== 'number' || info.protocolVersion < 1 || !isObject(info.capabilities)) {
      throw new RcpError(ErrorCode.InternalError, 'malformed info result: no protocolVersion ≥ 1 and capabilities');
    }
    this.init = info;
    return info;
  }

  get capabilities(): Capabilities | undefined {
    return this.init?.capabilities;
  }

  get serverInfo(): InitializeResult | undefined {
    return this.init;
  }

  /** Calls an RCP method. Rejects with a typed RcpError (server-sent or local). */
  request<M extends Method>(method: M, params: ParamsOf<M>, options: CallOptions = {}): Promise<ResultOf<M>> {
    if (!OPEN_METHODS.has(method)) {
      if (!this.init) return Promise.reject(new RcpError(ErrorCode.NotInitialized, `not initialized: call connect() before ${method}`));
      const gate = isDefinedMethod(method) ? METHOD_GATES[method] : null;
      if (gate && this.init.capabilities[gate] === undefined) {
        return Promise.reject(new RcpError(ErrorCode.CapabilityMissing, `capability missing: ${method} needs '${gate}'`, { option: gate }));
      }
    }
    return this.call(method, params, options);
  }

  /** Sends a notification (no id, never answered). */
  notify(method: string, params: Record<string, unknown>): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** Sends raw text as-is (the playground console); responses still arrive via `onFrame`. */
  sendRaw(text: string): void {
    this.opts.onFrame?.('out', text);
    this.transport.send(text);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.failAll(new RcpError(ErrorCode.Cancelled, 'client closed'));
    this.transport.close();
  }

  private call<M extends Method>(method: M, params: ParamsOf<M>, options: CallOptions = {}): Promise<ResultOf<M>> {
    if (this.closed) return Promise.reject(new RcpError(ErrorCode.InternalError, 'client closed'));
    const id = this.nextId++;
    const { signal, onProgress } = options;
    if (signal?.aborted) return Promise.reject(new RcpError(ErrorCode.Cancelled, 'cancelled before sending'));
    let body: Record<string, unknown> = { ...(params as Record<string, unknown>) };
    if (onProgress) {
      const token = `p${id}`;
      body = { ...body, _meta: { ...(isObject(body._meta) ? body._meta : {}), progressToken: token } };
      this.progress.set(token, onProgress);
    }
    return new Promise<ResultOf<M>>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.opts.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
      const abandon = (error: RcpError) => {
        if (!this.pending.has(id)) return;
        this.pending.get(id)?.cleanup();
        this.notify('notifications/cancel', { id, reason: error.rawMessage });
        reject(error);
      };
      const timer = setTimeout(() => abandon(new RcpError(ErrorCode.Timeout, `timeout: no answer to ${method} within ${timeoutMs} ms`)), timeoutMs);
      const onAbort = () => abandon(new RcpError(ErrorCode.Cancelled, 'cancelled'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (r) => resolve(r as ResultOf<M>),
        reject,
        cleanup: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.pending.delete(id);
          if (onProgress) this.progress.delete(`p${id}`);
        },
      });
      this.send({ jsonrpc: '2.0', id, method, params: body });
    });
  }

  private send(frame: unknown): void {
    const text = toWire(frame);
    this.opts.onFrame?.('out', text);
    this.transport.send(text);
  }

  private receive(text: string): void {
    this.opts.onFrame?.('in', text);
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return; // a peer bug; nothing to correlate
    }
    for (const m of Array.isArray(msg) ? msg : [msg]) this.dispatch(m);
  }

  private dispatch(m: unknown): void {
    if (!isObject(m)) return;
    if (m.method === 'notifications/progress' && isObject(m.params)) {
      const token = m.params.progressToken;
      if (isValidId(token)) this.progress.get(token)?.(m.params as unknown as ProgressParams);
      return;
    }
    if (m.method === 'notifications/log' && isObject(m.params)) {
      this.opts.onLog?.(m.params as unknown as LogParams);
      return;
    }
    if (!isValidId(m.id)) return;
    const p = this.pending.get(m.id);
    if (!p) return; // late answer after a local timeout/cancel: discarded (§13.1)
    p.cleanup();
    if (isObject(m.error)) {
      const e = m.error;
      p.reject(RcpError.fromObject({ code: Number(e.code), message: String(e.message), data: e.data }));
    } else p.resolve(m.result);
  }

  private failAll(error: RcpError): void {
    for (const p of [...this.pending.values()]) {
      p.cleanup();
      p.reject(error);
    }
  }
}

/**
 * The bridges' relay to federated engines: the worker's aggregator (src/server/aggregator.ts)
 * speaks RCP over HTTP to each engine's relay host (`relay-N.localhost`, the bridge's loopback
 * server, bridges/relay-server.ts), and the bridge carries the request to the engine from Node:
 * no engine needs CORS, and the page reaches nothing but the engines named on the command line.
 *
 * The bridge owns each engine's session: it initializes it once (joining a shared HTTP session
 * through `info` when the server refuses a second `initialize`), answers the page's `initialize`
 * with the engine's own result, and forwards every other request with the page's deadline.
 * `notifications/cancel` stops the forwarded request (the engine gets its own cancel), and a
 * request's progress frames come back as the engine sends them (SSE, relay-server.ts). A stdio
 * engine is spawned here, shut down with the bridge, and restarted after a crash with backoff
 * (1 s doubling to 30 s, reset after a minute up). Whatever goes wrong comes back as a JSON-RPC
 * error for that request, so the aggregator skips the engine and names it; nothing waits past
 * its deadline. Tokens stay in this process: an HTTP engine gets its own `--federate-token`
 * only, and the page never sees any.
 */
import { RcpClient } from '../src/client/rcp-client.ts';
import { ErrorCode } from '../src/protocol/codes.ts';
import { RcpError } from '../src/protocol/errors.ts';
import { isObject, isValidId } from '../src/protocol/json.ts';
import type { Id, InitializeResult, Method, ProgressParams } from '../src/protocol/types.ts';
import { HttpTransport } from '../src/transport/http-transport.ts';
import type { RemoteEngine } from './federate-args.ts';
import { StdioEngineTransport } from './stdio-engine.ts';

/** A relayed exchange's HTTP answer to the page: a JSON-RPC frame, or nothing (204). */
export interface RelayAnswer {
  status: 200 | 204 | 400 | 404;
  body?: string;
}

/** Wait for a request without `_meta.deadlineMs` (the aggregator always sends one with `retrieve`). */
const DEFAULT_WAIT_MS = 30_000;
/** How long connecting (spawn + `initialize`) may take before the page is told the engine is down. */
const CONNECT_MS = 10_000;
const BACKOFF_FIRST_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
/** A stdio engine up this long has its backoff reset. */
const STABLE_MS = 60_000;

const frame = (id: Id | null, body: { result: unknown } | { error: { code: number; message: string; data?: unknown } }): string => JSON.stringify({ jsonrpc: '2.0', id, ...body });
const asRcp = (e: unknown): RcpError => (e instanceof RcpError ? e : new RcpError(ErrorCode.InternalError, e instanceof Error ? e.message : String(e)));
const errorFrame = (id: Id | null, e: unknown): string => {
  const err = asRcp(e);
  return frame(id, { error: { code: err.code, message: err.rawMessage, ...(err.data !== undefined ? { data: err.data } : {}) } });
};

/** One engine's connection, owned by the bridge. */
class Member {
  private client: RcpClient | undefined;
  private init: Promise<InitializeResult> | undefined;
  private transport: StdioEngineTransport | undefined;
  private backoffMs = BACKOFF_FIRST_MS;
  private restartTimer: NodeJS.Timeout | undefined;
  /** Why the engine cannot be used right now (a stdio engine waiting to restart). */
  private down: string | undefined;
  private closing = false;

  constructor(
    readonly engine: RemoteEngine,
    private readonly clientName: string,
    private readonly diag: (line: string) => void,
  ) {
    if (engine.transport === 'stdio') this.spawn();
  }

  /** The engine's `initialize` result, connecting first when needed. A failed connect is retried by the next call. */
  connected(): Promise<{ client: RcpClient; init: InitializeResult }> {
    if (this.closing) return Promise.reject(new RcpError(ErrorCode.BackendUnavailable, `engine '${this.engine.id}' is shutting down`));
    if (this.down) return Promise.reject(new RcpError(ErrorCode.BackendUnavailable, this.down, { retryable: true }));
    if (!this.client) this.open();
    const client = this.client!;
    if (!this.init) {
      const opts = { timeoutMs: CONNECT_MS };
      // A stateful HTTP server that someone else initialized refuses `initialize` (-32600): join its session through `info`.
      const join = (e: unknown) => (this.engine.transport === 'http' && e instanceof RcpError && e.code === ErrorCode.InvalidRequest ? client.adoptServerSession(opts) : Promise.reject(e));
      const init = client.connect(opts).catch(join);
      this.init = init;
      init.then(
        (r) => this.diag(`engine '${this.engine.id}' connected: ${r.server?.name ?? '?'} ${r.server?.version ?? ''} (${Object.keys(r.capabilities ?? {}).join(', ')})`),
        (e: unknown) => {
          if (this.init !== init) return; // the engine exited meanwhile: its exit was reported
          this.diag(`engine '${this.engine.id}' failed to initialize: ${asRcp(e).rawMessage}`);
          this.init = undefined;
          if (this.engine.transport === 'http') {
            this.client?.close();
            this.client = undefined;
          } else this.transport?.child.kill(); // its exit restarts it with backoff
        },
      );
    }
    return this.init.then((init) => ({ client, init }));
  }

  private open(): void {
    if (this.engine.transport !== 'http') throw new RcpError(ErrorCode.BackendUnavailable, `engine '${this.engine.id}' is not running`);
    const headers: Record<string, string> = this.engine.token ? { Authorization: `Bearer ${this.engine.token}` } : {};
    this.client = new RcpClient(new HttpTransport(this.engine.url, { headers }), { clientInfo: { name: this.clientName, version: '1' } });
  }

  private spawn(): void {
    if (this.engine.transport !== 'stdio' || this.closing) return;
    const t = new StdioEngineTransport(this.engine.id, this.engine.command, this.diag);
    this.transport = t;
    this.down = undefined;
    const client = new RcpClient(t, { clientInfo: { name: this.clientName, version: '1' } });
    this.client = client;
    this.init = undefined;
    const closed = t.onclose;
    t.onclose = () => {
      closed?.();
      if (this.transport !== t) return;
      this.client = undefined;
      this.init = undefined;
      this.transport = undefined;
      if (this.closing) return;
      if (t.uptimeMs > STABLE_MS) this.backoffMs = BACKOFF_FIRST_MS;
      const wait = this.backoffMs;
      this.backoffMs = Math.min(BACKOFF_MAX_MS, this.backoffMs * 2);
      const early = t.uptimeMs < 2_000 ? ' at once' : '';
      this.down = `engine '${this.engine.id}' exited${early} (${t.exitReason ?? 'unknown'}); restarting in ${wait / 1000} s`;
      this.diag(`${this.down} — the bridge keeps serving its own index`);
      this.restartTimer = setTimeout(() => this.spawn(), wait);
      this.restartTimer.unref();
    };
    // Connect at once, so a bad command is reported at start, not at the first query.
    this.connected().catch(() => undefined);
  }

  /** `shutdown` (stdio: then EOF), bounded; the engine is never restarted after this. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restartTimer);
    const client = this.client;
    if (!client) return;
    if (this.engine.transport === 'stdio' && this.init) {
      const ready = await Promise.race([this.init.then(() => true, () => false), new Promise<boolean>((ok) => setTimeout(ok, 1_000, false))]);
      if (ready) await client.request('shutdown' as Method, {} as never, { timeoutMs: 1_000 }).catch(() => undefined);
    }
    client.close();
    const t = this.transport;
    if (t && t.child.exitCode === null && t.child.signalCode === null) await new Promise<void>((ok) => t.child.once('exit', () => ok()));
  }
}

export class EngineRelay {
  private readonly members = new Map<string, Member>();
  /** Forwarded requests by `<engine> <page id>`, so the page's cancel reaches them. */
  private readonly inflight = new Map<string, AbortController>();

  constructor(engines: readonly RemoteEngine[], opts: { identity?: string; diag(line: string): void }) {
    const name = `${opts.identity ?? 'rcp-in-page'} (aggregator relay)`;
    for (const e of engines) this.members.set(e.id, new Member(e, name, opts.diag));
  }

  get ids(): string[] {
    return [...this.members.keys()];
  }

  /**
   * Answers one exchange the page sent to engine `id` (its POST body, `method` from the path).
   * With `emit` (the page takes SSE), a request's `_meta.progressToken` is honoured: the engine's
   * progress frames go to `emit` as they come, under the page's token, before the answer.
   */
  async handle(id: string, text: string, emit?: (frame: string) => void): Promise<RelayAnswer> {
    const member = this.members.get(id);
    if (!member) return { status: 404, body: errorFrame(null, new RcpError(ErrorCode.InvalidRequest, `no federated engine '${id}'`)) };
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return { status: 400, body: errorFrame(null, new RcpError(ErrorCode.ParseError, 'parse error: invalid JSON')) };
    }
    if (!isObject(msg) || typeof msg.method !== 'string') return { status: 400, body: errorFrame(null, new RcpError(ErrorCode.InvalidRequest, 'the relay takes one JSON-RPC request or notification')) };
    const method = msg.method;
    const params = isObject(msg.params) ? msg.params : {};
    if (!isValidId(msg.id)) {
      // Notifications: a cancel stops what it names; the others (`notifications/initialized`) are the bridge's own business.
      if (method === 'notifications/cancel' && isValidId(params.id)) this.inflight.get(`${id} ${params.id}`)?.abort();
      return { status: 204 };
    }
    const rid = msg.id;
    if (method === 'shutdown') return { status: 200, body: frame(rid, { result: {} }) }; // the bridge ends its engines itself
    try {
      if (method === 'initialize' || method === 'info') return { status: 200, body: frame(rid, { result: (await member.connected()).init }) };
      const { client } = await member.connected();
      const { progressToken: token, ...meta } = isObject(params._meta) ? params._meta : {};
      const deadline = typeof meta.deadlineMs === 'number' && meta.deadlineMs > 0 ? meta.deadlineMs + 100 : DEFAULT_WAIT_MS;
      const key = `${id} ${rid}`;
      const abort = new AbortController();
      this.inflight.set(key, abort);
      // The engine's client gives it a token of its own connection's; its frames go back under the page's.
      const onProgress =
        emit && isValidId(token) ? (p: ProgressParams) => emit(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { ...p, progressToken: token } })) : undefined;
      try {
        const forwarded = isObject(params._meta) ? { ...params, _meta: meta } : params;
        const result = await client.request(method as Method, forwarded as never, { signal: abort.signal, timeoutMs: deadline, ...(onProgress ? { onProgress } : {}) });
        return { status: 200, body: frame(rid, { result }) };
      } finally {
        this.inflight.delete(key);
      }
    } catch (e) {
      return { status: 200, body: errorFrame(rid, e) };
    }
  }

  async close(): Promise<void> {
    for (const a of this.inflight.values()) a.abort();
    await Promise.all([...this.members.values()].map((m) => m.close()));
  }
}

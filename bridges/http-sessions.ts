/**
 * HTTP sessions (§5.2). HTTP is request-scoped, so:
 * - Requests without a session are served statelessly: by a pool of worker sessions the bridge
 *   initialized itself at the advertised capabilities. Any number of clients share them; none
 *   can lock another out, and a client that dies without `shutdown` leaves nothing behind. Two
 *   clients' requests with the same id (or progress token) in flight go to different pool
 *   sessions, so they never collide. `initialize` is answered idempotently by a fresh session,
 *   which becomes stateful: its token is `result._meta.session`. A batch holding `initialize` or
 *   `shutdown` runs on a session of its own, closed after it.
 * - Requests naming a session (header `RCP-Session: <token>`, or the base `<base>/session/<token>`
 *   for clients that cannot set headers) are served by that stateful session with the full §13
 *   lifecycle. A name the bridge does not know opens a new, uninitialized session under it.
 *   A successful `shutdown` ends it; an idle one expires.
 */
import { randomUUID } from 'node:crypto';
import { isObject } from '../src/protocol/json.ts';
import { rpcError, type Classified, type RequestInfo } from './http-frame.ts';
import { HttpSessionRouter, type Outcome } from './http-router.ts';

/** Opens a worker session; frames it emits go to `onFrame`. */
export type OpenSession = (onFrame: (frame: string) => void) => Promise<{ send(frame: string): Promise<void>; close(): Promise<void> }>;

export interface SessionLimits {
  /** Stateful sessions kept at most; the least recently used idle one is closed beyond it. */
  maxSessions: number;
  /** A stateful session idle this long is closed. */
  idleMs: number;
  /** Pool sessions for stateless requests at most (more are needed only when ids collide). */
  maxPool: number;
}

export const DEFAULT_LIMITS: SessionLimits = { maxSessions: 256, idleMs: 30 * 60_000, maxPool: 32 };

/** The params the bridge initializes its pool sessions with: logs flow for requests that ask by token. */
const POOL_INIT = { protocolVersion: 1, client: { name: 'rcp-http-bridge', version: '1' }, capabilities: { log: {} } };
const POOL_INIT_ID = 'rcp-http-bridge:init';

export interface Exchange {
  text: string;
  msg: Exclude<Classified, { kind: 'reject' }>;
  onEvent?: (frame: string) => void;
}

const BUSY: Outcome = { kind: 'invalid', status: 503, body: rpcError(-32010, 'backend unavailable: too many sessions in use; retry later') };

export class HttpSessions {
  /** Stateful sessions by name; a promise while the worker port is opening. */
  private readonly named = new Map<string, Promise<HttpSessionRouter>>();
  /** The same sessions once open, for synchronous expiry and eviction. */
  private readonly live = new Map<string, HttpSessionRouter>();
  private readonly pool: HttpSessionRouter[] = [];
  private poolOpening: Promise<HttpSessionRouter> | undefined;
  private readonly open: OpenSession;
  private readonly limits: SessionLimits;
  private readonly sweeper: NodeJS.Timeout;

  constructor(open: OpenSession, limits: SessionLimits = DEFAULT_LIMITS) {
    this.open = open;
    this.limits = limits;
    this.sweeper = setInterval(() => this.expireIdle(), Math.min(60_000, limits.idleMs)).unref();
  }

  /** Serves one exchange, on the named session or statelessly. */
  async serve(name: string | undefined, ex: Exchange): Promise<Outcome> {
    if (name !== undefined) return this.onNamed(name, ex);
    const { msg } = ex;
    if (msg.kind === 'notification') {
      await this.notify(undefined, ex.text);
      return { kind: 'none' };
    }
    const requests = msg.kind === 'request' ? [msg.request] : msg.requests;
    if (msg.kind === 'request' && msg.request.method === 'initialize') return this.initializeStateful(ex, msg.request);
    if (requests.some((r) => r.method === 'initialize' || r.method === 'shutdown')) {
      // Lifecycle methods must not touch the shared pool: they run on a session of their own.
      return this.once(ex, requests, !requests.some((r) => r.method === 'initialize'));
    }
    return this.onPool(ex, requests);
  }

  /** Closes every session (the bridge is stopping). */
  closeAll(): void {
    clearInterval(this.sweeper);
    for (const r of [...this.pool, ...this.live.values()]) r.close();
  }

  /** Open stateful sessions (for tests and diagnostics). */
  get sessionCount(): number {
    return this.named.size;
  }

  /** The session named `name`, opened (uninitialized) when there is none; undefined when full. */
  private async namedRouter(name: string): Promise<HttpSessionRouter | undefined> {
    const router = await this.named.get(name)?.catch(() => undefined);
    if (router && !router.closing) return router;
    if (!this.makeRoom()) return undefined;
    const opening = this.openRouter(true).then((r) => this.keep(name, r));
    this.named.set(name, opening);
    opening.catch(() => this.named.get(name) === opening && this.named.delete(name));
    return opening;
  }

  private async onNamed(name: string, ex: Exchange): Promise<Outcome> {
    const router = await this.namedRouter(name);
    if (!router) return BUSY;
    const { msg } = ex;
    if (msg.kind === 'notification') {
      await router.forward(ex.text);
      return { kind: 'none' };
    }
    return router.exchange(ex.text, msg.kind === 'request' ? [msg.request] : msg.requests, msg.kind === 'batch', ex.onEvent);
  }

  /** `initialize` without a session: a fresh session answers it and, on success, is kept under a new token. */
  private async initializeStateful(ex: Exchange, request: RequestInfo): Promise<Outcome> {
    if (!this.makeRoom()) return BUSY;
    const router = await this.openRouter(true);
    const out = await router.exchange(ex.text, [request], false, ex.onEvent);
    if (out.kind !== 'frame' || !succeeded(out.frame)) {
      router.close();
      return out;
    }
    const token = randomUUID();
    this.named.set(token, Promise.resolve(this.keep(token, router)));
    return { kind: 'frame', frame: withSessionToken(out.frame, token) };
  }

  /** Runs one exchange on a throwaway session, initialized by the bridge first when `initialized`. */
  private async once(ex: Exchange, requests: RequestInfo[], initialized: boolean): Promise<Outcome> {
    const router = await this.openRouter(false);
    try {
      if (initialized && !(await initializePool(router))) return BUSY;
      return await router.exchange(ex.text, requests, ex.msg.kind === 'batch', ex.onEvent);
    } finally {
      router.close();
    }
  }

  /**
   * Forwards notifications (owed no answer). Without a session they go to every pool session: a
   * cancel reaches its target wherever it runs (and, statelessly, any other client's request
   * that uses the same id: use a session to cancel precisely); others change nothing there.
   */
  async notify(name: string | undefined, text: string): Promise<void> {
    if (name === undefined) {
      await Promise.all(this.pool.map((r) => r.forward(text)));
      return;
    }
    const router = await this.namedRouter(name);
    await router?.forward(text);
  }

  /**
   * Runs the exchange on the least busy pool session where none of its ids or tokens is in flight,
   * opening one when needed. Picking and starting the exchange happen in one tick, so two
   * concurrent requests with the same id can never pick the same session.
   */
  private async onPool(ex: Exchange, requests: RequestInfo[]): Promise<Outcome> {
    for (;;) {
      const free = this.pool.filter((r) => !r.closing && !r.collides(requests));
      if (free.length > 0) return free.reduce((a, b) => (b.inFlight < a.inFlight ? b : a)).exchange(ex.text, requests, ex.msg.kind === 'batch', ex.onEvent);
      if (this.pool.length >= this.limits.maxPool) return BUSY;
      this.poolOpening ??= this.openPoolSession().finally(() => (this.poolOpening = undefined));
      await this.poolOpening;
    }
  }

  private async openPoolSession(): Promise<HttpSessionRouter> {
    const router: HttpSessionRouter = await this.openRouter(false, () => {
      const i = this.pool.indexOf(router);
      if (i >= 0) this.pool.splice(i, 1);
    });
    if (!(await initializePool(router))) {
      router.close();
      throw new Error('the worker refused to initialize a pool session');
    }
    this.pool.push(router);
    return router;
  }

  private async openRouter(stateful: boolean, onClose?: () => void): Promise<HttpSessionRouter> {
    let session: Awaited<ReturnType<OpenSession>> | undefined;
    const router = new HttpSessionRouter({
      send: (frame) => session!.send(frame),
      onClose: () => {
        onClose?.();
        this.forget(router);
        void session?.close();
      },
      broadcastLogs: stateful,
    });
    session = await this.open((frame) => router.deliver(frame));
    return router;
  }

  private keep(name: string, router: HttpSessionRouter): HttpSessionRouter {
    this.live.set(name, router);
    return router;
  }

  /** After shutdown, expiry or eviction the name is free again. */
  private forget(router: HttpSessionRouter): void {
    for (const [name, r] of this.live) {
      if (r !== router) continue;
      this.live.delete(name);
      this.named.delete(name);
    }
  }

  /** True when another stateful session fits, closing the least recently used idle one if needed. */
  private makeRoom(): boolean {
    this.expireIdle();
    if (this.named.size < this.limits.maxSessions) return true;
    let oldest: HttpSessionRouter | undefined;
    for (const r of this.live.values()) if (r.idleSince !== undefined && (!oldest || r.idleSince < oldest.idleSince!)) oldest = r;
    oldest?.close();
    return this.named.size < this.limits.maxSessions;
  }

  private expireIdle(): void {
    const now = Date.now();
    for (const r of [...this.live.values()]) if (r.idleSince !== undefined && now - r.idleSince >= this.limits.idleMs) r.close();
  }
}

async function initializePool(router: HttpSessionRouter): Promise<boolean> {
  const frame = JSON.stringify({ jsonrpc: '2.0', id: POOL_INIT_ID, method: 'initialize', params: POOL_INIT });
  const out = await router.exchange(frame, [{ key: JSON.stringify(POOL_INIT_ID), method: 'initialize' }], false);
  return out.kind === 'frame' && succeeded(out.frame);
}

function succeeded(frame: string): boolean {
  try {
    const m: unknown = JSON.parse(frame);
    return isObject(m) && isObject(m.result);
  } catch {
    return false;
  }
}

/**
 * `frame` with `result._meta.session = token`. The result is the frame's last member when our
 * server wrote it, so only that member is re-serialized; the id's text is kept byte for byte.
 */
export function withSessionToken(frame: string, token: string): string {
  const msg = JSON.parse(frame) as { result: Record<string, unknown> };
  const result = { ...msg.result, _meta: { ...(isObject(msg.result._meta) ? msg.result._meta : {}), session: token } };
  const tail = `"result":${JSON.stringify(msg.result)}}`;
  if (frame.endsWith(tail)) return `${frame.slice(0, -tail.length)}"result":${JSON.stringify(result)}}`;
  return JSON.stringify({ ...msg, result });
}

/**
 * Correlates HTTP exchanges with the frames of one RCP session (one worker port): a request waits
 * for the response bearing its id, a batch for the array answering its ids, and progress and log
 * frames go to the exchange whose request carried their token (for SSE). A session ends only on
 * a SUCCESSFUL `shutdown` answer, judged from that answer itself. Pure logic, no I/O.
 */
import { isObject, isValidId } from '../src/protocol/json.ts';
import { idKey, rpcError, type RequestInfo } from './http-frame.ts';

export type Outcome =
  | { kind: 'none' }
  | { kind: 'frame'; frame: string }
  | { kind: 'invalid'; status: number; body: unknown };

interface Waiter {
  keys: string[];
  batch: boolean;
  shutdownKeys: string[];
  onEvent?: (frame: string) => void;
  tokens: string[];
  resolve(o: Outcome): void;
}

const GONE = { kind: 'invalid', status: 503, body: rpcError(-32010, 'backend unavailable: the session was shut down') } as const;

/** How long exchanges may still be answered after a successful shutdown. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface RouterOptions {
  /** Frames to the session. */
  send(frame: string): Promise<void>;
  /** Called once the session ended (after a successful shutdown, once its in-flight work answered). */
  onClose(): void;
  /** Log frames without a request token go to every open SSE stream (stateful sessions only). */
  broadcastLogs?: boolean;
}

export class HttpSessionRouter {
  /** A successful `shutdown` was answered: no new exchange may start here. */
  closing = false;
  closed = false;
  /** When the last exchange ended (for idle expiry); undefined while one is in flight. */
  idleSince: number | undefined = Date.now();
  private readonly waiters: Waiter[] = [];
  private readonly opts: RouterOptions;

  constructor(opts: RouterOptions) {
    this.opts = opts;
  }

  get inFlight(): number {
    return this.waiters.length;
  }

  /** True when one of these ids or progress tokens is already in flight here (they would collide). */
  collides(requests: readonly RequestInfo[]): boolean {
    return requests.some((r) => this.waiters.some((w) => w.keys.includes(r.key) || (r.token !== undefined && w.tokens.includes(r.token))));
  }

  /** True when a request with this id is in flight (a cancel for it belongs here). */
  has(key: string): boolean {
    return this.waiters.some((w) => w.keys.includes(key));
  }

  /**
   * Forwards `text` and resolves with what the HTTP response carries: the frame answering
   * `requests` (one, or a batch's). `onEvent` receives progress and log frames (SSE).
   */
  async exchange(text: string, requests: RequestInfo[], batch: boolean, onEvent?: (frame: string) => void): Promise<Outcome> {
    if (this.closing || this.closed) return GONE;
    if (!batch && this.collides(requests)) {
      return { kind: 'frame', frame: JSON.stringify(rpcError(-32600, 'invalid request: id is already in flight', JSON.parse(requests[0].key))) };
    }
    let waiter!: Waiter;
    const done = new Promise<Outcome>((resolve) => {
      waiter = {
        keys: requests.map((r) => r.key),
        batch,
        shutdownKeys: requests.filter((r) => r.method === 'shutdown').map((r) => r.key),
        tokens: requests.flatMap((r) => (r.token ? [r.token] : [])),
        onEvent,
        resolve,
      };
    });
    this.waiters.push(waiter);
    this.idleSince = undefined;
    try {
      await this.opts.send(text);
    } catch (e) {
      this.settle(this.waiters.indexOf(waiter), GONE);
      throw e;
    }
    return done;
  }

  /** Sends a frame that is owed no answer (notifications). */
  async forward(text: string): Promise<void> {
    if (!this.closed) await this.opts.send(text);
  }

  /** Called with every frame the session emits. */
  deliver(frame: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(frame);
    } catch {
      return;
    }
    if (Array.isArray(msg)) return this.deliverBatch(frame, msg);
    if (!isObject(msg)) return;
    if (typeof msg.method === 'string') return this.deliverEvent(frame, msg);
    if (!isValidId(msg.id)) return; // id null: the bridge never forwards what earns one
    const key = idKey(msg.id);
    const i = this.waiters.findIndex((w) => !w.batch && w.keys[0] === key);
    if (i < 0) return;
    const succeeded = this.waiters[i].shutdownKeys.length > 0 && isObject(msg.result);
    this.settle(i, { kind: 'frame', frame });
    if (succeeded) this.beginClose();
  }

  /** Ends the session now: exchanges still waiting get 503 (transport gone, §5.2). */
  close(): void {
    if (this.closed) return;
    this.closed = this.closing = true;
    for (const w of this.waiters.splice(0)) w.resolve(GONE);
    this.opts.onClose();
  }

  private deliverBatch(frame: string, msgs: unknown[]): void {
    const answered = new Map<string, unknown>();
    for (const m of msgs) if (isObject(m) && isValidId(m.id)) answered.set(idKey(m.id), m);
    // An all-null array answers a batch without valid ids, which the bridge already answered itself.
    const i = this.waiters.findIndex((w) => w.batch && w.keys.some((k) => answered.has(k)));
    if (i < 0) return;
    const succeeded = this.waiters[i].shutdownKeys.some((k) => isObject(answered.get(k)) && isObject((answered.get(k) as { result?: unknown }).result));
    this.settle(i, { kind: 'frame', frame });
    if (succeeded) this.beginClose();
  }

  private deliverEvent(frame: string, msg: Record<string, unknown>): void {
    const params = isObject(msg.params) ? msg.params : {};
    const token =
      msg.method === 'notifications/progress' ? params.progressToken : isObject(params._meta) ? params._meta.progressToken : undefined;
    if (isValidId(token)) {
      this.waiters.find((w) => w.tokens.includes(idKey(token)))?.onEvent?.(frame);
    } else if (msg.method === 'notifications/log' && this.opts.broadcastLogs) {
      for (const w of this.waiters) w.onEvent?.(frame);
    }
  }

  private settle(i: number, outcome: Outcome): void {
    if (i < 0) return;
    this.waiters.splice(i, 1)[0].resolve(outcome);
    if (this.waiters.length === 0) {
      this.idleSince = Date.now();
      if (this.closing) this.close();
    }
  }

  /** §13.1: after a successful shutdown, answer what is in flight, then end. */
  private beginClose(): void {
    this.closing = true;
    if (this.waiters.length === 0) return this.close();
    // The server answers what it received before the shutdown; a frame that crossed the shutdown
    // answer on the wire never will: do not let its exchange hang.
    setTimeout(() => this.close(), SHUTDOWN_GRACE_MS).unref();
  }
}

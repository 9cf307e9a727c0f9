/**
 * Correlates HTTP exchanges with frames of one RCP session: a request waits for the response
 * bearing its id, a batch for the array answering its ids, and progress frames are routed to the
 * exchange whose request carried the token (for SSE). Pure logic, no I/O: unit-testable.
 */
import { isObject, isValidId } from '../src/protocol/json.ts';

export type Outcome =
  | { kind: 'none' }
  | { kind: 'frame'; frame: string }
  | { kind: 'invalid'; status: number; body: unknown };

interface Waiter {
  ids: string[];
  batch: boolean;
  resolve(o: Outcome): void;
}

const key = (id: unknown) => JSON.stringify(id);
const rpcError = (code: number, message: string, id: unknown = null) => ({ jsonrpc: '2.0', id, error: { code, message } });

export class HttpSessionRouter {
  closed = false;
  private readonly waiters: Waiter[] = [];
  private readonly progress = new Map<string, (frame: string) => void>();
  private readonly sendFrame: (frame: string) => Promise<void>;
  private readonly onClose: () => void;

  constructor(sendFrame: (frame: string) => Promise<void>, onClose: () => void) {
    this.sendFrame = sendFrame;
    this.onClose = onClose;
  }

  /**
   * Forwards `text` (already parsed as `body`) and resolves with what the HTTP response carries.
   * `urlMethod` is the method named in the URL path ('' for `POST <base>`).
   */
  async exchange(text: string, body: unknown, urlMethod: string, onProgress?: (frame: string) => void): Promise<Outcome> {
    if (Array.isArray(body)) {
      if (body.length === 0) return { kind: 'invalid', status: 400, body: rpcError(-32600, 'invalid request: empty batch') };
      const ids = body.filter((m) => isObject(m) && isValidId(m.id)).map((m) => key((m as { id: unknown }).id));
      const invalid = body.some((m) => !isObject(m) || ('id' in m && !isValidId(m.id)));
      if (ids.length === 0 && !invalid) return this.forwardSilently(text);
      for (const m of body) if (isObject(m) && m.method === 'shutdown' && isValidId(m.id)) this.shutdownIds.add(key(m.id));
      return this.forward(text, ids, true);
    }
    if (!isObject(body)) return { kind: 'invalid', status: 400, body: rpcError(-32600, 'invalid request: not a JSON-RPC object') };
    if (!('id' in body)) return this.forwardSilently(text);
    if (!isValidId(body.id)) return { kind: 'invalid', status: 400, body: rpcError(-32600, 'invalid request: bad id') };
    // §5.2: the method in the path MUST match the body; a mismatch is -32600.
    if (urlMethod !== '' && body.method !== urlMethod) {
      return { kind: 'frame', frame: JSON.stringify(rpcError(-32600, `invalid request: path method '${urlMethod}' does not match body method`, body.id)) };
    }
    const id = key(body.id);
    if (this.waiters.some((w) => w.ids.includes(id))) {
      return { kind: 'frame', frame: JSON.stringify(rpcError(-32600, 'invalid request: id is already in flight', body.id)) };
    }
    if (body.method === 'shutdown') this.shutdownIds.add(id);
    const meta = isObject(body.params) && isObject(body.params._meta) ? body.params._meta : undefined;
    const token = meta && isValidId(meta.progressToken) ? key(meta.progressToken) : undefined;
    if (token && onProgress) this.progress.set(token, onProgress);
    try {
      return await this.forward(text, [id], false);
    } finally {
      if (token) this.progress.delete(token);
    }
  }

  /** Called with every frame the session emits. */
  deliver(frame: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(frame);
    } catch {
      return;
    }
    if (Array.isArray(msg)) {
      const ids = new Set(msg.filter((m) => isObject(m) && isValidId(m.id)).map((m) => key((m as { id: unknown }).id)));
      const i = this.waiters.findIndex((w) => w.batch && (w.ids.length === 0 || w.ids.some((id) => ids.has(id))));
      if (i >= 0) this.waiters.splice(i, 1)[0].resolve({ kind: 'frame', frame });
      if ([...ids].some((id) => this.shutdownIds.has(id))) this.close();
      return;
    }
    if (!isObject(msg)) return;
    if (msg.method === 'notifications/progress' && isObject(msg.params) && isValidId(msg.params.progressToken)) {
      this.progress.get(key(msg.params.progressToken))?.(frame);
      return;
    }
    if (typeof msg.method === 'string') return; // logs and other notifications have no HTTP home without SSE
    const id = key(msg.id);
    const i = this.waiters.findIndex((w) => !w.batch && w.ids[0] === id);
    if (i >= 0) {
      this.waiters.splice(i, 1)[0].resolve({ kind: 'frame', frame });
      if (isObject(msg.result) && this.shutdownIds.has(id)) this.close();
    } else if (msg.id === null) {
      // A framing-level error for a batch with only malformed members.
      const j = this.waiters.findIndex((w) => w.batch && w.ids.length === 0);
      if (j >= 0) this.waiters.splice(j, 1)[0].resolve({ kind: 'frame', frame });
    }
  }

  /** Ids of `shutdown` requests sent on this session: their answer ends it. */
  private readonly shutdownIds = new Set<string>();

  private async forward(text: string, ids: string[], batch: boolean): Promise<Outcome> {
    if (this.closed) return { kind: 'invalid', status: 503, body: rpcError(-32010, 'backend unavailable: the session was shut down') };
    const done = new Promise<Outcome>((resolve) => this.waiters.push({ ids, batch, resolve }));
    await this.sendFrame(text);
    return done;
  }

  private async forwardSilently(text: string): Promise<Outcome> {
    await this.sendFrame(text);
    return { kind: 'none' };
  }

  /** After `shutdown` the session is gone; the next request opens a fresh one. */
  private close(): void {
    if (this.closed) return;
    this.closed = true;
    // Nothing more will answer on this session: exchanges still waiting get a transport error.
    for (const w of this.waiters.splice(0)) w.resolve({ kind: 'invalid', status: 503, body: rpcError(-32010, 'backend unavailable: the session was shut down') });
    this.onClose();
  }
}

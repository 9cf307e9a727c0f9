/**
 * RCP over HTTP (§5.2) as a `Transport`, so the ordinary `RcpClient` drives a remote server: each
 * request frame is `POST <base>/<method>` with `Content-Type: application/json`, its answer is
 * delivered as the frame the client correlates. A request carrying `_meta.progressToken` also
 * accepts `text/event-stream`: an SSE answer is read as it arrives, each event's frame (progress,
 * log, then the response) delivered when it comes (§5.2, §9). Whatever goes wrong on the way
 * (server down, CORS, an HTTP error status, a body that is not the JSON-RPC answer, a body over
 * the size limit, a stream that ends unanswered) becomes a JSON-RPC error frame for that request
 * id, so the caller always gets exactly one typed answer.
 */
import { ErrorCode } from '../protocol/codes.ts';
import { isObject, isValidId, toWire } from '../protocol/json.ts';
import type { ErrorObject, Id } from '../protocol/types.ts';
import type { Transport } from './transport.ts';

/** Largest answer body read from a remote engine (a bigger one is refused, not parsed). */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface HttpTransportOptions {
  /** Extra request headers, e.g. `Authorization` (RCP carries no auth of its own, §5.2). */
  headers?: Record<string, string>;
  /** Answers longer than this are refused with an error (default 8 MiB). */
  maxResponseBytes?: number;
  /** The fetch to use (tests); default the global one. */
  fetch?: typeof fetch;
}

/** Transport-level HTTP statuses mapped to the RCP code they mirror (§5.2 table). */
const STATUS_CODES: Readonly<Record<number, number>> = {
  400: ErrorCode.InvalidRequest,
  401: ErrorCode.Unauthorized,
  403: ErrorCode.Unauthorized,
  404: ErrorCode.BackendUnavailable,
  413: ErrorCode.PayloadTooLarge,
  429: ErrorCode.RateLimited,
  500: ErrorCode.InternalError,
  503: ErrorCode.BackendUnavailable,
};

class TooLarge extends Error {}

/** Reads a body as text, refusing (and cancelling the download of) anything over `max` bytes. */
async function readBounded(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > max) throw new TooLarge(`answer of ${declared} bytes exceeds the ${max}-byte limit`);
  if (!res.body) return res.text();
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '', size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      void reader.cancel();
      throw new TooLarge(`answer exceeds the ${max}-byte limit`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * Reads an SSE body (§5.2), calling `onEvent` with each event's data as soon as its blank line
 * arrives (multi-line data joined by "\n"; comments and other fields ignored; an event the stream
 * ends inside is dropped, as the SSE rules say). Stops when `onEvent` returns true (the final
 * frame), when the stream ends, or when `signal` aborts; `max` bounds the whole stream's bytes.
 */
async function readEvents(res: Response, max: number, signal: AbortSignal, onEvent: (data: string) => boolean): Promise<void> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > max) throw new TooLarge(`answer of ${declared} bytes exceeds the ${max}-byte limit`);
  if (!res.body) throw new Error('event stream without a body');
  const reader = res.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  const decoder = new TextDecoder();
  let buffer = '', size = 0;
  let data: string[] | undefined; // the current event's data lines; undefined: no data field yet
  try {
    for (;;) {
      if (signal.aborted) return;
      const { done, value } = await reader.read();
      if (done || signal.aborted) return;
      size += value.byteLength;
      if (size > max) {
        stop();
        throw new TooLarge(`answer exceeds the ${max}-byte limit`);
      }
      buffer += decoder.decode(value, { stream: true });
      // Complete lines only; a trailing "\r" may be half of "\r\n", so it waits for the next chunk.
      const eol = /\r\n|\n|\r(?!$)/g;
      let start = 0;
      for (let m = eol.exec(buffer); m; m = eol.exec(buffer)) {
        const line = buffer.slice(start, m.index);
        start = eol.lastIndex;
        if (line === '') {
          if (data !== undefined && onEvent(data.join('\n'))) return stop();
          data = undefined;
          continue;
        }
        if (line.startsWith(':')) continue; // a comment (keep-alive)
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        if (field !== 'data') continue; // event, id, retry: nothing JSON-RPC needs
        const v = colon < 0 ? '' : line.slice(colon + 1);
        (data ??= []).push(v.startsWith(' ') ? v.slice(1) : v);
      }
      buffer = buffer.slice(start);
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/** Whether a parsed frame is a notification (progress, log) a stream may carry before its answer. */
const isNotification = (msg: unknown): boolean => isObject(msg) && msg.jsonrpc === '2.0' && typeof msg.method === 'string' && !('id' in msg);

/** The JSON-RPC answer to request `id` that `text` holds, or undefined when it holds anything else. */
function parseAnswer(text: string, id: Id): Record<string, unknown> | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isObject(msg) && msg.jsonrpc === '2.0' && msg.id === id && (isObject(msg.error) || 'result' in msg) ? msg : undefined;
}

export class HttpTransport implements Transport {
  onmessage?: (frame: string) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** The base URL without a trailing slash, e.g. `http://127.0.0.1:8787/rcp`. */
  readonly base: string;
  private readonly options: HttpTransportOptions;
  /** In-flight requests by id, so `notifications/cancel` also stops the download. */
  private readonly inflight = new Map<Id, AbortController>();
  /** The server's session token (§5.2: `initialize.result._meta.session`), sent as `RCP-Session`. */
  private session: string | undefined;
  private closed = false;

  constructor(base: string, options: HttpTransportOptions = {}) {
    this.base = base.replace(/\/+$/, '');
    this.options = options;
  }

  start(): void {}

  send(frame: string): void {
    if (this.closed) return;
    let msg: unknown;
    try {
      msg = JSON.parse(frame);
    } catch {
      return; // not JSON: nothing a server could answer, and no id to answer for
    }
    if (!isObject(msg) || typeof msg.method !== 'string') {
      void this.post(this.base, frame, undefined, undefined); // a batch or an odd frame (raw console): §5.2 base endpoint
      return;
    }
    if (msg.method === 'notifications/cancel' && isObject(msg.params) && isValidId(msg.params.id)) {
      this.inflight.get(msg.params.id)?.abort();
    }
    const id = isValidId(msg.id) ? msg.id : undefined;
    // Only a request that asks for progress may be answered as a stream (§9: progress needs a token).
    const streams = id !== undefined && isObject(msg.params) && isObject(msg.params._meta) && isValidId(msg.params._meta.progressToken);
    // The method goes into the path as is: `index/add` → `<base>/index/add` (§5.2).
    void this.post(`${this.base}/${msg.method.split('/').map(encodeURIComponent).join('/')}`, frame, id, msg.method, streams);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.inflight.values()) c.abort();
    this.inflight.clear();
    this.onclose?.();
  }

  private async post(url: string, body: string, id: Id | undefined, method: string | undefined, streams = false): Promise<void> {
    const abort = new AbortController();
    if (id !== undefined) this.inflight.set(id, abort);
    const accept = streams ? 'application/json, text/event-stream' : 'application/json';
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: accept, ...this.options.headers };
    if (this.session) headers['RCP-Session'] = this.session;
    const fetcher = this.options.fetch ?? globalThis.fetch.bind(globalThis);
    try {
      let res: Response;
      try {
        res = await fetcher(url, { method: 'POST', headers, body, signal: abort.signal, mode: 'cors', credentials: 'omit', cache: 'no-store' });
      } catch (e) {
        if (abort.signal.aborted) return; // cancelled by the client, which already settled the call
        // A refused connection, a DNS failure and a CORS refusal all look alike to a page.
        return this.fail(id, ErrorCode.BackendUnavailable, `engine unreachable at ${this.base} (${e instanceof Error ? e.message : String(e)}; is it running, and does it allow this origin?)`);
      }
      try {
        await this.receive(res, id, method, abort);
      } catch (e) {
        if (abort.signal.aborted && !(e instanceof TooLarge)) return;
        this.fail(id, ErrorCode.InternalError, e instanceof TooLarge ? `engine answer refused: ${e.message}` : `engine answer unreadable: ${e instanceof Error ? e.message : String(e)}`);
      }
    } finally {
      if (id !== undefined) this.inflight.delete(id);
    }
  }

  private async receive(res: Response, id: Id | undefined, method: string | undefined, abort: AbortController): Promise<void> {
    if (id === undefined) {
      void res.body?.cancel(); // a notification: 204 expected, nothing to deliver
      return;
    }
    const max = this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (res.status === 200 && /^\s*text\/event-stream\b/i.test(res.headers.get('content-type') ?? '')) return this.receiveStream(res, id, method, abort, max);
    const text = await readBounded(res, max);
    if (abort.signal.aborted) return;
    const answer = parseAnswer(text, id);
    if (res.status === 200 && answer) return this.deliver(answer, text, method);
    if (res.status !== 200) {
      // Prefer the JSON-RPC error a non-200 body may carry; else map the status (§5.2).
      if (answer && isObject(answer.error) && typeof answer.error.code === 'number') {
        this.onmessage?.(toWire({ jsonrpc: '2.0', id, error: answer.error }));
        return;
      }
      const retryAfter = Number(res.headers.get('retry-after'));
      const data = res.status === 429 && Number.isFinite(retryAfter) ? { retryAfterMs: retryAfter * 1000 } : undefined;
      return this.fail(id, STATUS_CODES[res.status] ?? ErrorCode.BackendUnavailable, `engine answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`, data);
    }
    this.fail(id, ErrorCode.InternalError, `malformed answer from ${this.base}: not a JSON-RPC response to request ${JSON.stringify(id)}`);
  }

  /** An SSE answer (§5.2): each notification delivered as it arrives, then the answer to `id`; other frames dropped. */
  private async receiveStream(res: Response, id: Id, method: string | undefined, abort: AbortController, max: number): Promise<void> {
    let answered = false;
    await readEvents(res, max, abort.signal, (data) => {
      if (this.closed) return true;
      const answer = parseAnswer(data, id);
      if (answer) {
        answered = true;
        this.deliver(answer, data, method);
        return true;
      }
      let msg: unknown;
      try {
        msg = JSON.parse(data);
      } catch {
        return false; // not a frame: nothing to deliver
      }
      if (isNotification(msg)) this.onmessage?.(data);
      return false;
    });
    if (answered || abort.signal.aborted) return;
    this.fail(id, ErrorCode.InternalError, `malformed answer from ${this.base}: the event stream ended without the JSON-RPC response to request ${JSON.stringify(id)}`);
  }

  /** Delivers a JSON-RPC answer, keeping the session token an `initialize` answer carries (§5.2). */
  private deliver(answer: Record<string, unknown>, text: string, method: string | undefined): void {
    if (method === 'initialize' && isObject(answer.result) && isObject(answer.result._meta) && typeof answer.result._meta.session === 'string') {
      this.session = answer.result._meta.session;
    }
    this.onmessage?.(text);
  }

  /** Delivers a synthesized error answer for a request (never for a notification). */
  private fail(id: Id | undefined, code: number, message: string, data?: ErrorObject['data']): void {
    if (id === undefined || this.closed) return;
    const error: ErrorObject = { code, message };
    if (data !== undefined) error.data = data;
    this.onmessage?.(toWire({ jsonrpc: '2.0', id, error }));
  }
}

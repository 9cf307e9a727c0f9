/**
 * A `Wire` over RCP's HTTP transport (§5.2) with `fetch`, so the same code runs in the page and in
 * Node: `POST <base>/<method>` (a batch or a frame without a method goes to `<base>`), the bearer
 * token when one is given, and `RCP-Session` once `initialize` returned a session token
 * (`result._meta.session`). Bodies are read up to a limit, a time limit applies to every exchange,
 * and SSE answers (`text/event-stream`) are split into their `data:` frames.
 */
import { isObject } from '../protocol/json.ts';
import { tryParse, type Fault, type Reply, type SendOptions, type Wire } from './wire.ts';

export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface HttpWireOptions {
  /** Sent as `Authorization: Bearer <token>`; never stored or reported. */
  token?: string;
  maxBodyBytes?: number;
  fetch?: typeof fetch;
  /** Added to the message of an unreachable endpoint (the page: what CORS needs). */
  unreachableHint?: string;
}

class TooLarge extends Error {}

async function readBounded(res: Response, max: number, signal: AbortSignal): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > max) {
    void res.body?.cancel();
    throw new TooLarge(`the answer declares ${declared} bytes, over the ${max}-byte limit`);
  }
  if (!res.body) return res.text();
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      void reader.cancel();
      throw new TooLarge(`the answer exceeds the ${max}-byte limit`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** The `data:` payloads of an SSE body, one per event (multi-line data joined with \n). */
export function sseFrames(body: string): string[] {
  const out: string[] = [];
  for (const event of body.replace(/\r\n/g, '\n').split(/\n\n+/)) {
    const data = event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, ''));
    if (data.length) out.push(data.join('\n'));
  }
  return out;
}

const snippet = (s: string, n = 120): string => (s.length > n ? `${s.slice(0, n)}…` : s).replace(/\s+/g, ' ');

export class HttpWire implements Wire {
  readonly transport = 'http' as const;
  readonly label: string;
  readonly base: string;
  private readonly o: HttpWireOptions;
  private sessionToken: string | undefined;

  constructor(base: string, options: HttpWireOptions = {}) {
    this.base = base.replace(/\/+$/, '');
    this.label = this.base;
    this.o = options;
  }

  /** The session token adopted from `initialize`, if any. */
  get session(): string | undefined {
    return this.sessionToken;
  }

  get hasToken(): boolean {
    return this.o.token !== undefined && this.o.token !== '';
  }

  async send(text: string, options: SendOptions): Promise<Reply> {
    const started = performance.now();
    const url = options.method ? `${this.base}/${options.method.split('/').map(encodeURIComponent).join('/')}` : this.base;
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (this.hasToken) headers.Authorization = `Bearer ${this.o.token}`;
    if (this.sessionToken) headers['RCP-Session'] = this.sessionToken;
    for (const [k, v] of Object.entries(options.headers ?? {})) {
      if (v === null) delete headers[k];
      else headers[k] = v;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error('timeout')), options.timeoutMs);
    const done = (r: Omit<Reply, 'ms'>): Reply => ({ ...r, ms: performance.now() - started });
    const fault = (kind: Fault['kind'], message: string, http?: Reply['http']): Reply => done({ frames: [], fault: { kind, message }, http });
    const fetcher = this.o.fetch ?? globalThis.fetch.bind(globalThis);
    try {
      let res: Response;
      try {
        res = await fetcher(url, { method: 'POST', headers, body: text, signal: abort.signal, mode: 'cors', credentials: 'omit', cache: 'no-store', redirect: 'error' });
      } catch (e) {
        if (abort.signal.aborted) return fault('timeout', `no answer within ${options.timeoutMs} ms`);
        return fault('unreachable', `${url} unreachable (${e instanceof Error ? e.message : String(e)})${this.o.unreachableHint ? `; ${this.o.unreachableHint}` : ''}`);
      }
      const contentType = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
      const http = { status: res.status, contentType, url };
      let body: string;
      try {
        body = await readBounded(res, this.o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, abort.signal);
      } catch (e) {
        if (e instanceof TooLarge) return fault('too-large', e.message, http);
        if (abort.signal.aborted) return fault('timeout', `the answer did not finish within ${options.timeoutMs} ms`, http);
        return fault('not-rpc', `the answer could not be read (${e instanceof Error ? e.message : String(e)})`, http);
      }
      if (body.trim() === '') return done({ frames: [], http });
      const frames = contentType === 'text/event-stream' ? sseFrames(body) : [body];
      const unparsable = frames.find((f) => !tryParse(f).ok);
      if (unparsable !== undefined || frames.length === 0) {
        return fault('not-rpc', `HTTP ${res.status} ${contentType || '(no content type)'} answer is not JSON: ${snippet(unparsable ?? body)}`, http);
      }
      if (options.method === 'initialize') this.adoptSession(frames);
      return done({ frames, http });
    } finally {
      clearTimeout(timer);
    }
  }

  strays(): string[] {
    return []; // every HTTP answer belongs to its request
  }

  async close(): Promise<void> {}

  /** §5.2: a stateful server's session token, from a successful initialize, is sent from then on. */
  private adoptSession(frames: string[]): void {
    for (const f of frames) {
      const p = tryParse(f);
      if (!p.ok || !isObject(p.value) || !isObject(p.value.result)) continue;
      const meta = p.value.result._meta;
      if (isObject(meta) && typeof meta.session === 'string' && isObject(p.value.result.capabilities) && typeof p.value.result.protocolVersion === 'number') {
        this.sessionToken = meta.session;
      }
    }
  }
}

/** HttpTransport's SSE answers (§5.2, §9): frames delivered as they arrive, bounded, typed errors. */
import { describe, expect, it } from 'vitest';
import { HttpTransport } from '../../src/transport/http-transport.ts';

/** A response body whose chunks the test pushes one by one. */
function controlled() {
  let ctl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctl = c) });
  const enc = new TextEncoder();
  return { body, push: (s: string) => ctl.enqueue(enc.encode(s)), end: () => ctl.close() };
}

function setup(res: () => Response, maxResponseBytes?: number) {
  const seen: { headers: Headers }[] = [];
  const frames: any[] = [];
  const t = new HttpTransport('http://e.test/rcp', {
    maxResponseBytes,
    fetch: (async (_u: RequestInfo | URL, init?: RequestInit) => (seen.push({ headers: new Headers(init?.headers) }), res())) as typeof fetch,
  });
  t.onmessage = (f) => frames.push(JSON.parse(f));
  return { t, seen, frames };
}

const tick = () => new Promise((ok) => setTimeout(ok, 20));
const req = (id: number, meta?: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, method: 'retrieve', params: { query: 'q', ...(meta ? { _meta: meta } : {}) } });
const progress = (p: number) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: p } });
const answer = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, result: { hits: [] } });
const sse = (body: ReadableStream<Uint8Array> | string) => new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });

describe('HttpTransport SSE answers', () => {
  it('asks for SSE only with a progressToken, and delivers each progress frame before the stream ends, then the answer', async () => {
    const s = controlled();
    const { t, seen, frames } = setup(() => sse(s.body));
    t.send(req(1, { progressToken: 'p1' }));
    await tick();
    expect(seen[0].headers.get('accept')).toBe('application/json, text/event-stream');
    s.push(`: keep-alive\n\ndata: ${progress(0.25)}\n\n`);
    await tick();
    expect(frames).toEqual([JSON.parse(progress(0.25))]);
    // A data line split across chunks, and a multi-line data field joined by "\n".
    const p2 = progress(0.5);
    s.push(`event: x\ndata: ${p2.slice(0, 10)}`);
    await tick();
    expect(frames).toHaveLength(1);
    s.push(`${p2.slice(10)}\r\n\r\ndata: {"jsonrpc":"2.0",\ndata: "id":1,"result":{"hits":[]}}\n\n`);
    await tick();
    expect(frames.map((f) => f.params?.progress ?? 'answer')).toEqual([0.25, 0.5, 'answer']);
    expect(frames[2]).toEqual(JSON.parse(answer(1)));
    expect(() => s.end()).toThrow(); // reading stopped at the answer: the stream was cancelled
  });

  it('a JSON answer works as before, with the plain Accept header without a token', async () => {
    const { t, seen, frames } = setup(() => new Response(answer(1), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    t.send(req(1));
    await tick();
    expect(seen[0].headers.get('accept')).toBe('application/json');
    expect(frames).toEqual([JSON.parse(answer(1))]);
  });

  it('a stream that ends without the answer becomes a typed error', async () => {
    const { t, frames } = setup(() => sse(`data: ${progress(0.5)}\n\ndata: ${answer(99)}\n\n`));
    t.send(req(1, { progressToken: 'p1' }));
    await tick();
    expect(frames).toHaveLength(2);
    expect(frames[0].method).toBe('notifications/progress');
    expect(frames[1]).toMatchObject({ id: 1, error: { code: -32603, message: expect.stringMatching(/ended without the JSON-RPC response/) } });
  });

  it('refuses a stream over the size limit', async () => {
    const { t, frames } = setup(() => sse(`data: ${progress(0.5)}\n\n`.repeat(20) + `data: ${answer(1)}\n\n`), 500);
    t.send(req(1, { progressToken: 'p1' }));
    await tick();
    const last = frames[frames.length - 1];
    expect(last).toMatchObject({ id: 1, error: { code: -32603, message: expect.stringMatching(/refused.*500-byte limit/) } });
    expect(frames.some((f) => f.result)).toBe(false);
  });

  it('stops reading when the request is cancelled', async () => {
    const s = controlled();
    const { t, frames } = setup(() => sse(s.body));
    t.send(req(1, { progressToken: 'p1' }));
    await tick();
    t.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 1 } }));
    await tick();
    expect(() => s.push(`data: ${answer(1)}\n\n`)).toThrow(); // the body was cancelled
    await tick();
    expect(frames).toEqual([]);
  });
});

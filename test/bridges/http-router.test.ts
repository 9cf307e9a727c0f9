import { describe, expect, it } from 'vitest';
import { classify, type RequestInfo } from '../../bridges/http-frame.ts';
import { notificationProblem } from '../../src/protocol/framing.ts';
import { HttpSessionRouter } from '../../bridges/http-router.ts';

/** A router wired to a fake session that answers what the test tells it to. */
function setup() {
  const sent: string[] = [];
  let closed = 0;
  const router = new HttpSessionRouter({ send: async (frame) => void sent.push(frame), onClose: () => void closed++ });
  return { router, sent, closedCount: () => closed };
}
const req = (id: unknown, method: string, params: object = {}) => ({ jsonrpc: '2.0', id, method, params });
/** The request infos a body carries (as the bridge classifies them). */
function infos(body: unknown): RequestInfo[] {
  const c = classify(body, '');
  if (c.kind === 'request') return [c.request];
  if (c.kind === 'batch') return c.requests;
  throw new Error(`not a request: ${c.kind}`);
}
const send = (router: HttpSessionRouter, body: unknown, onEvent?: (f: string) => void) =>
  router.exchange(JSON.stringify(body), infos(body), Array.isArray(body), onEvent);

describe('HTTP bridge routing (§5.2)', () => {
  it('a request resolves with the frame bearing its id', async () => {
    const { router, sent } = setup();
    const pending = send(router, req(1, 'ping'));
    await Promise.resolve();
    router.deliver('{"jsonrpc":"2.0","id":2,"result":{}}');
    router.deliver('{"jsonrpc":"2.0","id":1,"result":{"nonce":1}}');
    expect(await pending).toEqual({ kind: 'frame', frame: '{"jsonrpc":"2.0","id":1,"result":{"nonce":1}}' });
    expect(sent).toHaveLength(1);
  });

  it('a successful shutdown inside a batch ends the session; later exchanges get 503 instead of hanging', async () => {
    const { router, closedCount } = setup();
    const pending = send(router, [req(2, 'shutdown')]);
    await Promise.resolve();
    router.deliver('[{"jsonrpc":"2.0","id":2,"result":{}}]');
    expect((await pending).kind).toBe('frame');
    expect(router.closed).toBe(true);
    expect(closedCount()).toBe(1);
    expect(await send(router, req(3, 'ping'))).toMatchObject({ kind: 'invalid', status: 503 });
  });

  it('a REJECTED shutdown ends nothing, and its id is not remembered (issue 10, defect 4)', async () => {
    const { router, closedCount } = setup();
    const bad = send(router, req(7, 'shutdown', [1] as unknown as object));
    await Promise.resolve();
    router.deliver('{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"invalid params"}}');
    expect((await bad).kind).toBe('frame');
    const ping = send(router, req(7, 'ping'));
    await Promise.resolve();
    router.deliver('{"jsonrpc":"2.0","id":7,"result":{}}');
    expect(await ping).toEqual({ kind: 'frame', frame: '{"jsonrpc":"2.0","id":7,"result":{}}' });
    expect(router.closing).toBe(false);
    expect(closedCount()).toBe(0);
    const batch = send(router, [req(8, 'shutdown', [1] as unknown as object), req(9, 'ping')]);
    await Promise.resolve();
    router.deliver('[{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"x"}},{"jsonrpc":"2.0","id":9,"result":{}}]');
    await batch;
    expect(router.closing).toBe(false);
  });

  it('after a successful shutdown, exchanges in flight are still answered before the session closes', async () => {
    const { router, closedCount } = setup();
    const slow = send(router, req('add', 'index/add', { documents: [] }));
    const bye = send(router, req('bye', 'shutdown'));
    await Promise.resolve();
    router.deliver('{"jsonrpc":"2.0","id":"bye","result":{}}');
    await bye;
    expect(closedCount()).toBe(0);
    router.deliver('{"jsonrpc":"2.0","id":"add","result":{"ids":[]}}');
    expect(await slow).toMatchObject({ kind: 'frame' });
    expect(closedCount()).toBe(1);
  });

  it('progress and log frames reach the exchange whose request carried the token (SSE)', async () => {
    const { router } = setup();
    const seen: string[] = [];
    const pending = send(router, req(4, 'retrieve', { query: 'q', _meta: { progressToken: 't' } }), (f) => seen.push(f));
    await Promise.resolve();
    router.deliver('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"other","progress":0.1}}');
    router.deliver('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":0.5}}');
    router.deliver('{"jsonrpc":"2.0","method":"notifications/log","params":{"level":"info","message":"m","_meta":{"progressToken":"t"}}}');
    router.deliver('{"jsonrpc":"2.0","method":"notifications/log","params":{"level":"info","message":"untokened"}}');
    router.deliver('{"jsonrpc":"2.0","id":4,"result":{"hits":[]}}');
    await pending;
    expect(seen.map((f) => JSON.parse(f).method)).toEqual(['notifications/progress', 'notifications/log']);
  });

  it('an id already in flight is refused with -32600 without reaching the session', async () => {
    const { router, sent } = setup();
    void send(router, req(5, 'ping'));
    const second = await send(router, req(5, 'ping'));
    expect(JSON.parse((second as { frame: string }).frame).error.code).toBe(-32600);
    expect(sent).toHaveLength(1);
  });
});

describe('HTTP body classification', () => {
  it('answers what is no JSON-RPC message itself; notifications need jsonrpc and a string method', () => {
    expect(classify({}, '')).toMatchObject({ kind: 'reject', status: 400, body: { id: null, error: { code: -32600 } } });
    expect(classify({ foo: 'boo' }, '')).toMatchObject({ kind: 'reject', body: { error: { code: -32600 } } });
    expect(classify({ jsonrpc: '2.0', method: 5 }, '')).toMatchObject({ kind: 'reject', body: { error: { code: -32600 } } });
    expect(classify({ method: 'ping', params: {} }, 'ping')).toMatchObject({ kind: 'reject' });
    expect(classify([], '')).toMatchObject({ kind: 'reject', body: { id: null, error: { code: -32600 } } });
    expect(classify({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 1 } }, 'notifications/cancel')).toMatchObject({ kind: 'notification' });
    expect(classify(req(3, 'info'), 'ping')).toMatchObject({ kind: 'reject', status: 200, body: { id: 3, error: { code: -32600 } } });
    expect(classify([{}, { jsonrpc: '2.0', method: 'x' }, req(1, 'ping'), 5], '')).toMatchObject({ kind: 'batch', unanswerable: 2, notifications: 1, requests: [{ key: '1', method: 'ping' }] });
  });

  it('judges an id-less body as the server does (framing.ts): same verdict, same -32600 words, never a 204', () => {
    for (const m of [{}, { foo: 1 }, { jsonrpc: '2.0', method: 5 }, { jsonrpc: '1.0', method: 'ping' }, { method: 'ping', params: {} }]) {
      const detail = notificationProblem(m)!;
      expect(detail, JSON.stringify(m)).toBeDefined();
      expect(classify(m, ''), JSON.stringify(m)).toEqual({
        kind: 'reject',
        status: 400,
        body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: `invalid request: ${detail}`, data: { detail } } },
      });
    }
  });
});

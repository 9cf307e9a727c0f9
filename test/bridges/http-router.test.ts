import { describe, expect, it } from 'vitest';
import { HttpSessionRouter } from '../../bridges/http-router.ts';

/** A router wired to a fake session that answers what the test tells it to. */
function setup() {
  const sent: string[] = [];
  let closed = 0;
  const router = new HttpSessionRouter(
    async (frame) => void sent.push(frame),
    () => void closed++,
  );
  return { router, sent, closedCount: () => closed };
}
const req = (id: unknown, method: string, params: object = {}) => ({ jsonrpc: '2.0', id, method, params });

describe('HTTP bridge routing (§5.2)', () => {
  it('a request resolves with the frame bearing its id; a notification resolves at once', async () => {
    const { router, sent } = setup();
    const body = req(1, 'ping');
    const pending = router.exchange(JSON.stringify(body), body, 'ping');
    await Promise.resolve();
    router.deliver('{"jsonrpc":"2.0","id":2,"result":{}}');
    router.deliver('{"jsonrpc":"2.0","id":1,"result":{"nonce":1}}');
    expect(await pending).toEqual({ kind: 'frame', frame: '{"jsonrpc":"2.0","id":1,"result":{"nonce":1}}' });
    const note = { jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 9 } };
    expect(await router.exchange(JSON.stringify(note), note, 'notifications/cancel')).toEqual({ kind: 'none' });
    expect(sent).toHaveLength(2);
  });

  it('a path/body method mismatch is -32600 without reaching the session', async () => {
    const { router, sent } = setup();
    const body = req(3, 'info');
    const out = await router.exchange(JSON.stringify(body), body, 'ping');
    expect(out.kind).toBe('frame');
    expect(JSON.parse((out as { frame: string }).frame).error.code).toBe(-32600);
    expect(sent).toEqual([]);
  });

  it('shutdown inside a batch ends the session; later exchanges get 503 instead of hanging', async () => {
    const { router, closedCount } = setup();
    const batch = [req(2, 'shutdown')];
    const pending = router.exchange(JSON.stringify(batch), batch, '');
    await Promise.resolve();
    router.deliver('[{"jsonrpc":"2.0","id":2,"result":{}}]');
    expect((await pending).kind).toBe('frame');
    expect(router.closed).toBe(true);
    expect(closedCount()).toBe(1);
    const ping = req(3, 'ping');
    expect(await router.exchange(JSON.stringify(ping), ping, 'ping')).toMatchObject({ kind: 'invalid', status: 503 });
  });

  it('progress frames reach the exchange whose request carried the token', async () => {
    const { router } = setup();
    const seen: string[] = [];
    const body = req(4, 'retrieve', { query: 'q', _meta: { progressToken: 't' } });
    const pending = router.exchange(JSON.stringify(body), body, 'retrieve', (f) => seen.push(f));
    await Promise.resolve();
    router.deliver('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"other","progress":0.1}}');
    router.deliver('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":0.5}}');
    router.deliver('{"jsonrpc":"2.0","id":4,"result":{"hits":[]}}');
    await pending;
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]).params.progress).toBe(0.5);
  });
});

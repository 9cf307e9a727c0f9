import { describe, expect, it } from 'vitest';
import { classify } from '../../bridges/http-frame.ts';
import { HttpSessions, withSessionToken, type OpenSession } from '../../bridges/http-sessions.ts';
import type { Outcome } from '../../bridges/http-router.ts';
import { serve } from '../../src/server/rcp-session.ts';
import { createLinkedPair } from '../../src/transport/memory-transport.ts';
import { fakeBackend } from '../support/rcp-harness.ts';

/** Worker sessions as the page opens them, served by the real RcpSession over in-memory pairs. */
function world(limits?: ConstructorParameters<typeof HttpSessions>[1]) {
  const backend = fakeBackend();
  let opened = 0;
  const open: OpenSession = async (onFrame) => {
    opened++;
    const [client, server] = createLinkedPair();
    serve(server, backend);
    client.onmessage = onFrame;
    client.start();
    return { send: async (f) => client.send(f), close: async () => client.close() };
  };
  const sessions = new HttpSessions(open, limits);
  /** POST one body, as the HTTP bridge does after its checks. */
  const post = async (body: unknown, name?: string): Promise<any> => {
    const msg = classify(body, '');
    if (msg.kind === 'reject') throw new Error('rejected');
    const out: Outcome = await sessions.serve(name, { text: JSON.stringify(body), msg });
    return out.kind === 'frame' ? JSON.parse(out.frame) : out;
  };
  return { sessions, post, opened: () => opened, backend };
}
const req = (id: unknown, method: string, params: object = {}) => ({ jsonrpc: '2.0', id, method, params });
const init = (id: unknown = 1, protocolVersion = 1) => req(id, 'initialize', { protocolVersion, client: { name: 'sdk', version: '1' } });
const find = (q: string) => req(1, 'retrieve', { query: q, k: 1 });

describe('HTTP sessions (§5.2, issue 11 defect 2)', () => {
  it('two concurrent token-less clients: both initialize, and the same id in flight twice never collides', async () => {
    const { post } = world();
    const [a, b] = await Promise.all([post(init()), post(init())]);
    expect(a.result.protocolVersion).toBe(1);
    expect(b.result.protocolVersion).toBe(1);
    expect(a.result._meta.session).not.toBe(b.result._meta.session);
    const [ra, rb] = await Promise.all([post(find('alpha')), post(find('beta'))]);
    expect(ra).toMatchObject({ id: 1, result: { hits: [{ id: 'a' }] } });
    expect(rb).toMatchObject({ id: 1, result: { hits: [{ id: 'a' }] } });
  });

  it('a client that crashed without shutdown locks nobody out', async () => {
    const { post } = world();
    const first = await post(init());
    await post(find('x'), first.result._meta.session); // ...and never says shutdown
    const second = await post(init(2));
    expect(second.result.protocolVersion).toBe(1);
    expect((await post(find('y'))).result.hits).toHaveLength(1);
    expect((await post(find('z'), second.result._meta.session)).result.hits).toHaveLength(1);
  });

  it('token-less requests are served implicitly initialized; initialize and info answer idempotently', async () => {
    const { post } = world();
    expect((await post(find('x'))).result.hits).toHaveLength(1);
    expect((await post(init(5))).result.capabilities).toEqual((await post(init(6))).result.capabilities);
    expect((await post(req(7, 'info'))).result.server.name).toBe('fake');
    expect((await post(init(8, 0))).error.code).toBe(-32002); // a failed handshake is still the real answer
    expect((await post(req(9, 'does/not/exist'))).error.code).toBe(-32004);
  });

  it('a named session has the full §13 lifecycle and ends only on a successful shutdown', async () => {
    const { post, sessions } = world();
    expect((await post(find('x'), 'conf')).error.code).toBe(-32001);
    expect((await post(init(), 'conf')).result.protocolVersion).toBe(1);
    expect((await post(init(2), 'conf')).error.code).toBe(-32600);
    expect((await post(req(3, 'shutdown', [1] as unknown as object), 'conf')).error.code).toBe(-32602);
    expect((await post(req(3, 'ping'), 'conf')).result).toEqual({}); // the rejected shutdown's id means nothing now
    expect((await post(find('x'), 'conf')).result.hits).toHaveLength(1);
    expect((await post(req(4, 'shutdown'), 'conf')).result).toEqual({});
    expect(sessions.sessionCount).toBe(0);
    expect((await post(find('x'), 'conf')).error.code).toBe(-32001); // a new session under the same name
  });

  it('the issued token selects the stateful session; shutdown frees it', async () => {
    const { post } = world();
    const token = (await post(init())).result._meta.session as string;
    expect((await post(init(2), token)).error.code).toBe(-32600);
    expect((await post(req(3, 'shutdown'), token)).result).toEqual({});
    expect((await post(find('x'), token)).error.code).toBe(-32001);
  });

  it('token-less shutdown (rejected or not) never ends the shared pool', async () => {
    const { post } = world();
    expect((await post(find('x'))).result.hits).toHaveLength(1);
    expect((await post(req(2, 'shutdown', [1] as unknown as object))).error.code).toBe(-32602);
    expect((await post(req(3, 'shutdown'))).result).toEqual({});
    expect((await post([req(4, 'shutdown'), req(5, 'ping')])).map((m: { id: number }) => m.id).sort()).toEqual([4, 5]);
    expect((await post(find('y'))).result.hits).toHaveLength(1);
  });

  it('a token-less cancel reaches the request in flight', async () => {
    const { post, sessions } = world();
    const slow = post(req(9, 'retrieve', { query: 'slow', k: 1 }));
    await new Promise((ok) => setTimeout(ok, 0));
    await sessions.notify(undefined, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 9 } }));
    expect((await slow).error.code).toBe(-32006);
  });

  it('stateful sessions are capped: the least recently used idle one makes room', async () => {
    const { post, sessions } = world({ maxSessions: 2, idleMs: 3_600_000, maxPool: 4 });
    const t1 = (await post(init(1))).result._meta.session;
    await post(init(2));
    await post(init(3));
    expect(sessions.sessionCount).toBe(2);
    expect((await post(find('x'), t1)).error.code).toBe(-32001); // t1 was evicted
    sessions.closeAll();
  });

  it('withSessionToken keeps the id text and other _meta', () => {
    const frame = '{"jsonrpc":"2.0","id":12345678901234567890,"result":{"protocolVersion":1,"_meta":{"conformance":"L2"}}}';
    expect(withSessionToken(frame, 'tok')).toBe('{"jsonrpc":"2.0","id":12345678901234567890,"result":{"protocolVersion":1,"_meta":{"conformance":"L2","session":"tok"}}}');
  });
});

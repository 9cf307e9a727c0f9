import { request } from 'node:http';
import { expect, test } from '@playwright/test';
import { loadRcpSchema } from '../tools/lib/rcp-schema.ts';
import { startHttp } from '../tools/lib/bridge-process.ts';
import { RawHttp } from './support/raw-http.ts';

const PORT = Number(process.env.E2E_PORT ?? 4173) + 10_000;
const TOKEN = 'e2e-token-3f9a';
const ALLOWED = 'http://localhost:5173';
const auth = { Authorization: `Bearer ${TOKEN}` };
let bridge: Awaited<ReturnType<typeof startHttp>>;

test.beforeAll(async () => {
  bridge = await startHttp(PORT, ['--allow-origin', ALLOWED], { RCP_HTTP_TOKEN: TOKEN });
});
test.afterAll(async () => {
  await bridge?.stop();
});

/** A POST through node:http (which, unlike fetch, may set any Host). */
function post(path: string, body: string | object, headers: Record<string, string> = {}, method = 'POST'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const data = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port: PORT, path, method, headers: { 'Content-Type': 'application/json', ...auth, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => ok({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', fail);
    req.end(data);
  });
}
const rpc = (id: unknown, method: string, params: object = {}) => ({ jsonrpc: '2.0', id, method, params });
const json = async (r: Promise<{ body: string }>) => JSON.parse((await r).body);

test('security (issue 10): foreign Host, cross-origin, text/plain and missing token are refused; allowed ones work', async () => {
  const session = (await json(post('/rcp/initialize', rpc(1, 'initialize', { protocolVersion: 1 })))).result._meta.session;
  const s = { 'RCP-Session': session };
  expect((await json(post('/rcp/index/add', rpc(2, 'index/add', { documents: [{ id: 'private', text: 'a private note about payroll' }] }), s))).result.ids).toEqual(['private']);
  const attacks: [string, Record<string, string>, number][] = [
    ['foreign Host (DNS rebinding)', { Host: 'evil.example:' + PORT }, 403],
    ['cross-origin page', { Origin: 'https://evil.example' }, 403],
    ['opaque origin', { Origin: 'null' }, 403],
    ['text/plain simple request', { 'Content-Type': 'text/plain' }, 415],
    ['form post', { 'Content-Type': 'application/x-www-form-urlencoded' }, 415],
    ['missing token', { Authorization: '' }, 401],
    ['wrong token', { Authorization: 'Bearer nope' }, 401],
  ];
  for (const [what, headers, status] of attacks) {
    for (const [path, body] of [['/rcp/x-inpage/clear', rpc(3, 'x-inpage/clear')], ['/rcp/retrieve', rpc(4, 'retrieve', { query: 'payroll', k: 1, includeText: true })]] as const) {
      const r = await post(path, body, { ...s, ...headers });
      expect(r.status, what).toBe(status);
      expect(r.body, what).not.toContain('payroll');
      expect(r.headers['access-control-allow-origin'], what).toBeUndefined();
    }
  }
  expect((await post('/rcp/initialize', rpc(5, 'initialize', { protocolVersion: 1 }), { Authorization: '' })).status).toBe(401); // auth before initialize (§5.2)
  // Nothing was cleared; the allowed origin (with the token) works and gets its own origin back, never '*'.
  const ok = await post('/rcp/retrieve', rpc(6, 'retrieve', { query: 'payroll', k: 1 }), { ...s, Origin: ALLOWED });
  expect(ok.status).toBe(200);
  expect(ok.headers['access-control-allow-origin']).toBe(ALLOWED);
  expect(JSON.parse(ok.body).result.hits[0].id).toContain('private');
  const preflight = await post('/rcp/retrieve', '', { Origin: ALLOWED, Authorization: '', 'Access-Control-Request-Method': 'POST' }, 'OPTIONS');
  expect(preflight.status).toBe(204);
  expect(preflight.headers['access-control-allow-headers']).toContain('Authorization');
  expect((await post('/rcp/retrieve', '', { Origin: 'https://evil.example', Authorization: '' }, 'OPTIONS')).status).toBe(403);
  await json(post('/rcp/index/delete', rpc(7, 'index/delete', { ids: ['private'] }), s));
});

test('a third-party-style client: one raw keep-alive socket, Content-Length framing only, every frame schema-valid (issue 11)', async () => {
  const schema = loadRcpSchema();
  const http = await RawHttp.open(PORT);
  const frames: string[] = [];
  const call = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const r = await http.post(`/rcp${path}`, typeof body === 'string' ? body : JSON.stringify(body), { ...auth, ...headers });
    if (r.status !== 204) {
      expect(r.headers['content-type']).toBe('application/json');
      frames.push(r.body);
    }
    return { status: r.status, msg: r.status === 204 ? undefined : JSON.parse(r.body) };
  };
  try {
    expect((await call('/info', rpc(0, 'info'))).msg.result.server.name).toBe('rcp-in-page');
    expect((await call('/ping', rpc(1, 'ping', { nonce: 7 }))).msg.result).toEqual({ nonce: 7 });
    const init = (await call('/initialize', rpc(2, 'initialize', { protocolVersion: 1, client: { name: 'raw', version: '1' } }))).msg;
    expect(schema.result('initialize', init.result)).toEqual([]);
    const s = { 'RCP-Session': init.result._meta.session as string };
    expect((await call('/initialize', rpc(3, 'initialize', { protocolVersion: 1 }), s)).msg.error.code).toBe(-32600); // §13 within the session
    const add = (await call('/index/add', rpc(4, 'index/add', { documents: [{ id: 'raw1', text: 'Call me Ishmael, said the raw client.' }] }), s)).msg;
    expect(schema.result('index/add', add.result)).toEqual([]);
    const hit = (await call('/retrieve', rpc(5, 'retrieve', { query: 'Ishmael raw', k: 3, includeText: true }), s)).msg;
    expect(schema.result('retrieve', hit.result)).toEqual([]);
    expect(hit.result.hits[0].id).toContain('raw1');
    const batch = (await call('', [rpc(6, 'ping'), rpc('six', 'info'), { jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 99 } }], s)).msg;
    expect(batch.map((m: { id: unknown }) => m.id).sort()).toEqual([6, 'six']);
    expect((await call('/notifications/cancel', { jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 5 } }, s)).status).toBe(204);
    for (const bad of ['{}', '{"foo":1}', '{"foo":"boo"}', '{"jsonrpc":"2.0","method":5}', '{"method":"ping","params":{}}']) {
      const r = await call('/ping', bad, s);
      expect(r.status, bad).toBe(400); // not a JSON-RPC request: answered -32600, id null, never 204
      expect(r.msg.error.code).toBe(-32600);
      expect(r.msg.id).toBeNull();
    }
    expect((await call('', '[{},{"jsonrpc":"2.0","method":"ping"}]', s)).msg).toEqual([expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) })]);
    expect((await call('/ping', '{nope', s)).msg.error.code).toBe(-32700);
    expect((await call('/ping', rpc(7, 'info'), s)).msg.error.code).toBe(-32600); // path/body mismatch
    expect((await call('/x/y', rpc(8, 'x/y'), s)).msg.error.code).toBe(-32004);
    // Issue 10 defect 4: a rejected shutdown's id is not remembered.
    expect((await call('/shutdown', rpc(9, 'shutdown', [1] as unknown as object), s)).msg.error.code).toBe(-32602);
    expect((await call('/ping', rpc(9, 'ping'), s)).msg.result).toEqual({});
    expect((await call('/retrieve', rpc(10, 'retrieve', { query: 'Ishmael', k: 1 }), s)).msg.result.hits).toHaveLength(1);
    expect((await call('/index/delete', rpc(11, 'index/delete', { ids: ['raw1'] }), s)).msg.result.deleted).toBe(1);
    expect((await call('/shutdown', rpc(12, 'shutdown'), s)).msg.result).toEqual({});
    expect((await call('/retrieve', rpc(13, 'retrieve', { query: 'x', k: 1 }), s)).msg.error.code).toBe(-32001); // that session is gone
    expect((await call('/retrieve', rpc(14, 'retrieve', { query: 'x', k: 1 }))).msg.result.hits).toBeDefined(); // token-less: stateless
  } finally {
    http.close();
  }
  for (const f of frames) expect(schema.frame(f), f).toEqual([]);
  expect(frames.length).toBeGreaterThan(20);
});

test('sessions (issue 11): two concurrent token-less clients, then a crashed one followed by a new one', async () => {
  const client = async (name: string) => {
    const init = await json(post('/rcp/initialize', rpc(1, 'initialize', { protocolVersion: 1, client: { name, version: '1' } })));
    expect(init.result.protocolVersion).toBe(1);
    const add = await json(post('/rcp/index/add', rpc(2, 'index/add', { documents: [{ id: `${name}-doc`, text: `the ${name} client wrote this` }] })));
    expect(add.result.ids).toEqual([`${name}-doc`]);
    const hit = await json(post('/rcp/retrieve', rpc(3, 'retrieve', { query: `${name} client`, k: 1 })));
    expect(hit.result.hits[0].id).toContain(`${name}-doc`);
    return init.result._meta.session as string;
  };
  await Promise.all([client('alpha'), client('beta')]); // same ids, same moment: neither locks the other out
  await client('gamma'); // ...crashes: it never sends shutdown
  await client('delta'); // the next client gets in all the same
  const bye = await json(post('/rcp/shutdown', rpc(4, 'shutdown')));
  expect(bye.result).toEqual({});
  await client('epsilon'); // a token-less shutdown ends nobody else's session
  await json(post('/rcp', [rpc(5, 'index/delete', { ids: ['alpha-doc', 'beta-doc', 'gamma-doc', 'delta-doc', 'epsilon-doc'] })]));
});

test('§5.2 SSE: progress and log frames, then exactly one final response', async () => {
  const init = await json(post('/rcp/initialize', rpc('i', 'initialize', { protocolVersion: 1, capabilities: { log: {} } })));
  const s = { 'RCP-Session': init.result._meta.session };
  const docs = Array.from({ length: 200 }, (_, i) => ({ id: `s${i}`, text: `streaming document ${i}` }));
  const res = await post('/rcp/index/add', rpc('add', 'index/add', { documents: docs, _meta: { progressToken: 'tok' } }), { ...s, Accept: 'text/event-stream' });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toContain('text/event-stream');
  const events = res.body.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)));
  expect(events.at(-1).id).toBe('add');
  expect(events.at(-1).result.ids).toHaveLength(200);
  const notes = events.slice(0, -1);
  expect(notes.some((e) => e.method === 'notifications/progress' && e.params.progressToken === 'tok')).toBe(true);
  expect(notes.some((e) => e.method === 'notifications/log' && e.params._meta?.progressToken === 'tok')).toBe(true);
  expect(notes.every((e) => e.method === 'notifications/progress' || e.method === 'notifications/log')).toBe(true);
  await json(post('/rcp/index/delete', rpc('del', 'index/delete', { ids: docs.map((d) => d.id) }), s));
});

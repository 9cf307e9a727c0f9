import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';

const root = join(import.meta.dirname, '..');
const PORT = 18787;
const base = `http://127.0.0.1:${PORT}/rcp`;
let bridge: ChildProcess;

test.beforeAll(async () => {
  bridge = spawn('node', ['--import', 'tsx', 'bridges/rcp-http.ts', '--port', String(PORT)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  await new Promise<void>((ok, fail) => {
    bridge.stderr!.on('data', (d) => {
      stderr += d;
      if (stderr.includes('RCP over HTTP at')) ok();
    });
    bridge.on('exit', () => fail(new Error(`bridge exited: ${stderr}`)));
  });
});

test.afterAll(() => {
  bridge?.kill('SIGTERM');
});

const post = (path: string, body: string | object, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const rpc = (id: unknown, method: string, params: object = {}) => ({ jsonrpc: '2.0', id, method, params });

test('§5.2 HTTP: POST <base>/<method>, status mapping, notifications, batches, sessions', async () => {
  const info = await post('/info', rpc(0, 'info'));
  expect(info.status).toBe(200);
  expect((await info.json()).result.server.name).toBe('rcp-in-page');

  const pre = await post('/retrieve', rpc(1, 'retrieve', { query: 'x', k: 1 }));
  expect(pre.status).toBe(200); // a JSON-RPC error is still HTTP 200
  expect((await pre.json()).error.code).toBe(-32001);

  expect((await (await post('/initialize', rpc(2, 'initialize', { protocolVersion: 1 }))).json()).result.protocolVersion).toBe(1);

  const mismatch = await post('/ping', rpc(3, 'info'));
  expect((await mismatch.json()).error.code).toBe(-32600);

  const note = await post('/notifications/cancel', { jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 77 } });
  expect(note.status).toBe(204);
  expect(await note.text()).toBe('');

  const bad = await post('/ping', '{nope');
  expect(bad.status).toBe(400);

  const batch = await post('', [rpc(4, 'ping', { nonce: 4 }), rpc(5, 'ping', { nonce: 5 }), { jsonrpc: '2.0', method: 'ping' }]);
  const answers = await batch.json();
  expect(answers.map((a: { id: number }) => a.id).sort()).toEqual([4, 5]);

  expect((await fetch(`http://127.0.0.1:${PORT}/elsewhere`, { method: 'POST', body: '{}' })).status).toBe(404);

  // A separate session by header: uninitialized, independent of the default one.
  const other = await post('/retrieve', rpc(6, 'retrieve', { query: 'x', k: 1 }), { 'RCP-Session': 'second' });
  expect((await other.json()).error.code).toBe(-32001);
});

test('§5.2 SSE: progress frames then exactly one final response', async () => {
  await post('/initialize', rpc('i', 'initialize', { protocolVersion: 1 }), { 'RCP-Session': 'sse' });
  const docs = Array.from({ length: 200 }, (_, i) => ({ id: `s${i}`, text: `streaming document ${i}` }));
  const res = await post('/index/add', rpc('add', 'index/add', { documents: docs, _meta: { progressToken: 'tok' } }), {
    'RCP-Session': 'sse',
    Accept: 'text/event-stream',
  });
  expect(res.status).toBe(200);
  const body = await res.text();
  const events = body.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)));
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  expect(events.length).toBeGreaterThan(1);
  expect(events.at(-1).id).toBe('add');
  expect(events.at(-1).result.ids).toHaveLength(200);
  expect(events.slice(0, -1).every((e) => e.method === 'notifications/progress' && e.params.progressToken === 'tok')).toBe(true);
});

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { loadRcpSchema } from '../tools/lib/rcp-schema.ts';

const root = join(import.meta.dirname, '..');

/** Runs `rcp:stdio` with `lines` on stdin (then EOF) and returns what it wrote to stdout. */
async function runBridge(lines: string[], args: string[] = []): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const child = spawn('node', ['--import', 'tsx', 'bridges/rcp-stdio.ts', ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  for (const line of lines) child.stdin.write(`${line}\n`);
  child.stdin.end();
  const code = await new Promise<number | null>((ok) => child.on('exit', ok));
  return { stdout, stderr, code };
}

const req = (id: unknown, method: string, params: unknown = {}) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

test('a scripted stdio session: every frame validates against the normative schema', async () => {
  const schema = loadRcpSchema(); // throws loudly when ../shared/rcp/schema is missing
  const script = [
    req(0, 'info'),
    '',
    req(1, 'ping', { nonce: 7 }),
    req(2, 'retrieve', { query: 'x', k: 1 }),
    req(3, 'initialize', { protocolVersion: 1, client: { name: 'schema-test', version: '1' }, capabilities: { log: {} } }),
    req(4, 'index/add', { documents: [{ id: 'd1', text: 'Call me Ishmael. Some years ago, never mind how long precisely.', meta: { title: 'Loomings' } }, { text: 'A document without an id.' }] }),
    req(5, 'retrieve', { query: 'Ishmael', k: 3, includeText: true, _meta: { progressToken: 'pt' } }),
    req(6, 'retrieve', { query: 'x', k: -1 }),
    req(7, 'retrieve', { query: 'x', k: 10, candidateK: 2 }),
    req(8, 'does/not/exist'),
    req(9, 'index/delete', { ids: ['d1', 'missing'] }),
    '{not json',
    JSON.stringify([{ jsonrpc: '2.0', id: 10, method: 'ping' }, { jsonrpc: '2.0', method: 'ping' }, 5]),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 999 } }),
    req(11, 'shutdown'),
  ];
  const { stdout, stderr, code } = await runBridge(script);
  expect(code, stderr).toBe(0);
  const frames = stdout.split('\n').filter((l) => l !== '');
  expect(stdout.endsWith('\n')).toBe(true);
  for (const f of frames) expect(schema.frame(f), f).toEqual([]);
  const msgs = frames.map((f) => JSON.parse(f));
  const byId = new Map(msgs.filter((m) => !Array.isArray(m) && 'id' in m).map((m) => [m.id, m]));
  const methods: Record<number, string> = { 0: 'info', 1: 'ping', 3: 'initialize', 4: 'index/add', 5: 'retrieve', 9: 'index/delete', 11: 'shutdown' };
  for (const [id, method] of Object.entries(methods)) {
    const m = byId.get(Number(id));
    expect(m?.result, `response ${id}`).toBeDefined();
    if (method !== 'shutdown') expect(schema.result(method, m.result), method).toEqual([]);
  }
  expect(byId.get(2).error.code).toBe(-32001);
  expect(byId.get(6).error.code).toBe(-32602);
  expect(byId.get(7).error.code).toBe(-32602);
  expect(byId.get(8).error.code).toBe(-32004);
  expect(byId.get(null).error.code).toBe(-32700);
  expect(byId.get(5).result.hits[0].id).toContain('d1');
  expect(byId.get(9).result.deleted).toBe(1);
  expect(msgs.find(Array.isArray)).toHaveLength(2);
});

test('EOF is an implicit shutdown and --profile keeps the index between runs', async () => {
  const profile = mkdtempSync(join(tmpdir(), 'rcp-e2e-profile-'));
  try {
    const init = req(1, 'initialize', { protocolVersion: 1 });
    const first = await runBridge([init, req(2, 'index/add', { documents: [{ id: 'keep', text: 'persistence across bridge runs with a profile' }] })], ['--profile', profile]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('"ids":["keep"]');
    const second = await runBridge([init, req(2, 'retrieve', { query: 'persistence profile', k: 1 })], ['--profile', profile]);
    expect(second.code, second.stderr).toBe(0);
    const hit = JSON.parse(second.stdout.trim().split('\n').at(-1)!);
    expect(hit.result.hits[0].id).toContain('keep');
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
});

test('hostile input over stdio never kills or hangs the server', async () => {
  const hugeId = 'i'.repeat(1_000_000);
  const script = [
    '\u0000\u0001 garbage \uFFFF',
    '}{',
    '['.repeat(200_000) + ']'.repeat(200_000),
    JSON.stringify({ jsonrpc: '2.0', id: hugeId, method: 'ping', params: { nonce: 1 } }),
    JSON.stringify({ jsonrpc: '2.0', id: 1e308, method: 'ping' }),
    JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '1' } }),
    req(3, 'initialize', { protocolVersion: 1 }),
    req(4, 'retrieve', { query: 42, k: 'ten' }),
    `{"jsonrpc":"2.0","id":5,"method":"retrieve","params":{"query":"x","filter":${'{"not":'.repeat(5000)}{"field":"year","op":"eq","value":1}${'}'.repeat(5000)}}}`,
    req(6, 'index/add', { documents: [{ text: 5 }] }),
    req(7, 'notifications/cancel', { id: 1 }),
    req(8, 'x-evil/method'),
    req(9, 'ping', { nonce: 'still alive' }),
  ];
  const { stdout, code, stderr } = await runBridge(script);
  expect(code, stderr).toBe(0);
  const msgs = stdout.trim().split('\n').map((l) => JSON.parse(l));
  const byId = new Map(msgs.filter((m) => !Array.isArray(m)).map((m) => [typeof m.id === 'string' && m.id.length > 100 ? 'huge' : m.id, m]));
  expect(byId.get('huge').result).toEqual({ nonce: 1 });
  expect(byId.get(1e308).result).toEqual({});
  expect(byId.get(2).error.code).toBe(-32602);
  expect(byId.get(4).error).toMatchObject({ code: -32602, data: { field: expect.any(String) } });
  expect(byId.get(5).error.code).toBe(-32602);
  expect(byId.get(6).error).toMatchObject({ code: -32602, data: { field: 'documents[0].text' } });
  expect(byId.get(7).error.code).toBe(-32600);
  expect(byId.get(8).error.code).toBe(-32004);
  expect(byId.get(9).result).toEqual({ nonce: 'still alive' });
  expect(msgs.filter((m) => m.id === null).map((m) => m.error.code)).toEqual([-32700, -32700]);
  expect(msgs.find(Array.isArray)).toEqual([expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) })]);
});

test('a busy remembered port never hides the saved index, and the profile keeps its origin (issue 10, defect 1)', async () => {
  const profile = mkdtempSync(join(tmpdir(), 'rcp-e2e-busy-'));
  const blocker = createServer();
  try {
    // A profile written by an earlier bridge, which remembered the port of its origin.
    const port = await new Promise<number>((ok) => blocker.listen(0, '127.0.0.1', () => ok((blocker.address() as { port: number }).port)));
    await new Promise((ok) => blocker.close(ok));
    writeFileSync(join(profile, 'rcp-origin-port'), String(port));
    const init = req(1, 'initialize', { protocolVersion: 1 });
    const first = await runBridge([init, req(2, 'index/add', { documents: [{ id: 'kept', text: 'nineteen thousand documents in a busy harbour' }] })], ['--profile', profile]);
    expect(first.stdout, first.stderr).toContain('"ids":["kept"]');
    // Something else now listens on that port: the index must still be there.
    await new Promise<void>((ok) => blocker.listen(port, '127.0.0.1', () => ok()));
    const second = await runBridge([init, req(2, 'retrieve', { query: 'busy harbour', k: 1 })], ['--profile', profile]);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout.trim().split('\n').at(-1)!).result.hits[0]?.id).toContain('kept');
    expect(readFileSync(join(profile, 'rcp-origin-port'), 'utf8')).toBe(String(port)); // never rewritten
  } finally {
    blocker.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

test('a rejected shutdown ends nothing: the write in flight is answered, and only a successful shutdown ends the bridge (issue 10, defect 3)', async () => {
  const { stdout, stderr, code } = await runBridge([
    req(1, 'initialize', { protocolVersion: 1 }),
    req(2, 'shutdown', [1]),
    // Big enough to be still in flight when a bridge that wrongly exits on the rejection closes.
    req(3, 'index/add', { documents: [{ id: 'late', text: 'sent right after a rejected shutdown' }, ...Array.from({ length: 3000 }, (_, i) => ({ id: `bulk${i}`, text: `bulk document ${i} of the in-flight write` }))] }),
    req(4, 'retrieve', { query: 'rejected shutdown', k: 1 }),
    req(5, 'shutdown'),
  ]);
  expect(code, stderr).toBe(0);
  const byId = new Map(stdout.trim().split('\n').map((l) => JSON.parse(l)).map((m) => [m.id, m]));
  expect(byId.get(2).error.code).toBe(-32602);
  expect(byId.get(3).result.ids).toHaveLength(3001);
  expect(byId.get(4).result.hits[0].id).toContain('late');
  expect(byId.get(5).result).toEqual({});
});

test("the bridge's Chromium runs our encoder kernels in encoder workers started by the page (interception sees the page's requests)", async () => {
  test.setTimeout(240_000);
  const child = spawn('node', ['--import', 'tsx', 'bridges/rcp-stdio.ts'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  let buffered = '';
  const answers = new Map<number, (m: { result?: Record<string, any>; error?: unknown }) => void>();
  child.stdout.on('data', (d) => {
    buffered += d;
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const m = JSON.parse(buffered.slice(0, at));
      buffered = buffered.slice(at + 1);
      if (typeof m.id === 'number') answers.get(m.id)?.(m);
    }
  });
  const call = (id: number, method: string, params: unknown = {}) =>
    new Promise<{ result?: Record<string, any>; error?: unknown }>((ok) => (answers.set(id, ok), child.stdin.write(`${req(id, method, params)}\n`)));
  try {
    await call(1, 'initialize', { protocolVersion: 1, client: { name: 'runtime-test', version: '1' } });
    const embedded = await call(2, 'embed', { inputs: ['a query about whales'], kind: 'query' }); // waits for the model
    expect(embedded.result?.vectors?.[0], JSON.stringify(embedded.error)).toHaveLength(384);
    const embed = (await call(3, 'info')).result?._meta?.models?.embed;
    expect(embed?.runtime, JSON.stringify(embed)).toMatch(/^rcp-kernels \(WASM .*, \d workers? started by the page(, queries in this thread)?\)$/);
  } finally {
    child.stdin.end();
    await new Promise((ok) => child.on('exit', ok));
  }
});

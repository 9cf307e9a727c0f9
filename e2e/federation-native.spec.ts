/**
 * The bridges' aggregator reaching engines we did not write, from Node (bridges/engine-relay.ts):
 * an engine on the RCP repository's Python SDK (PyPI `rcp-protocol`, installed by
 * scripts/install.sh into .cache/rcp-reference) over HTTP and over stdio, neither sending any
 * CORS header; and engines that answer HTML, an oversized body, a JSON-RPC error on `initialize`,
 * or nothing at all; a stdio engine that prints a banner before `initialize`, one that exits at
 * once. Each bad one is skipped and named within the deadline, and the local answer still comes.
 * `RCP_REFERENCE=/path/to/rcp npm run test:federation-native` adds the repository's own example
 * server (examples/example_server.py of a checkout of github.com/1ay1/rcp).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ROOT, startHttp } from '../tools/lib/bridge-process.ts';

const BASE = Number(process.env.E2E_PORT ?? 4173) + 10_100;
const PORTS = { bridge: BASE, ref: BASE + 1, html: BASE + 2, huge: BASE + 3, initError: BASE + 4, silent: BASE + 5, withToken: BASE + 6, noToken: BASE + 7, down: BASE + 8, example: BASE + 9 };
const PY = join(ROOT, '.cache', 'rcp-reference', 'bin', 'python');
const ENGINE = join(ROOT, 'e2e', 'support', 'reference-engine.py');
const EXAMPLE = process.env.RCP_REFERENCE ? join(process.env.RCP_REFERENCE, 'examples', 'example_server.py') : undefined;
const url = (port: number) => `http://127.0.0.1:${port}/rcp`;
const OUR_TOKEN = 'our-bridge-token';

const children: ChildProcess[] = [];
const servers: Server[] = [];
let bridge: { child: ChildProcess; stderr(): string; stop(): Promise<void> } | undefined;
/** Authorization headers each fake engine saw. */
const seen: Record<string, (string | undefined)[]> = { withToken: [], noToken: [], html: [] };

test.describe.configure({ timeout: 240_000 });

async function post(method: string, params: object, id = 1): Promise<any> {
  const res = await fetch(`${url(PORTS.bridge)}/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${OUR_TOKEN}` },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  return res.json();
}

/** A fake HTTP engine: `answer` gets each JSON-RPC request; returning undefined never answers. */
async function fakeEngine(port: number, name: string, answer: (msg: any, req: IncomingMessage) => { type?: string; body: string | Buffer } | undefined): Promise<void> {
  const server = createServer(async (req, res) => {
    seen[name]?.push(req.headers.authorization);
    let text = '';
    for await (const chunk of req) text += chunk;
    const out = answer(JSON.parse(text || '{}'), req);
    if (!out) return; // hold the socket open: an engine that never answers
    if (!('id' in JSON.parse(text || '{}'))) return void res.writeHead(204).end();
    res.writeHead(200, { 'Content-Type': out.type ?? 'application/json' }).end(out.body);
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  servers.push(server);
}

const ok = (msg: any, result: unknown) => ({ body: JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }) });
const INIT = { protocolVersion: 1, server: { name: 'fake', version: '1' }, capabilities: { retrieve: {} } };
/** An engine that works: initialize, and one hit for any retrieve. */
const working = (hit: string) => (msg: any) => (msg.method === 'initialize' ? ok(msg, INIT) : ok(msg, { hits: [{ id: hit, score: 1, text: `${hit} whale` }] }));

function python(args: string[]): ChildProcess {
  const child = spawn(PY, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}

async function listening(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`${url(port)}/ping`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"jsonrpc":"2.0","id":0,"method":"ping"}' }).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on ${port}`);
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  if (!existsSync(PY)) throw new Error(`no ${PY}: run scripts/install.sh (it installs the RCP repository's Python SDK from PyPI)`);
  python([ENGINE, '--http', String(PORTS.ref)]);
  if (EXAMPLE) python([EXAMPLE, '--http', String(PORTS.example)]);
  await listening(PORTS.ref);
  if (EXAMPLE) await listening(PORTS.example);
  await fakeEngine(PORTS.html, 'html', () => ({ type: 'text/html', body: '<!doctype html><html><body>It works!</body></html>' }));
  await fakeEngine(PORTS.huge, 'huge', (msg) => (msg.method === 'initialize' ? ok(msg, INIT) : { body: Buffer.alloc(9 * 1024 * 1024, 0x20) }));
  await fakeEngine(PORTS.initError, 'initError', (msg) => ({ body: JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32002, message: 'no common version' } }) }));
  await fakeEngine(PORTS.silent, 'silent', () => undefined);
  await fakeEngine(PORTS.withToken, 'withToken', working('token-whale'));
  await fakeEngine(PORTS.noToken, 'noToken', working('plain-whale'));
  const stdio = (args: string) => `${PY} ${ENGINE} ${args}`;
  bridge = await startHttp(
    PORTS.bridge,
    [
      '--token', OUR_TOKEN,
      '--identity', 'native-agg',
      '--federate', url(PORTS.ref),
      '--federate-stdio', stdio('--banner'),
      '--federate-stdio', `sh -c 'echo starting; exit 3'`,
      '--federate-stdio', stdio('--fail-init'),
      '--federate', url(PORTS.html),
      '--federate', url(PORTS.huge),
      '--federate', url(PORTS.initError),
      '--federate', url(PORTS.silent),
      '--federate', url(PORTS.withToken), '--federate-token', 'engine-secret',
      '--federate', url(PORTS.noToken),
      '--federate', url(PORTS.down),
      ...(EXAMPLE ? ['--federate', url(PORTS.example), '--federate-stdio', `${PY} ${EXAMPLE}`] : []),
    ],
    {},
  );
  expect((await post('index/add', { documents: [{ id: 'local-whale', text: 'The white whale as our own index knows it.' }] })).result.ids).toEqual(['local-whale']);
});

test.afterAll(async () => {
  await bridge?.stop();
  for (const c of children) c.kill();
  for (const s of servers) s.closeAllConnections(), s.close();
});

test('catalog/list names each reachable engine with its identity and capabilities, and each unreachable one with why', async () => {
  const r = (await post('catalog/list', {})).result;
  const byId = Object.fromEntries(r.engines.map((e: any) => [e.id, e]));
  const ref = byId[`127.0.0.1:${PORTS.ref}`];
  expect(ref, JSON.stringify(r)).toBeDefined();
  expect(ref.server.name).toBe('rcp-reference-python');
  expect(ref.capabilities.retrieve.maxK).toBe(50);
  expect(ref.endpoint).toEqual({ transport: 'http', url: url(PORTS.ref) });
  const stdio = byId['stdio:reference-engine'];
  expect(stdio.server.name).toBe('rcp-reference-python');
  expect(stdio.endpoint.transport).toBe('stdio');
  const down = Object.fromEntries(r._meta.unreachable.map((u: any) => [u.id, u.error]));
  expect(Object.keys(down).sort()).toEqual(
    [`127.0.0.1:${PORTS.html}`, `127.0.0.1:${PORTS.initError}`, `127.0.0.1:${PORTS.silent}`, `127.0.0.1:${PORTS.down}`, 'stdio:sh', 'stdio:reference-engine-2'].sort(),
  );
  expect(down[`127.0.0.1:${PORTS.initError}`]).toContain('no common version');
  expect(down['stdio:sh']).toContain('exited');
  if (EXAMPLE) expect(byId[`127.0.0.1:${PORTS.example}`].server.name).toBe('rcp-example');
});

test('a federated retrieve fuses the native engines with ours by §16.3 and skips every bad one, by name, within the deadline', async () => {
  const t0 = Date.now();
  const r = (await post('retrieve', { query: 'white whale', k: 10, _meta: { federate: true } }, 7)).result;
  const took = Date.now() - t0;
  expect(took, JSON.stringify(r._meta.engines)).toBeLessThan(8_000); // the aggregator's 5 s deadline, the never-answering engine cut off
  const states = Object.fromEntries(r._meta.engines.map((e: any) => [e.id, e.state]));
  expect(states.local).toBe('ok');
  expect(states[`127.0.0.1:${PORTS.ref}`]).toBe('ok');
  expect(states['stdio:reference-engine']).toBe('ok');
  expect(states[`127.0.0.1:${PORTS.silent}`]).toBe('timeout');
  for (const bad of [PORTS.html, PORTS.huge, PORTS.initError, PORTS.down]) expect(states[`127.0.0.1:${bad}`]).toBe('failed');
  const notes = r.usage.notes.join('\n');
  expect(notes).toMatch(new RegExp(`127.0.0.1:${PORTS.html}' failed and was skipped.*malformed answer`));
  expect(notes).toMatch(new RegExp(`127.0.0.1:${PORTS.huge}' failed and was skipped.*limit`));
  expect(notes).toMatch(new RegExp(`127.0.0.1:${PORTS.silent}' timed out and was skipped`));
  expect(notes).toContain('partial result');
  // §16.3 RRF (the reference engine advertises no scoreFloor): ranks, not scores; each document once.
  const ids = r.hits.map((h: any) => h.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual(expect.arrayContaining(['local-whale', 'ref-whale', 'token-whale', 'plain-whale']));
  expect(r._meta.fusion).toBe('rrf');
  const refWhale = r.hits.find((h: any) => h.id === 'ref-whale');
  expect(refWhale.meta.engines.sort()).toEqual([`127.0.0.1:${PORTS.ref}`, 'stdio:reference-engine'].sort());
  expect(refWhale.score).toBeCloseTo(2 / 61, 10); // rank 1 on both reference engines
  expect(r.hits.find((h: any) => h.id === 'local-whale').score).toBeCloseTo(1 / 61, 10);
  if (!EXAMPLE) expect(ids[0]).toBe('ref-whale'); // the example server's own rank-1 hits tie with it
});

test('a plain retrieve stays local, and an engine gets a token only when one is configured for it', async () => {
  const r = (await post('retrieve', { query: 'white whale' }, 8)).result;
  expect(r.hits.map((h: any) => h.id)).toEqual(['local-whale']);
  const federated = (await post('retrieve', { query: 'white whale', _meta: { federate: true } }, 9)).result;
  expect(federated.hits.map((h: any) => h.id)).toEqual(expect.arrayContaining(['token-whale', 'plain-whale']));
  expect(seen.withToken.length).toBeGreaterThan(0);
  expect(new Set(seen.withToken)).toEqual(new Set(['Bearer engine-secret']));
  expect(new Set([...seen.noToken, ...seen.html])).toEqual(new Set([undefined]));
});

test('the stdio engines that misbehave are named on stderr, and the bridge still serves', async () => {
  const all = bridge!.stderr();
  expect(all).toMatch(/engine 'stdio:reference-engine' wrote a line that is not a JSON-RPC frame to stdout before initialize/);
  expect(all).toMatch(/engine 'stdio:sh' exited at once \(code 3\); restarting in \d+ s/);
  expect(all).toMatch(/engine 'stdio:reference-engine-2' failed to initialize: .*refuses every protocol version/);
  expect((await post('ping', {}, 10)).result).toEqual({});
});

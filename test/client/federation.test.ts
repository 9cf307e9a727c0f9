import { describe, expect, it } from 'vitest';
import { Federation, type FederatedResult } from '../../src/client/federation/federation.ts';
import { enginesFromRegistry } from '../../src/client/federation/engines.ts';
import { RcpClient } from '../../src/client/rcp-client.ts';
import { RcpError } from '../../src/protocol/errors.ts';
import type { Capabilities, Hit } from '../../src/protocol/types.ts';
import { serve } from '../../src/server/rcp-session.ts';
import { createLinkedPair } from '../../src/transport/memory-transport.ts';
import { fakeBackend } from '../support/rcp-harness.ts';

/** How a fake HTTP engine answers `retrieve`. */
type Behaviour =
  | { hits: Hit[]; notes?: string[] }
  | { never: true }
  | { status: number; body?: string }
  | { body: string }
  | { down: true };

interface FakeEngine {
  caps?: Capabilities;
  retrieve: Behaviour;
  /** Every request this engine received: method, parsed body, headers. */
  seen: { method: string; body: any; headers: Headers }[];
  /** Resolves when a never-answering request is aborted by the client. */
  aborted?: Promise<void>;
}

const json = (v: unknown, status = 200) => new Response(JSON.stringify(v), { status, headers: { 'Content-Type': 'application/json' } });

function engine(retrieve: Behaviour, caps: Capabilities = { retrieve: { maxK: 100 } }): FakeEngine {
  return { caps, retrieve, seen: [] };
}

/** A fetch that routes `http://<name>.test/rcp/<method>` to the fake engine `<name>`. */
function fakeFetch(engines: Record<string, FakeEngine>): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const e = engines[url.hostname.replace(/\.test$/, '')];
    const method = url.pathname.replace(/^\/rcp\//, '');
    const body = JSON.parse(String(init?.body));
    e.seen.push({ method, body, headers: new Headers(init?.headers) });
    if (method === 'notifications/cancel') return new Response(null, { status: 204 });
    if (method === 'initialize') {
      return json({ jsonrpc: '2.0', id: body.id, result: { protocolVersion: 1, server: { name: url.hostname, version: '1' }, capabilities: e.caps ?? {} } });
    }
    const b = e.retrieve;
    if ('down' in b) throw new TypeError('Failed to fetch');
    if ('never' in b) {
      return new Promise<Response>((_, reject) => {
        e.aborted = new Promise<void>((ok) => init?.signal?.addEventListener('abort', () => (ok(), reject(new DOMException('aborted', 'AbortError')))));
      });
    }
    if ('status' in b) return new Response(b.body ?? '', { status: b.status });
    if ('body' in b) return new Response(b.body, { status: 200 });
    return json({ jsonrpc: '2.0', id: body.id, result: { hits: b.hits, usage: b.notes ? { notes: b.notes } : undefined } });
  }) as typeof fetch;
}

const hit = (id: string | number, score: number, text?: string): Hit => ({ id, score, ...(text ? { text } : {}), meta: { from: String(id) } });
const ids = (r: FederatedResult) => r.hits.map((h) => h.id);

function federation(engines: Record<string, FakeEngine>, extra: Partial<Record<string, { weight?: number; required?: boolean; local?: boolean }>> = {}, options: ConstructorParameters<typeof Federation>[1] = {}) {
  const specs = Object.keys(engines).map((id) => ({ id, url: `http://${id}.test/rcp`, ...extra[id] }));
  return new Federation(specs, { deadlineMs: 2000, ...options, http: { fetch: fakeFetch(engines), ...options.http } });
}

const rejection = (p: Promise<unknown>): Promise<RcpError> =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: RcpError) => e,
  );

describe('Federation fan-out over HTTP engines (§16.2, §5.2)', () => {
  it('POSTs <base>/<method> with Content-Type application/json, asks each engine for k × overfetch hits, and propagates deadline and hop budget', async () => {
    const a = engine({ hits: [hit('x', 1)] });
    const f = federation({ a });
    await f.retrieve({ query: 'q', k: 4 });
    const req = a.seen.find((s) => s.method === 'retrieve')!;
    expect(req.headers.get('content-type')).toBe('application/json');
    expect(req.body).toMatchObject({ jsonrpc: '2.0', method: 'retrieve', params: { query: 'q', k: 8 } });
    expect(req.body.params._meta.federation).toEqual({ depth: 3, path: [] });
    expect(req.body.params._meta.deadlineMs).toBeGreaterThan(0);
    expect(req.body.params._meta.deadlineMs).toBeLessThan(2000);
    expect(a.seen.map((s) => s.method)).toEqual(['initialize', 'retrieve']);
  });

  it('fuses with RRF by default, dedups by stringified id, tags meta.engine and keeps the richest body', async () => {
    const a = engine({ hits: [hit('shared', 3, 'short'), hit('a1', 2)] });
    const b = engine({ hits: [hit('b1', 9), hit('shared', 8, 'the much longer text')] });
    const r = await federation({ a, b }).retrieve({ query: 'q', k: 10 });
    expect(r.fusion).toBe('rrf');
    expect(ids(r)).toEqual(['shared', 'b1', 'a1']); // 1/61+1/62, then 1/61 (b1 is b's first), then 1/62
    const shared = r.hits[0];
    expect(shared.text).toBe('the much longer text');
    expect(shared.meta).toMatchObject({ engine: 'a', engines: ['a', 'b'], engineRank: 1, engineScore: 3 });
    expect(r.hits.find((h) => h.id === 'b1')!.meta).toMatchObject({ engine: 'b', engines: ['b'] });
    expect(r.engines.map((e) => [e.id, e.state, e.hits])).toEqual([
      ['a', 'ok', 2],
      ['b', 'ok', 2],
    ]);
    expect(r.usage?.notes).toEqual([]);
  });

  it('breaks ties deterministically (§16.3): same fused score and weight → smaller id first, whatever the engine order', async () => {
    const run = (order: string[]) => {
      const engines: Record<string, FakeEngine> = {};
      for (const id of order) engines[id] = engine({ hits: [hit(id === 'a' ? 'zeta' : 'alpha', 1)] });
      return federation(engines).retrieve({ query: 'q' });
    };
    expect(ids(await run(['a', 'b']))).toEqual(['alpha', 'zeta']);
    expect(ids(await run(['b', 'a']))).toEqual(['alpha', 'zeta']);
  });

  it('applies engine weights', async () => {
    const a = engine({ hits: [hit('a1', 1)] });
    const b = engine({ hits: [hit('b1', 1)] });
    expect(ids(await federation({ a, b }, { b: { weight: 2 } }).retrieve({ query: 'q' }))).toEqual(['b1', 'a1']);
    expect(ids(await federation({ a, b }, { a: { weight: 2 } }).retrieve({ query: 'q' }))).toEqual(['a1', 'b1']);
  });

  it('uses convex fusion only when every answering engine advertises scoreFloor, RRF otherwise', async () => {
    const floored = (hits: Hit[]) => engine({ hits }, { retrieve: { scoreFloor: 0 } });
    // Convex: a1 normalises to 1 in a, b1 to 1 in b; b2 (score 9 of max 10) beats a2 (1 of max 10).
    const a = floored([hit('a1', 10), hit('a2', 1)]);
    const b = floored([hit('b1', 10), hit('b2', 9)]);
    const convex = await federation({ a, b }).retrieve({ query: 'q' });
    expect(convex.fusion).toBe('convex');
    expect(ids(convex)).toEqual(['a1', 'b1', 'b2', 'a2']);
    const c = engine({ hits: [hit('c1', 5)] }); // no floor
    const mixed = await federation({ a: floored([hit('a1', 10), hit('a2', 1)]), c }, {}, { fusion: 'convex' }).retrieve({ query: 'q' });
    expect(mixed.fusion).toBe('rrf');
  });

  it('truncates the fused list to k', async () => {
    const a = engine({ hits: Array.from({ length: 20 }, (_, i) => hit(`d${i}`, 20 - i)) });
    expect((await federation({ a }).retrieve({ query: 'q', k: 5 })).hits).toHaveLength(5);
  });

  it('joins a stateful HTTP server that another client already initialized through info (§5.2, §7.2)', async () => {
    const shared = engine({ hits: [hit('s1', 1)] });
    const fetchShared = fakeFetch({ shared });
    const refusing: typeof fetch = async (input, init) => {
      const body = JSON.parse(String(init?.body));
      if (body.method === 'initialize') return json({ jsonrpc: '2.0', id: body.id, error: { code: -32600, message: 'already initialized' } });
      if (body.method === 'info') return json({ jsonrpc: '2.0', id: body.id, result: { protocolVersion: 1, server: { name: 'ref', version: '1' }, capabilities: { retrieve: {} } } });
      return fetchShared(input, init);
    };
    const f = new Federation([{ id: 'shared', url: 'http://shared.test/rcp' }], { http: { fetch: refusing } });
    const r = await f.retrieve({ query: 'q' });
    expect(ids(r)).toEqual(['s1']);
  });

  it('skips engines that do not advertise retrieve, without counting them as failures', async () => {
    const a = engine({ hits: [hit('a1', 1)] });
    const e = engine({ hits: [] }, { embed: { dimension: 3, identity: 'x' } });
    const r = await federation({ a, e }).retrieve({ query: 'q' });
    expect(r.engines[1]).toMatchObject({ id: 'e', state: 'skipped', note: 'does not advertise retrieve' });
    expect(r._meta).toBeUndefined();
    expect(e.seen.map((s) => s.method)).toEqual(['initialize']);
  });
});

describe('Federation faults: one bad engine never sinks the others', () => {
  it('drops a slow engine at the client deadline, cancels its request, and notes it', async () => {
    const a = engine({ hits: [hit('a1', 1)] });
    const slow = engine({ never: true });
    const r = await federation({ a, slow }, {}, { deadlineMs: 200 }).retrieve({ query: 'q' });
    expect(ids(r)).toEqual(['a1']);
    expect(r.engines[1]).toMatchObject({ id: 'slow', state: 'timeout', error: { code: -32014 } });
    expect(r._meta).toEqual({ degraded: ['slow'] });
    expect(r.usage?.notes?.some((n) => n.includes("engine 'slow' timed out"))).toBe(true);
    await slow.aborted; // the HTTP request itself was aborted
    expect(slow.seen.some((s) => s.method === 'notifications/cancel')).toBe(true);
  });

  it.each([
    ['down', { down: true } as Behaviour, -32010, 'unreachable'],
    ['HTTP 500', { status: 500 } as Behaviour, -32603, 'HTTP 500'],
    ['HTTP 503', { status: 503 } as Behaviour, -32010, 'HTTP 503'],
    ['not JSON', { body: '<html>oops' } as Behaviour, -32603, 'malformed answer'],
    ['wrong id', { body: JSON.stringify({ jsonrpc: '2.0', id: 999, result: { hits: [] } }) } as Behaviour, -32603, 'malformed answer'],
    ['hits not an array', { body: '' } as Behaviour, -32603, 'malformed answer'],
  ])('notes a failing engine (%s) and keeps the others’ hits', async (_name, behaviour, code, text) => {
    const a = engine({ hits: [hit('a1', 1)] });
    const bad = engine(behaviour);
    if ('body' in behaviour && behaviour.body === '') bad.retrieve = { hits: 'nope' as unknown as Hit[] };
    const r = await federation({ a, bad }).retrieve({ query: 'q' });
    expect(ids(r)).toEqual(['a1']);
    expect(r.engines[1]).toMatchObject({ id: 'bad', state: 'failed', error: { code } });
    expect(r.engines[1].error!.message).toContain(text);
    expect(r._meta).toEqual({ degraded: ['bad'] });
  });

  it('drops malformed hits of an otherwise good answer and says how many', async () => {
    const bad = [{ id: { no: 1 }, score: 1 }, { id: 'nan', score: 'high' }, null] as unknown as Hit[];
    const a = engine({ hits: [hit('ok', 1), ...bad] });
    const r = await federation({ a }).retrieve({ query: 'q' });
    expect(ids(r)).toEqual(['ok']);
    expect(r.engines[0].note).toBe('3 malformed hits dropped');
  });

  it('refuses an answer over the byte limit and cuts one over the hit limit', async () => {
    const many = Array.from({ length: 5000 }, (_, i) => hit(`h${i}`, 1, 'x'.repeat(100)));
    const huge = engine({ hits: many });
    const a = engine({ hits: [hit('a1', 1)] });
    const refused = await federation({ a, huge }, {}, { http: { maxResponseBytes: 100_000 } }).retrieve({ query: 'q' });
    expect(refused.engines[1]).toMatchObject({ state: 'failed', error: { code: -32603 } });
    expect(refused.engines[1].error!.message).toContain('limit');
    const cut = await federation({ huge }, {}, { maxHitsPerEngine: 50 }).retrieve({ query: 'q', k: 10 });
    expect(cut.engines[0]).toMatchObject({ state: 'ok', hits: 50, note: 'answer cut from 5000 to 50 hits' });
    expect(cut.hits).toHaveLength(10);
  });

  it('fails the whole query with the error code of a failing required engine', async () => {
    const a = engine({ hits: [hit('a1', 1)] });
    const req = engine({ status: 429 });
    const e = await rejection(federation({ a, req }, { req: { required: true } }).retrieve({ query: 'q' }));
    expect(e).toBeInstanceOf(RcpError);
    expect(e.code).toBe(-32011);
    expect(e.data?.engine).toBe('req');
  });

  it('answers -32010 when no engine answers, listing why each failed', async () => {
    const e = await rejection(federation({ x: engine({ down: true }), y: engine({ status: 500 }) }).retrieve({ query: 'q' }));
    expect(e.code).toBe(-32010);
    expect(e.rawMessage).toContain('x:');
    expect((e.data?.engines as { id: string; state: string }[]).map((o) => o.state)).toEqual(['failed', 'failed']);
  });

  it('an empty answer is a success, not -32010 ("no results" ≠ "nothing answered")', async () => {
    const r = await federation({ a: engine({ hits: [] }), b: engine({ down: true }) }).retrieve({ query: 'q' });
    expect(r.hits).toEqual([]);
    expect(r._meta).toEqual({ degraded: ['b'] });
  });

  it('reconnects a failed engine on the next query', async () => {
    const a = engine({ hits: [hit('a1', 1)] });
    const flaky = engine({ down: true });
    const f = federation({ a, flaky });
    expect((await f.retrieve({ query: 'q' })).engines[1].state).toBe('failed');
    flaky.retrieve = { hits: [hit('f1', 1)] };
    expect((await f.retrieve({ query: 'q' })).engines[1].state).toBe('ok');
  });

  it('rejects with -32006 when the caller aborts', async () => {
    const slow = engine({ never: true });
    const ctrl = new AbortController();
    const p = federation({ slow }).retrieve({ query: 'q' }, { signal: ctrl.signal });
    ctrl.abort();
    expect((await rejection(p)).code).toBe(-32006);
  });
});

describe('Federation loop detection (§16.2)', () => {
  it('forwarding a federated request decrements depth, appends its identity, and skips engines already on the path', async () => {
    const a = engine({ hits: [hit('a1', 1)] });
    const b = engine({ hits: [hit('b1', 1)] });
    const f = federation({ a, b }, {}, { identity: 'gw' });
    const r = await f.retrieve({ query: 'q', _meta: { federation: { depth: 2, path: ['b'] } } });
    expect(r.engines[1]).toMatchObject({ id: 'b', state: 'skipped' });
    expect(r.engines[1].note).toContain('cycle');
    expect(a.seen.find((s) => s.method === 'retrieve')!.body.params._meta.federation).toEqual({ depth: 1, path: ['b', 'gw'] });
    expect(b.seen.filter((s) => s.method === 'retrieve')).toEqual([]);
  });

  it('with the hop budget spent, answers from local engines only; finding itself on the path, forwards nowhere', async () => {
    const local = engine({ hits: [hit('l1', 1)] });
    const remote = engine({ hits: [hit('r1', 1)] });
    const f = federation({ local, remote }, { local: { local: true } }, { identity: 'gw' });
    const spent = await f.retrieve({ query: 'q', _meta: { federation: { depth: 0, path: ['x'] } } });
    expect(ids(spent)).toEqual(['l1']);
    expect(spent.engines[1]).toMatchObject({ state: 'skipped', note: 'hop budget spent (_meta.federation.depth 0)' });
    const looped = await f.retrieve({ query: 'q', _meta: { federation: { depth: 3, path: ['gw'] } } });
    expect(ids(looped)).toEqual(['l1']);
    expect(looped.engines[1].note).toContain("'gw' is already in the federation path");
  });

  it('honours an incoming _meta.deadlineMs with a strictly smaller downstream deadline, and -32014 when none is left', async () => {
    const a = engine({ hits: [hit('a1', 1)] });
    const f = federation({ a });
    await f.retrieve({ query: 'q', _meta: { deadlineMs: 500 } });
    expect(a.seen.find((s) => s.method === 'retrieve')!.body.params._meta.deadlineMs).toBeLessThan(500);
    expect((await rejection(f.retrieve({ query: 'q', _meta: { deadlineMs: 1 } }))).code).toBe(-32014);
  });
});

describe('Federation engines and registry (§16.1)', () => {
  it('mixes an RcpClient engine (e.g. the in-page worker) with HTTP engines', async () => {
    const [c, s] = createLinkedPair();
    serve(s, fakeBackend());
    const client = new RcpClient(c);
    const b = engine({ hits: [hit('b1', 1)] });
    const f = new Federation([{ id: 'local', client }, { id: 'b', url: 'http://b.test/rcp' }], { http: { fetch: fakeFetch({ b }) } });
    const r = await f.retrieve({ query: 'x' });
    expect(r.hits.map((h) => [h.id, h.meta?.engine])).toEqual([
      ['a', 'local'],
      ['b1', 'b'],
    ]);
    f.close();
    expect(client.serverInfo).toBeDefined(); // a client it was given stays open
  });

  it('rejects invalid engine specs with -32602 naming the field', () => {
    const bad = (specs: unknown, field: string) => {
      try {
        new Federation(specs as never);
      } catch (e) {
        expect(e).toMatchObject({ code: -32602, data: { field } });
        return;
      }
      throw new Error('expected a throw');
    };
    bad([{ id: '' , url: 'http://x/rcp' }], 'engines[0].id');
    bad([{ id: 'a', url: 'http://x/rcp' }, { id: 'a', url: 'http://y/rcp' }], 'engines[1].id');
    bad([{ id: 'a', url: 'ftp://x' }], 'engines[0].url');
    bad([{ id: 'a', url: 'http://x/rcp', weight: -1 }], 'engines[0].weight');
    bad([{ id: 'a' }], 'engines[0]');
  });

  it('reads the rcp.json shape: http engines by URL, stdio engines unreachable (a required one fails the query)', async () => {
    const registry = {
      engines: [
        { id: 'web', transport: 'http', url: 'http://web.test/rcp', weight: 2 },
        { id: 'docs', transport: 'stdio', command: ['python3', 'docs.py'] },
      ],
    };
    const { engines, notes } = enginesFromRegistry(registry);
    expect(engines).toEqual([
      { id: 'web', url: 'http://web.test/rcp', weight: 2 },
      { id: 'docs', unreachable: 'stdio engines cannot be started from a browser page' },
    ]);
    expect(notes).toHaveLength(1);
    const web = engine({ hits: [hit('w1', 1)] });
    const { federation: f } = Federation.fromRegistry(registry, { http: { fetch: fakeFetch({ web }) } });
    const r = await f.retrieve({ query: 'q' });
    expect(ids(r)).toEqual(['w1']);
    expect(r.engines[1]).toMatchObject({ id: 'docs', state: 'failed', error: { code: -32010 } });
    const strict = Federation.fromRegistry({ engines: [registry.engines[0], { ...registry.engines[1], required: true }] }, { http: { fetch: fakeFetch({ web }) } });
    expect((await rejection(strict.federation.retrieve({ query: 'q' }))).code).toBe(-32010);
  });

  it('reports the union and intersection of the engines’ capabilities (§16.4)', async () => {
    const a = engine({ hits: [] }, { retrieve: {}, embed: { dimension: 3, identity: 'e' } });
    const b = engine({ hits: [] }, { retrieve: {}, rerank: { methods: ['colbert'] } });
    const { union, intersection } = await federation({ a, b }).capabilities();
    expect(Object.keys(union).sort()).toEqual(['embed', 'rerank', 'retrieve']);
    expect(Object.keys(intersection)).toEqual(['retrieve']);
  });
});

describe('Federation progress over HTTP engines (§9, §5.2 SSE)', () => {
  it('asks each engine under its own token and folds their SSE progress into one non-decreasing figure', async () => {
    const asked: { accept: string | null; token: unknown }[] = [];
    const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input));
      const name = url.hostname.replace(/\.test$/, '');
      const body = JSON.parse(String(init?.body));
      if (url.pathname.endsWith('/initialize')) return json({ jsonrpc: '2.0', id: body.id, result: { protocolVersion: 1, server: { name, version: '1' }, capabilities: { retrieve: {}, streaming: {} } } });
      const token = body.params._meta?.progressToken;
      asked.push({ accept: new Headers(init?.headers).get('accept'), token });
      const final = JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { hits: [hit(`${name}1`, 1)] } });
      if (token === undefined) return new Response(final, { status: 200, headers: { 'Content-Type': 'application/json' } });
      const p = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 0.5, stage: 'recall', message: 'half' } });
      return new Response(`data: ${p}\n\ndata: ${final}\n\n`, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
    }) as typeof fetch;
    const f = new Federation([{ id: 'a', url: 'http://a.test/rcp' }, { id: 'b', url: 'http://b.test/rcp' }], { http: { fetch: fetcher } });
    const updates: { progress: number; stage?: string; message?: string }[] = [];
    const r = await f.retrieve({ query: 'q', _meta: { progressToken: 'caller' } }, { onProgress: (u) => updates.push(u) });
    expect(ids(r).sort()).toEqual(['a1', 'b1']);
    expect(asked.every((a) => a.accept === 'application/json, text/event-stream' && a.token !== undefined && a.token !== 'caller')).toBe(true);
    expect(updates).toContainEqual({ progress: 0.25, stage: 'recall', message: 'a: half' });
    expect(updates.map((u) => u.message)).toEqual(expect.arrayContaining(['a: answered, 1 hit', 'b: answered, 1 hit', 'b: half']));
    const values = updates.map((u) => u.progress);
    expect(values).toEqual([...values].sort((x, y) => x - y));
    expect(values[values.length - 1]).toBe(1);
    // Without onProgress: no token, no SSE, no updates.
    asked.length = 0;
    await f.retrieve({ query: 'q', _meta: { progressToken: 'caller' } });
    expect(asked.map((a) => [a.accept, a.token])).toEqual([['application/json', undefined], ['application/json', undefined]]);
    f.close();
  });
});

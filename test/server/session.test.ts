import { describe, expect, it } from 'vitest';
import { loadRcpSchema } from '../../tools/lib/rcp-schema.ts';
import { connect, emittedFrames, fakeBackend, TEST_CAPS } from '../support/rcp-harness.ts';
import { INPAGE_DEADLINES } from '../../src/server/inpage-handlers.ts';
import { DEFAULT_DEADLINES, deadlineFor } from '../../src/server/rcp-session.ts';

describe('lifecycle (§13, §7.1, §7.2, §7.15)', () => {
  it('§7.2 info answers before initialize with the default capability set', async () => {
    const t = connect(fakeBackend());
    const r = await t.call(0, 'info', {});
    expect(r.result.server.name).toBe('fake');
    expect(r.result.capabilities).toEqual(TEST_CAPS);
  });

  it('§7.15 ping answers before initialize and echoes the nonce with its JSON type', async () => {
    const t = connect(fakeBackend());
    expect((await t.call(1, 'ping', { nonce: 777 })).result).toEqual({ nonce: 777 });
    expect((await t.call(2, 'ping', { nonce: 'n' })).result).toEqual({ nonce: 'n' });
    expect((await t.call(3, 'ping')).result).toEqual({});
  });

  it('§13 gated and ungated methods before initialize are -32001', async () => {
    const t = connect(fakeBackend());
    expect((await t.call(1, 'retrieve', { query: 'x', k: 1 })).error.code).toBe(-32001);
    expect((await t.call(2, 'index/add', { documents: [] })).error.code).toBe(-32001);
  });

  it('§7.1 negotiates min(client, server) and declares a conformance level', async () => {
    const t = connect(fakeBackend());
    const r = await t.call(1, 'initialize', { protocolVersion: 7, client: { name: 'c', version: '1' } });
    expect(r.result.protocolVersion).toBe(1);
    expect(r.result._meta.conformance).toBe('L0'); // sparse only: not L1 by §14.2
  });

  it('initialize carries the backend\'s extra _meta (the model runtime) beside the conformance level, read when asked', async () => {
    let runtime = 'loading';
    const t = connect({ ...fakeBackend(), initializeMeta: () => ({ models: { embed: { identity: 'm@sha256:1', runtime } } }) });
    const r = await t.call(1, 'initialize', { protocolVersion: 1 });
    expect(r.result._meta).toEqual({ conformance: 'L0', models: { embed: { identity: 'm@sha256:1', runtime: 'loading' } } });
    runtime = 'rcp-kernels (WASM SIMD, 2 workers)';
    expect((await t.call(2, 'info', {})).result._meta.models.embed.runtime).toBe('rcp-kernels (WASM SIMD, 2 workers)');
  });

  it('initialize waits for notes the backend is still finding (an open\'s restore), and serves what was sent behind it meanwhile', async () => {
    let found!: (notes: string[]) => void;
    const t = connect({ ...fakeBackend(), notes: () => new Promise<string[]>((ok) => (found = ok)) });
    const init = t.call(1, 'initialize', { protocolVersion: 1 });
    const served = await t.call(2, 'retrieve', { query: 'x', k: 1 });
    expect(served.result.hits).toHaveLength(1); // the session is ready before its answer
    found(['index restored: 30 documents']);
    expect((await init).result.usage).toEqual({ notes: ['index restored: 30 documents'] });
    expect((await t.call(3, 'initialize', { protocolVersion: 1 })).error.code).toBe(-32600);
  });

  it('§13 a failed negotiation (-32002) leaves the session uninitialized; a retry may succeed', async () => {
    const t = connect(fakeBackend());
    expect((await t.call(1, 'initialize', { protocolVersion: 0 })).error.code).toBe(-32002);
    expect((await t.call(2, 'retrieve', { query: 'x', k: 1 })).error.code).toBe(-32001);
    expect((await t.init()).result.protocolVersion).toBe(1);
    expect((await t.call(3, 'retrieve', { query: 'x', k: 1 })).result.hits).toHaveLength(1);
  });

  it('§13 a second initialize after success is -32600', async () => {
    const t = connect(fakeBackend());
    await t.init();
    expect((await t.call(2, 'initialize', { protocolVersion: 1 })).error.code).toBe(-32600);
  });

  it('§7.1 initialize without protocolVersion is -32602 naming the field', async () => {
    const t = connect(fakeBackend());
    const r = await t.call(1, 'initialize', {});
    expect(r.error.code).toBe(-32602);
    expect(r.error.data.field).toBe('protocolVersion');
  });

  it('§7.12 shutdown answers {} then closes; nothing after it is processed', async () => {
    const b = fakeBackend();
    const t = connect(b);
    await t.init();
    expect((await t.call(9, 'shutdown', {})).result).toEqual({});
    t.send({ jsonrpc: '2.0', id: 10, method: 'retrieve', params: { query: 'late', k: 1 } });
    await t.closed;
    await new Promise((ok) => setImmediate(ok)); // anything the late frame could start has started
    expect(b.calls).not.toContain('late');
    expect(t.isClosed()).toBe(true);
  });
});

describe('gating (§7, §12)', () => {
  it('§12 an undefined method is -32004 even when it looks like a capability', async () => {
    const t = connect(fakeBackend());
    await t.init();
    expect((await t.call(1, 'does/not/exist', {})).error.code).toBe(-32004);
    expect((await t.call(2, 'x-acme/thing', {})).error.code).toBe(-32004);
  });

  it('§6.2 a vendor method runs only while its x-<vendor> capability is advertised', async () => {
    const b = fakeBackend({ ...TEST_CAPS, 'x-test': {} });
    const t = connect({ ...b, vendorHandlers: { 'x-test/echo': (p) => ({ echoed: p }), 'x-other/echo': () => ({}) } });
    await t.init();
    expect((await t.call(1, 'x-test/echo', { a: 1 })).result).toEqual({ echoed: { a: 1 } });
    expect((await t.call(2, 'x-other/echo', {})).error.code).toBe(-32004); // x-other not advertised
    expect((await t.call(3, 'x-test/missing', {})).error.code).toBe(-32004);
  });

  it('§12 a defined but unadvertised method is -32003', async () => {
    const t = connect(fakeBackend());
    await t.init();
    for (const m of ['embed', 'rerank', 'graph', 'embed/multi', 'query/transform', 'catalog/list']) {
      expect((await t.call(m, m, {})).error.code).toBe(-32003);
    }
  });

  it('§13.2 the capability set is fixed for the session even if the backend changes', async () => {
    const caps = structuredClone(TEST_CAPS);
    const b = fakeBackend(caps);
    const t = connect({ ...b, capabilities: () => caps });
    const first = (await t.init()).result.capabilities;
    delete (caps as Record<string, unknown>).retrieve;
    expect((await t.call(2, 'info', {})).result.capabilities).toEqual(first);
    expect((await t.call(3, 'retrieve', { query: 'x', k: 1 })).result.hits).toHaveLength(1);
  });
});

describe('framing (§4, §11)', () => {
  it('§4 unparseable text is -32700 with id null', async () => {
    const t = connect(fakeBackend());
    t.send('{"jsonrpc": "2.0", "id": 1, "method": ');
    const r = await t.waitFor(() => true);
    expect(r).toEqual({ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32700 }) });
  });

  it('§4 a non-request value is -32600 with id null', async () => {
    const t = connect(fakeBackend());
    for (const v of ['42', '"x"', 'null', 'true']) t.send(v);
    await t.settle();
    const answers = t.received.map((f) => JSON.parse(f)).filter((m) => !String(m.id).startsWith('barrier-'));
    expect(answers.map((m) => m.error.code)).toEqual([-32600, -32600, -32600, -32600]);
  });

  it('§4.1 wrong jsonrpc, non-string method, bad id types and non-object params are rejected', async () => {
    const t = connect(fakeBackend());
    expect((await t.call(1, 'ping', undefined).then(() => t.call(2, 'ping'))).result).toEqual({});
    t.send({ jsonrpc: '1.0', id: 3, method: 'ping' });
    expect((await t.response(3)).error.code).toBe(-32600);
    t.send({ jsonrpc: '2.0', id: 4, method: 42 });
    expect((await t.response(4)).error.code).toBe(-32600);
    t.send({ jsonrpc: '2.0', id: 5, method: 'ping', params: [1, 2] });
    expect((await t.response(5)).error).toMatchObject({ code: -32602, data: { field: 'params' } });
    t.send({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' });
    t.send({ jsonrpc: '2.0', id: null, method: 'ping' });
    const nulls = await t.waitFor((m) => m.id === null);
    expect(nulls.error.code).toBe(-32600);
  });

  it('§4.7 ids are echoed with the same JSON type and value', async () => {
    const t = connect(fakeBackend());
    expect((await t.call('7', 'ping')).id).toBe('7');
    expect((await t.call(7, 'ping')).id).toBe(7);
    const long = 'x'.repeat(100_000);
    expect((await t.call(long, 'ping')).id).toBe(long);
    expect((await t.call(-1.5, 'ping')).id).toBe(-1.5);
  });

  it('§4.5 notifications are never answered, whatever the method', async () => {
    const t = connect(fakeBackend());
    t.send({ jsonrpc: '2.0', method: 'retrieve', params: { query: 'x' } });
    t.send({ jsonrpc: '2.0', method: 'info' });
    t.send({ jsonrpc: '2.0', method: 'does/not/exist' });
    t.send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 999 } });
    t.send({ jsonrpc: '2.0', method: 'notifications/whatever' });
    await t.init();
    t.send({ jsonrpc: '2.0', method: 'retrieve', params: { query: 'x', k: 1 } });
    expect(await t.settle()).toEqual([]);
    expect(t.received.filter((f) => !JSON.parse(f).id?.startsWith?.('barrier-'))).toHaveLength(1); // only the initialize response
  });

  it('§7.14 notifications/cancel carrying an id is malformed (-32600)', async () => {
    const t = connect(fakeBackend());
    expect((await t.call(5, 'notifications/cancel', { id: 1 })).error.code).toBe(-32600);
  });

  it('§11 an empty batch is a single -32600 with id null', async () => {
    const t = connect(fakeBackend());
    t.send('[]');
    const r = await t.waitFor(() => true);
    expect(Array.isArray(r)).toBe(false);
    expect(r).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('§11 a batch gets one array with one response per request; invalid members get -32600 entries', async () => {
    const t = connect(fakeBackend());
    t.send([
      { jsonrpc: '2.0', id: 1, method: 'ping', params: { nonce: 1 } },
      { jsonrpc: '2.0', method: 'ping' },
      7,
      { jsonrpc: '2.0', id: 2, method: 'retrieve', params: { query: 'x', k: 1 } },
      { jsonrpc: '2.0', id: 3, method: 'info' },
    ]);
    const batch = await t.waitFor((m) => Array.isArray(m));
    expect(batch).toHaveLength(4);
    const byId = new Map<unknown, any>(batch.map((m: any) => [m.id, m]));
    expect(byId.get(1).result).toEqual({ nonce: 1 });
    expect(byId.get(2).error.code).toBe(-32001);
    expect(byId.get(3).result.server.name).toBe('fake');
    expect(byId.get(null).error.code).toBe(-32600);
  });

  it('§11 a notification-only batch gets no reply at all', async () => {
    const t = connect(fakeBackend());
    t.send([{ jsonrpc: '2.0', method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 1 } }]);
    expect(await t.settle()).toEqual([]);
  });

  it('hostile input: deep nesting, huge params and garbage never kill the session', async () => {
    const t = connect(fakeBackend());
    t.send('['.repeat(100_000) + ']'.repeat(100_000));
    t.send('\u0000\uFFFF garbage');
    t.send(`{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"nonce":1,"x":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`);
    expect((await t.response('deep')).error).toMatchObject({ code: -32602, data: { field: expect.stringMatching(/^x/) } }); // §15.5 depth limit
    expect((await t.call('alive', 'ping', { nonce: 'ok' })).result).toEqual({ nonce: 'ok' });
  });

  it('§4.7 a second request reusing an in-flight id is rejected, the first still completes', async () => {
    const t = connect(fakeBackend());
    await t.init();
    t.send({ jsonrpc: '2.0', id: 'dup', method: 'retrieve', params: { query: 'slow', k: 1 } });
    t.send({ jsonrpc: '2.0', id: 'dup', method: 'retrieve', params: { query: 'x', k: 1 } });
    const first = await t.response('dup');
    expect(first.error.code).toBe(-32600);
    t.send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 'dup' } });
    await t.waitFor((m) => m.id === 'dup' && m.error?.code === -32006);
  });
});

describe('cancellation, deadlines, errors (§7.14, §13.1, §12)', () => {
  it('§7.14 a cancelled request gets exactly one -32006 response', async () => {
    const b = fakeBackend();
    const t = connect(b);
    await t.init();
    const running = b.nextCall();
    t.send({ jsonrpc: '2.0', id: 42, method: 'retrieve', params: { query: 'slow', k: 1 } });
    await running;
    t.send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 42, reason: 'user' } });
    expect((await t.response(42)).error.code).toBe(-32006);
    await t.settle();
    expect(t.received.filter((f) => JSON.parse(f).id === 42)).toHaveLength(1);
  });

  it('§7.14 cancelling an unknown or answered id is a silent no-op', async () => {
    const t = connect(fakeBackend());
    await t.init();
    await t.call(1, 'ping');
    const n = t.received.length;
    t.send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 1 } });
    t.send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 'never' } });
    t.send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: { bad: 1 } } });
    expect(await t.settle()).toEqual([]);
    expect(t.received).toHaveLength(n + 1); // the barrier's own answer
  });

  it('§13.1 a request past its deadline is answered -32014 (retryable)', async () => {
    const t = connect(fakeBackend(), { retrieve: 50 });
    await t.init();
    const r = await t.call(1, 'retrieve', { query: 'slow', k: 1 });
    expect(r.error.code).toBe(-32014);
    expect(r.error.data.retryable).toBe(true);
  });

  it('§13.1 the backend names its vendor methods\' deadlines; the caller\'s overrides win; the rest get the default', () => {
    expect(deadlineFor('x-inpage/import', undefined, INPAGE_DEADLINES)).toBe(600_000);
    expect(deadlineFor('x-inpage/import', { 'x-inpage/import': 5 }, INPAGE_DEADLINES)).toBe(5);
    expect(deadlineFor('x-inpage/import')).toBe(DEFAULT_DEADLINES.default);
    expect(deadlineFor('index/add', { default: 7 })).toBe(DEFAULT_DEADLINES['index/add']);
    expect(deadlineFor('embed', { default: 7 })).toBe(7);
  });

  it('§12 a handler crash is -32603 and the session lives on', async () => {
    const t = connect(fakeBackend());
    await t.init();
    expect((await t.call(1, 'retrieve', { query: 'boom', k: 1 })).error.code).toBe(-32603);
    expect((await t.call(2, 'ping')).result).toEqual({});
  });

  it('§4.6 NaN and Infinity never reach the wire', async () => {
    const t = connect(fakeBackend());
    await t.init();
    await t.call(1, 'retrieve', { query: 'nan', k: 1 });
    await t.call(2, 'retrieve', { query: 'inf', k: 1 });
    const text = t.received.join('\n');
    expect(text).not.toMatch(/NaN|Infinity|null,|"score":null/);
    const r2 = JSON.parse(t.received.at(-1)!);
    expect(Number.isFinite(r2.result.hits[0].score)).toBe(true);
    expect(r2.result.hits[0].score).toBeLessThan(0);
  });

  it('§4.7 responses may come out of order and are correlated by id', async () => {
    const t = connect(fakeBackend());
    await t.init();
    t.send({ jsonrpc: '2.0', id: 'a', method: 'retrieve', params: { query: 'slow', k: 1 } });
    t.send({ jsonrpc: '2.0', id: 'b', method: 'ping' });
    await t.response('b');
    t.send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 'a' } });
    await t.response('a');
    const order = t.received.map((f) => JSON.parse(f).id);
    expect(order.indexOf('b')).toBeLessThan(order.indexOf('a'));
  });
});

describe('progress and logs (§9, §17.1)', () => {
  it('§9 progress only for requests carrying a token, echoing it verbatim', async () => {
    const t = connect(fakeBackend());
    await t.init();
    t.send({ jsonrpc: '2.0', id: 1, method: 'retrieve', params: { query: 'slow', k: 1, _meta: { progressToken: 'tok' } } });
    const p = await t.waitFor((m) => m.method === 'notifications/progress');
    expect(p.params).toMatchObject({ progressToken: 'tok', progress: 0.5, stage: 'recall' });
    t.send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 1 } });
    await t.response(1);
    t.send({ jsonrpc: '2.0', id: 2, method: 'retrieve', params: { query: 'slow', k: 1 } });
    await t.settle(); // request 2 is running (and would have reported progress by now)
    t.send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 2 } });
    await t.response(2);
    expect(t.received.filter((f) => f.includes('notifications/progress'))).toHaveLength(1);
  });

  it('§9 no progress when streaming is not advertised, even with a token', async () => {
    const { streaming: _, ...caps } = TEST_CAPS;
    const t = connect(fakeBackend(caps));
    await t.init();
    t.send({ jsonrpc: '2.0', id: 1, method: 'retrieve', params: { query: 'slow', k: 1, _meta: { progressToken: 1 } } });
    await t.settle();
    t.send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 1 } });
    await t.response(1);
    expect(t.received.some((f) => f.includes('notifications/progress'))).toBe(false);
  });

  it('§17.1 logs only to clients that opted in, honouring the minimum level', async () => {
    const silent = connect(fakeBackend());
    await silent.init();
    await silent.call(1, 'retrieve', { query: 'log', k: 1 });
    expect(silent.received.some((f) => f.includes('notifications/log'))).toBe(false);

    const t = connect(fakeBackend());
    await t.init({ capabilities: { log: {} }, _meta: { logLevel: 'info' } });
    await t.call(1, 'retrieve', { query: 'log', k: 1 });
    await t.call(2, 'retrieve', { query: 'debug', k: 1 });
    const logs = t.received.filter((f) => f.includes('notifications/log')).map((f) => JSON.parse(f));
    expect(logs).toHaveLength(1);
    expect(logs[0].params).toMatchObject({ level: 'info', message: 'hello', data: { n: 1 } });
  });
});

describe('schema (normative rcp-1.0.json)', () => {
  it('every frame the server emitted above validates against the schema', () => {
    const schema = loadRcpSchema();
    expect(emittedFrames.length).toBeGreaterThan(50);
    const bad = emittedFrames.map((f) => ({ f: f.slice(0, 200), errors: schema.frame(f) })).filter((x) => x.errors.length > 0);
    expect(bad).toEqual([]);
  });
});

describe('orderly shutdown (§7.12, §13.1)', () => {
  it('in-flight requests are answered before shutdown is', async () => {
    const t = connect(fakeBackend(), { shutdown: 100 });
    await t.init();
    t.send({ jsonrpc: '2.0', id: 'slow', method: 'retrieve', params: { query: 'slow', k: 1 } });
    t.send({ jsonrpc: '2.0', id: 'fast', method: 'retrieve', params: { query: 'x', k: 1 } });
    t.send({ jsonrpc: '2.0', id: 'bye', method: 'shutdown' });
    await t.response('bye');
    const ids = t.received.map((f) => JSON.parse(f).id);
    expect(ids.indexOf('fast')).toBeLessThan(ids.indexOf('bye'));
    expect(ids.indexOf('slow')).toBeLessThan(ids.indexOf('bye')); // cancelled after the grace period, still answered first
    expect(JSON.parse(t.received[ids.indexOf('slow')]).error.code).toBe(-32006);
  });
});

describe('review fixes', () => {
  it('§13.1 a batch with a write and shutdown answers both before closing', async () => {
    const b = fakeBackend();
    let finish!: () => void;
    const writing = new Promise<void>((ok) => (finish = ok));
    const slowAdd = async () => {
      await writing; // still running when shutdown arrives
      return { ids: ['x'] };
    };
    const t = connect({ ...b, handlers: { ...b.handlers, 'index/add': slowAdd } });
    await t.init();
    t.send([
      { jsonrpc: '2.0', id: 1, method: 'index/add', params: { documents: [] } },
      { jsonrpc: '2.0', id: 2, method: 'shutdown' },
    ]);
    await t.settle(); // shutdown is waiting for the write (the barrier itself is refused: shut down)
    finish();
    const batch = await t.waitFor((m) => Array.isArray(m));
    expect(batch.map((m: { id: number }) => m.id).sort()).toEqual([1, 2]);
    expect(batch.find((m: { id: number }) => m.id === 1).result).toEqual({ ids: ['x'] });
  });

  it('§13 / §12 precedence: non-object params before initialize is -32001, for an unknown method -32004', async () => {
    const t = connect(fakeBackend());
    expect((await t.call(1, 'retrieve', [1])).error.code).toBe(-32001);
    await t.init();
    expect((await t.call(2, 'nope', [1])).error.code).toBe(-32004);
    expect((await t.call(3, 'retrieve', [1])).error).toMatchObject({ code: -32602, data: { field: 'params' } });
    expect((await t.call(4, 'ping', 'x')).error.code).toBe(-32602);
  });

  it('a backend-declared write (vendor clear) is never reported cancelled once it ran, and later reads wait for it', async () => {
    const b = fakeBackend({ ...TEST_CAPS, 'x-test': {} });
    let cleared = false;
    let clearStarted!: () => void;
    let finishClear!: () => void;
    const started = new Promise<void>((ok) => (clearStarted = ok));
    const clearing = new Promise<void>((ok) => (finishClear = ok));
    const t = connect({
      ...b,
      writeMethods: ['index/add', 'index/delete', 'x-test/clear'],
      vendorHandlers: {
        'x-test/clear': async () => {
          clearStarted();
          await clearing;
          cleared = true;
          return { deleted: 1 };
        },
      },
      handlers: { ...b.handlers, retrieve: async () => ({ hits: [{ id: cleared ? 'after' : 'before', score: 1 }] }) },
    });
    await t.init();
    t.send({ jsonrpc: '2.0', id: 'c', method: 'x-test/clear' });
    t.send({ jsonrpc: '2.0', id: 'r', method: 'retrieve', params: { query: 'q', k: 1 } });
    await started; // the clear is running now
    t.send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 'c' } });
    await t.settle(); // the cancel has been handled while the clear still runs
    finishClear();
    expect((await t.response('c')).result).toEqual({ deleted: 1 });
    expect((await t.response('r')).result.hits[0].id).toBe('after');
  });

  it('a result JSON cannot carry still gets exactly one answer (-32603)', async () => {
    const b = fakeBackend({ ...TEST_CAPS, 'x-test': {} });
    const t = connect({ ...b, vendorHandlers: { 'x-test/big': () => ({ n: 10n }) } });
    await t.init();
    expect((await t.call(1, 'x-test/big', {})).error.code).toBe(-32603);
  });

  it('a request cancelled while waiting behind a write never runs', async () => {
    const b = fakeBackend();
    let finish!: () => void;
    const writing = new Promise<void>((ok) => (finish = ok));
    const slowAdd = async () => {
      await writing;
      return { ids: [] };
    };
    const t = connect({ ...b, handlers: { ...b.handlers, 'index/add': slowAdd } });
    await t.init();
    t.send({ jsonrpc: '2.0', id: 'w', method: 'index/add', params: { documents: [] } });
    t.send({ jsonrpc: '2.0', id: 'q', method: 'retrieve', params: { query: 'queued', k: 1 } });
    t.send({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 'q' } });
    expect((await t.response('q')).error.code).toBe(-32006);
    finish();
    await t.response('w');
    await t.settle();
    expect(b.calls).not.toContain('queued');
  });
});

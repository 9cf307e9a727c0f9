/** Issue 10 (#6–#9) and issue 11 (#6): frames with no id, ping nonces, nesting depth, echoed values. */
import { describe, expect, it } from 'vitest';
import { RcpError } from '../../src/protocol/errors.ts';
import { loadRcpSchema } from '../../tools/lib/rcp-schema.ts';
import { connect, emittedFrames, fakeBackend } from '../support/rcp-harness.ts';

const INVALID_WITHOUT_ID = ['{}', '{"foo":"boo"}', '{"jsonrpc":"2.0","method":5}', '{"jsonrpc":"1.0","method":"ping"}'];

describe('objects that are neither request nor notification (JSON-RPC 2.0, §4.5, §11, §5.3)', () => {
  it('each is answered -32600 with id null', async () => {
    const t = connect(fakeBackend());
    for (const f of INVALID_WITHOUT_ID) {
      t.send(f);
      const r = await t.waitFor(() => true);
      t.received.length = 0;
      expect(r, f).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
  });

  it('inside a batch each gets its own -32600 entry; the request beside them is still answered', async () => {
    const t = connect(fakeBackend());
    t.send(`[${INVALID_WITHOUT_ID.join(',')},{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"ping"}]`);
    const batch = await t.waitFor((m) => Array.isArray(m));
    expect(batch).toHaveLength(INVALID_WITHOUT_ID.length + 1);
    expect(batch.filter((m: any) => m.id === null && m.error.code === -32600)).toHaveLength(INVALID_WITHOUT_ID.length);
    expect(batch.find((m: any) => m.id === 1).result).toEqual({});
  });

  it('§5.3 the compact {method, params} envelope is refused with -32600 (not dropped silently)', async () => {
    const t = connect(fakeBackend());
    t.send({ method: 'ping', params: {} });
    const r = await t.waitFor(() => true);
    expect(r).toMatchObject({ id: null, error: { code: -32600 } });
    expect(r.error.message).toContain('§5.3');
  });

  it('a well-formed notification is still never answered', async () => {
    const t = connect(fakeBackend());
    t.send({ jsonrpc: '2.0', method: 'ping' });
    t.send({ jsonrpc: '2.0', method: 'x-whatever/thing', params: { a: 1 } });
    expect(await t.settle()).toEqual([]);
  });
});

describe('§7.15 ping nonce', () => {
  it('a nonce that is neither string nor number is -32602 naming the field', async () => {
    const t = connect(fakeBackend());
    for (const [i, nonce] of [[], false, {}, true].entries()) {
      const r = await t.call(i, 'ping', { nonce });
      expect(r.error, JSON.stringify(nonce)).toMatchObject({ code: -32602, data: { field: 'nonce' } });
    }
    expect((await t.call('n', 'ping', { nonce: null })).result).toEqual({});
    expect((await t.call('s', 'ping', { nonce: 'x' })).result).toEqual({ nonce: 'x' });
  });
});

const nested = (levels: number, key: string): string => `{"${key}":`.repeat(levels) + '1' + '}'.repeat(levels);

describe('§15.5 nesting depth is limited at the boundary', () => {
  it('retrieve with _meta nested 10,000 levels is -32602 naming _meta, and the session lives on', async () => {
    const t = connect(fakeBackend());
    await t.init();
    t.send(`{"jsonrpc":"2.0","id":"deep","method":"retrieve","params":{"query":"x","_meta":${nested(10_000, 'a')}}}`);
    const r = await t.response('deep');
    expect(r.error).toMatchObject({ code: -32602 });
    expect(r.error.data.field).toMatch(/^_meta/);
    expect((await t.call('alive', 'retrieve', { query: 'x', _meta: JSON.parse(nested(20, 'a')) })).result.hits).toHaveLength(1);
  });

  it('index/add with a document meta nested 10,000 levels is -32602 naming the document', async () => {
    const t = connect(fakeBackend());
    await t.init();
    t.send(`{"jsonrpc":"2.0","id":"deep","method":"index/add","params":{"documents":[{"id":"a","text":"t","meta":${nested(10_000, 'm')}}]}}`);
    const r = await t.response('deep');
    expect(r.error).toMatchObject({ code: -32602 });
    expect(r.error.data.field).toMatch(/^documents\[0\]\.meta/);
  });

  it('deep arrays in an open method before initialize are -32602 too', async () => {
    const t = connect(fakeBackend());
    t.send(`{"jsonrpc":"2.0","id":"p","method":"ping","params":{"nonce":1,"x":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`);
    expect((await t.response('p')).error).toMatchObject({ code: -32602, data: { field: expect.stringMatching(/^x/) } });
  });
});

describe('§15.5 echoed values are capped', () => {
  it('a 1 MB method name is not echoed whole in -32004', async () => {
    const t = connect(fakeBackend());
    await t.init();
    const frames = t.received.length;
    const r = await t.call(1, 'm'.repeat(1_000_000));
    expect(r.error.code).toBe(-32004);
    expect(t.received.slice(frames).join('').length).toBeLessThan(4096);
  });

  it('a handler error quoting a huge value is cut on the wire', async () => {
    const backend = fakeBackend();
    backend.handlers.retrieve = async () => {
      throw new RcpError(-32602, `invalid params: ${'x'.repeat(1_000_000)}`, { field: 'y'.repeat(1_000_000) });
    };
    const t = connect(backend);
    await t.init();
    const before = t.received.length;
    expect((await t.call(2, 'retrieve', { query: 'q' })).error.code).toBe(-32602);
    expect(t.received.slice(before).join('').length).toBeLessThan(4096);
  });
});

describe('schema (normative rcp-1.0.json)', () => {
  it('every frame emitted above validates', () => {
    const schema = loadRcpSchema();
    const bad = emittedFrames.map((f) => ({ f: f.slice(0, 200), errors: schema.frame(f) })).filter((x) => x.errors.length > 0);
    expect(bad).toEqual([]);
  });
});

describe('the depth limit leaves room for the deepest filter §8 validation allows', () => {
  it('a filter nested FILTER_LIMITS.maxDepth levels reaches the filter validator, one deeper is refused there', async () => {
    const { FILTER_LIMITS } = await import('../../src/protocol/filter.ts');
    const backend = fakeBackend({ retrieve: { maxK: 10, modes: ['sparse'] }, filter: { fields: { lang: 'keyword' }, operators: ['eq'] } });
    const t = connect(backend);
    await t.init();
    const nest = (n: number): unknown => (n === 0 ? { field: 'lang', op: 'eq', value: 'en' } : { and: [nest(n - 1)] });
    const ok = await t.call('ok', 'retrieve', { query: 'q', filter: nest(FILTER_LIMITS.maxDepth - 1) });
    // Answered by the handler after its validator accepted the filter (not refused by the session's depth limit).
    expect(ok.error).toBeUndefined();
    expect(ok.result).toEqual({ hits: [{ id: 'a', score: 1 }] });
    expect(backend.calls).toEqual(['q']);
    const deep = await t.call('deep', 'retrieve', { query: 'deep', filter: nest(FILTER_LIMITS.maxDepth + 1) });
    expect(deep.error.code).toBe(-32602);
    expect(deep.error.message).toMatch(/filter nests deeper/);
    expect(backend.calls, 'the validator refused it before any retrieval').toEqual(['q']);
  });
});

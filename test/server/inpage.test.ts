import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import type { Backend } from '../../src/server/backend.ts';
import { createEngineBackend } from '../../src/server/engine-backend.ts';
import { createInpageHandlers, INPAGE_CAPABILITIES } from '../../src/server/inpage-handlers.ts';
import { connect } from '../support/rcp-harness.ts';

async function inpageBackend(opts: { advertise?: boolean; openFails?: boolean } = {}): Promise<{ backend: Backend; engine: Engine }> {
  const engine = new Engine({ store: new MemoryStore() });
  await engine.open();
  const ready: Promise<Engine> = opts.openFails ? Promise.reject(new Error('no storage')) : Promise.resolve(engine);
  ready.catch(() => undefined);
  const base = createEngineBackend({
    serverInfo: { name: 'inpage-test', version: '0' },
    engine: ready,
    capabilities: { ...engine.capabilities(), ...(opts.advertise === false ? {} : INPAGE_CAPABILITIES) },
  });
  return { engine, backend: { ...base, vendorHandlers: createInpageHandlers({ engine: ready }) } };
}

describe('x-inpage vendor methods over a session (§6.2)', () => {
  it('advertises the x-inpage capability and serves documents / document / clear', async () => {
    const { backend } = await inpageBackend();
    const t = connect(backend);
    const init = await t.init();
    expect(init.result.capabilities['x-inpage']).toEqual({ documents: true, clear: true, document: true, facets: true, export: true, import: true, map: true, feedback: true, quarantine: true, release: true });
    const add = await t.call(1, 'index/add', {
      documents: [
        { id: 'moby', text: 'Call me Ishmael. Some years ago, never mind how long precisely.', meta: { title: 'Moby-Dick' } },
        { id: 'a-note', text: 'short' },
      ],
    });
    expect(add.result.ids).toEqual(['moby', 'a-note']);

    const list = await t.call(2, 'x-inpage/documents', {});
    expect(list.result).toEqual({
      documents: [
        { id: 'a-note', meta: {}, chunks: 1, chars: 5 },
        { id: 'moby', title: 'Moby-Dick', meta: { title: 'Moby-Dick' }, chunks: 1, chars: 63 },
      ],
      total: 2,
    });
    expect((await t.call(3, 'x-inpage/documents', { offset: 1, limit: 1 })).result.documents.map((d: { id: string }) => d.id)).toEqual(['moby']);
    expect((await t.call(4, 'x-inpage/documents', null)).result.total).toBe(2);

    const doc = await t.call(5, 'x-inpage/document', { id: 'moby' });
    expect(doc.result).toEqual({
      id: 'moby',
      text: 'Call me Ishmael. Some years ago, never mind how long precisely.',
      meta: { title: 'Moby-Dick' },
      chunks: [{ index: 0, start: 0, end: 63 }],
    });
    const part = await t.call(51, 'x-inpage/document', { id: 'moby', offset: 8, length: 7 });
    expect(part.result).toEqual({ id: 'moby', text: 'Ishmael', meta: { title: 'Moby-Dick' }, chunks: [{ index: 0, start: 0, end: 63 }], offset: 8, textLength: 63, chunkCount: 1 });
    const tail = await t.call(52, 'x-inpage/document', { id: 'moby', offset: 60, length: 100 });
    expect(tail.result).toMatchObject({ text: 'ly.', offset: 60, textLength: 63 });
    const past = await t.call(53, 'x-inpage/document', { id: 'moby', offset: 500 });
    expect(past.result).toMatchObject({ text: '', offset: 63, chunks: [] });
    const bad = await t.call(54, 'x-inpage/document', { id: 'moby', length: 0 });
    expect(bad.error.code).toBe(-32602);
    expect(bad.error.data.field).toBe('length');
    const missing = await t.call(6, 'x-inpage/document', { id: 'ahab' });
    expect(missing.error.code).toBe(-32015);
    expect(missing.error.data.field).toBe('id');

    const facets = await t.call(61, 'x-inpage/facets', { field: 'title' });
    expect(facets.result).toEqual({ values: [{ value: 'Moby-Dick', count: 1 }], distinct: 1 });
    expect((await t.call(62, 'x-inpage/facets', {})).error.data.field).toBe('field');

    const cleared = await t.call(7, 'x-inpage/clear', {});
    expect(cleared.result).toEqual({ deleted: 2 });
    expect((await t.call(8, 'x-inpage/documents', {})).result).toEqual({ documents: [], total: 0 });
    expect((await t.call(9, 'retrieve', { query: 'Ishmael', k: 3 })).result.hits).toEqual([]);
    expect((await t.call(10, 'x-inpage/clear', {})).result).toEqual({ deleted: 0 });
  });

  it.each([
    ['x-inpage/documents', { offset: -1 }, 'offset'],
    ['x-inpage/documents', { offset: 1.5 }, 'offset'],
    ['x-inpage/documents', { offset: '2' }, 'offset'],
    ['x-inpage/documents', { limit: 0 }, 'limit'],
    ['x-inpage/documents', { limit: 1001 }, 'limit'],
    ['x-inpage/documents', [], 'params'],
    ['x-inpage/document', {}, 'id'],
    ['x-inpage/document', { id: 7 }, 'id'],
    ['x-inpage/clear', [1], 'params'],
    ['x-inpage/export', { limit: 101 }, 'limit'],
    ['x-inpage/map', { limit: 1 }, 'limit'],
    ['x-inpage/map', { include: [1] }, 'include[0]'],
    ['x-inpage/import', { documents: [{ text: 'no id' }] }, 'documents[0].id'],
    ['x-inpage/import', { documents: [{ id: 'a', text: 'x', chunks: [{ start: 0, end: 1, vector: 'AAAA' }] }], model: { identity: 'm', dimension: 2 } }, 'documents[0].chunks[0].vector'],
    ['x-inpage/import', { documents: [], model: { identity: 'm' } }, 'model.dimension'],
  ])('%s %j is -32602 naming %s', async (method, params, field) => {
    const { backend } = await inpageBackend();
    const t = connect(backend);
    await t.init();
    const r = await t.call(1, method, params);
    expect(r.error.code).toBe(-32602);
    expect(r.error.data.field).toBe(field);
  });

  it('limit 1000 is accepted; unknown members are ignored (§4.6)', async () => {
    const { backend } = await inpageBackend();
    const t = connect(backend);
    await t.init();
    expect((await t.call(1, 'x-inpage/documents', { limit: 1000, future: true })).result).toEqual({ documents: [], total: 0 });
    expect((await t.call(2, 'x-inpage/clear', { future: true })).result).toEqual({ deleted: 0 });
  });

  it('is -32004 when x-inpage is not advertised, and -32010 when storage failed to open', async () => {
    const hidden = connect((await inpageBackend({ advertise: false })).backend);
    await hidden.init();
    expect((await hidden.call(1, 'x-inpage/documents', {})).error.code).toBe(-32004);
    const broken = connect((await inpageBackend({ openFails: true })).backend);
    await broken.init();
    expect((await broken.call(1, 'x-inpage/documents', {})).error.code).toBe(-32010);
    expect((await broken.call(2, 'x-inpage/clear', {})).error.code).toBe(-32010);
  });
});

describe('x-inpage/export and x-inpage/import over a session', () => {
  it('round-trips documents indexed with a context and unchunked ones the way they were indexed', async () => {
    const { backend } = await inpageBackend();
    const t = connect(backend);
    await t.init();
    const long = 'Whales sing. '.repeat(200);
    await t.call(1, 'index/add', { documents: [{ id: 'titled', text: 'The harpoon flew. '.repeat(60), meta: { title: 'Ambergris Log' } }], chunk: true, contextual: true });
    await t.call(2, 'index/add', { documents: [{ id: 'whole', text: long }] });
    const query = { query: 'ambergris', k: 5, mode: 'sparse' };
    const before = (await t.call(3, 'retrieve', query)).result.hits;
    expect(before.length).toBeGreaterThan(0); // the title matches only through the context
    const exp = (await t.call(4, 'x-inpage/export', {})).result;
    expect(exp.documents.map((d: { id: string; contextual?: boolean; chunks: unknown[] }) => [d.id, d.contextual ?? false, d.chunks.length])).toEqual([
      ['titled', true, expect.any(Number)],
      ['whole', false, 1],
    ]);
    await t.call(5, 'x-inpage/clear', {});
    const imp = (await t.call(6, 'x-inpage/import', { documents: exp.documents })).result;
    expect(imp.ids.sort()).toEqual(['titled', 'whole']);
    expect((await t.call(7, 'x-inpage/export', {})).result.documents).toEqual(exp.documents);
    expect((await t.call(8, 'retrieve', query)).result.hits).toEqual(before);
  });
});

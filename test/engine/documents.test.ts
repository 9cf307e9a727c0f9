import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import { ids, makeEngine , search } from '../support/engine.ts';

describe('documents / document / clear (x-inpage engine side)', () => {
  it('lists live documents sorted by code units, paged, with chunk counts and text lengths', async () => {
    const { engine } = await makeEngine();
    const long = 'Whales. '.repeat(400);
    await engine.add([
      { id: 'b', text: 'beta text', meta: { title: 'Beta', year: 2001 } },
      { id: 'a', text: long, meta: { title: 7 } },
      { id: 'Z', text: 'upper case sorts first' },
      { id: 'é', text: 'non-ascii sorts last' },
    ], { chunk: true, chunkSize: 500, chunkOverlap: 50 });
    const all = await engine.documents(0, 100);
    expect(all.total).toBe(4);
    expect(all.documents.map((d) => d.id)).toEqual(['Z', 'a', 'b', 'é']);
    const a = all.documents[1];
    expect(a.chars).toBe(long.length);
    expect(a.chunks).toBeGreaterThan(1);
    expect(a.title).toBeUndefined(); // only string titles
    expect(a.meta).toEqual({ title: 7 });
    expect(all.documents[2]).toEqual({ id: 'b', title: 'Beta', meta: { title: 'Beta', year: 2001 }, chunks: 1, chars: 9 });
    const page = await engine.documents(1, 2);
    expect(page).toEqual({ documents: all.documents.slice(1, 3), total: 4 });
    expect((await engine.documents(10, 5)).documents).toEqual([]);
    // Listing reflects later writes, and results are copies.
    page.documents[0].meta.title = 'mutated';
    await engine.delete(['b']);
    await engine.add([{ id: 'c', text: 'gamma' }]);
    const after = await engine.documents(0, 100);
    expect(after.documents.map((d) => d.id)).toEqual(['Z', 'a', 'c', 'é']);
    expect(after.documents[1].meta).toEqual({ title: 7 });
  });

  it('lists chars of documents loaded from the store on a cold start', async () => {
    const { store, engine } = await makeEngine();
    await engine.add([{ id: 'x', text: 'twelve chars' }, { id: 'y', text: '' }]);
    const cold = new Engine({ store });
    await cold.open();
    expect((await cold.documents()).documents.map((d) => [d.id, d.chars, d.chunks])).toEqual([['x', 12, 1], ['y', 0, 1]]);
  });

  it('document() returns text, meta and chunk ranges in order; undefined when absent', async () => {
    const { engine } = await makeEngine();
    const text = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} about the sea.`).join(' ');
    await engine.add([{ id: 'doc', text, meta: { title: 'Sea' } }], { chunk: true, chunkSize: 200, chunkOverlap: 20 });
    const d = await engine.document('doc');
    expect(d).toBeDefined();
    expect(d!.text).toBe(text);
    expect(d!.meta).toEqual({ title: 'Sea' });
    expect(d!.chunks.length).toBeGreaterThan(2);
    expect(d!.chunks.map((c) => c.index)).toEqual(d!.chunks.map((_, i) => i));
    expect(d!.chunks[0].start).toBe(0);
    expect(d!.chunks.at(-1)!.end).toBe(text.length);
    for (const c of d!.chunks) expect(c.end).toBeGreaterThan(c.start);
    expect(await engine.document('nope')).toBeUndefined();
    await engine.delete(['doc']);
    expect(await engine.document('doc')).toBeUndefined();
  });

  it('clear() empties store and memory atomically at a new version; old pins are gone', async () => {
    const { engine, store } = await makeEngine();
    await engine.add([{ id: 'a', text: 'alpha whale' }, { id: 'b', text: 'beta whale' }], { idempotencyKey: 'k' });
    const pinned = engine.indexVersion;
    const commits = store.commits;
    const r = await engine.clear();
    expect(r.deleted).toBe(2);
    expect(Number(r.indexVersion)).toBe(Number(pinned) + 1);
    expect(store.commits).toBe(commits); // one clear step, not a commit
    expect(store.stats()).toEqual({ documents: 0, chunks: 0, segments: 0 });
    expect((await store.load())!.manifest.version).toBe(Number(r.indexVersion));
    expect(engine.stats()).toEqual({ documents: 0, chunks: 0, indexVersion: r.indexVersion });
    expect(await engine.documents()).toEqual({ documents: [], total: 0 });
    expect(ids(await search(engine, { query: 'whale' }))).toEqual([]);
    await expect(search(engine, { query: 'whale', indexVersion: pinned })).rejects.toMatchObject({ code: -32010 });
    // The index keeps working, keys keep ascending, and a cold start agrees.
    const again = await engine.add([{ id: 'a', text: 'alpha again' }], { idempotencyKey: 'k' });
    expect(Number(again.indexVersion)).toBe(Number(r.indexVersion) + 1);
    expect((await engine.clear()).deleted).toBe(1);
    expect((await engine.clear()).deleted).toBe(0);
    const cold = new Engine({ store });
    await cold.open();
    expect(cold.stats()).toEqual(engine.stats());
  });

  it('a failed clear changes nothing in memory', async () => {
    const { engine, store } = await makeEngine();
    await engine.add([{ id: 'a', text: 'alpha' }]);
    const v = engine.indexVersion;
    store.clear = async () => {
      throw new DOMException('disk full', 'QuotaExceededError');
    };
    await expect(engine.clear()).rejects.toThrow('disk full');
    expect(engine.indexVersion).toBe(v);
    expect(ids(await search(engine, { query: 'alpha' }))).toEqual(['a']);
  });
});

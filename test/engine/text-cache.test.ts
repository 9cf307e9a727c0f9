/** Hit texts from memory: only live versions, bounded, and never changing what a pinned query gets. */
import { describe, expect, it } from 'vitest';
import type { IndexStore, StoredDocument } from '../../src/engine/contracts.ts';
import { createCoordinationHub } from '../../src/engine/state/coordination.ts';
import { Engine } from '../../src/engine/engine.ts';
import type { IndexState } from '../../src/engine/state/index-state.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { readOncePerQuery, TextCache, type DocumentReader } from '../../src/engine/state/text-cache.ts';
import { ids, search } from '../support/engine.ts';

const doc = (id: string, version: number, text: string): StoredDocument => ({ id, text, meta: {}, chunkKeys: [], version });

/** A reader over fixed documents that counts the ids it was asked for. */
function reader(docs: StoredDocument[]): DocumentReader & { asked: string[] } {
  const byId = new Map(docs.map((d) => [d.id, d]));
  const asked: string[] = [];
  return { asked, getDocuments: async (list) => (asked.push(...list), list.map((id) => byId.get(id))) };
}

describe('TextCache', () => {
  it('serves a live document from memory after the first read', async () => {
    const store = reader([doc('a', 1, 'alpha'), doc('b', 2, 'beta')]);
    const cache = new TextCache(store, () => new Map([['a', { version: 1 }], ['b', { version: 2 }]]));
    expect((await cache.getDocuments(['a', 'b'])).map((d) => d?.text)).toEqual(['alpha', 'beta']);
    expect((await cache.getDocuments(['b', 'a', 'zz'])).map((d) => d?.text)).toEqual(['beta', 'alpha', undefined]);
    expect(store.asked).toEqual(['a', 'b', 'zz']);
  });

  it('reads from the store when the cached version is no longer the live one', async () => {
    let live = 1;
    const store = reader([doc('a', 1, 'old')]);
    const cache = new TextCache(store, () => ({ get: () => ({ version: live }) }));
    await cache.getDocuments(['a']);
    live = 2;
    await cache.getDocuments(['a']);
    expect(store.asked).toEqual(['a', 'a']);
  });

  it('keeps within its character budget, least recently used out, and never caches a larger document', async () => {
    const store = reader([doc('a', 1, 'x'.repeat(40)), doc('b', 1, 'y'.repeat(40)), doc('c', 1, 'z'.repeat(40)), doc('big', 1, 'w'.repeat(200))]);
    const cache = new TextCache(store, () => ({ get: () => ({ version: 1 }) }), undefined, 100);
    await cache.getDocuments(['a', 'b']);
    await cache.getDocuments(['a']); // a is now the most recently used
    await cache.getDocuments(['c']); // evicts b
    store.asked.length = 0;
    await cache.getDocuments(['a', 'c', 'b', 'big', 'big']);
    expect(store.asked).toEqual(['b', 'big', 'big']);
  });

  it('without an id map: serves a text read at the wanted version until this engine commits; never another version', async () => {
    const store = reader([doc('a', 3, 'alpha')]);
    const cache = new TextCache(store, () => undefined);
    await cache.getDocuments(['a'], [3]);
    expect((await cache.getDocuments(['a'], [3]))[0]?.text).toBe('alpha');
    expect(store.asked).toEqual(['a']);
    await cache.getDocuments(['a'], [2]); // a pinned older version: the store decides
    await cache.getDocuments(['a']); // no version wanted: not known live
    expect(store.asked).toEqual(['a', 'a', 'a']);
    cache.committed(); // the cached text may be stale now
    await cache.getDocuments(['a'], [3]);
    expect(store.asked).toEqual(['a', 'a', 'a', 'a']);
    await cache.getDocuments(['a'], [3]);
    expect(store.asked).toHaveLength(4);
  });

  it('without an id map: a read under way when this engine commits is not cached', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const asked: string[] = [];
    const slow: DocumentReader = { getDocuments: async (list) => (asked.push(...list), await gate, list.map(() => doc('a', 1, 'old'))) };
    const cache = new TextCache(slow, () => undefined);
    const pending = cache.getDocuments(['a'], [1]);
    cache.committed();
    release();
    await pending;
    await cache.getDocuments(['a'], [1]);
    expect(asked).toEqual(['a', 'a']);
  });
});

describe('Engine hit texts', () => {
  it('a repeated query reads no document from the store; an upsert is seen at once; a pin to the old version still gets -32010', async () => {
    const store = new MemoryStore();
    let reads = 0;
    const getDocuments = store.getDocuments.bind(store);
    store.getDocuments = (list) => ((reads += list.length), getDocuments(list));
    const engine = new Engine({ store });
    await engine.open();
    await engine.add([{ id: 'w', text: 'the white whale swims' }, { id: 's', text: 'a ship and a whale' }]);
    const first = await search(engine, { query: 'whale' });
    expect(reads).toBe(2);
    await search(engine, { query: 'whale' });
    expect(reads).toBe(2);
    await engine.add([{ id: 'w', text: 'the grey whale now' }]);
    const after = await search(engine, { query: 'whale', k: 5 });
    expect(after.hits.find((h) => h.id === 'w')?.text).toBe('the grey whale now');
    await expect(search(engine, { query: 'whale', indexVersion: first.indexVersion })).rejects.toMatchObject({ code: -32010 });
    expect(ids(after).sort()).toEqual(['s', 'w']);
  });

  it('a lazily opened index (no id map) caches hit texts too, by the version each hit wants, until the next commit', async () => {
    const store = new MemoryStore();
    const writer = new Engine({ store });
    await writer.open();
    await writer.add([{ id: 'w', text: 'the white whale swims' }, { id: 's', text: 'a ship and a whale' }]);
    let reads = 0;
    const getDocuments = store.getDocuments.bind(store);
    store.getDocuments = (list) => ((reads += list.length), getDocuments(list));
    const engine = new Engine({ store }); // a cold start from the segments' document tables
    await engine.open();
    expect((engine as unknown as { s: { state: IndexState } }).s.state.docsIfBuilt).toBeUndefined();
    const first = await search(engine, { query: 'whale' });
    expect(reads).toBe(2);
    await search(engine, { query: 'whale' });
    expect(reads).toBe(2); // before: every warm query read its hits' texts again
    await engine.add([{ id: 'w', text: 'the grey whale now' }]);
    const after = await search(engine, { query: 'whale', k: 5 });
    expect(after.hits.find((h) => h.id === 'w')?.text).toBe('the grey whale now');
    expect(after.hits.find((h) => h.id === 's')?.text).toBe('a ship and a whale');
    await expect(search(engine, { query: 'whale', indexVersion: first.indexVersion })).rejects.toMatchObject({ code: -32010 });
  });
});

describe('readOncePerQuery', () => {
  it('reads each document at most once, however often a query asks (rerank pool, MMR, page)', async () => {
    const store = reader([doc('a', 1, 'alpha'), doc('b', 1, 'beta'), doc('c', 1, 'gamma')]);
    const once = readOncePerQuery(store);
    const [pool, page] = await Promise.all([once.getDocuments(['a', 'b']), once.getDocuments(['b', 'a', 'c', 'c'])]);
    expect(pool.map((d) => d?.text)).toEqual(['alpha', 'beta']);
    expect(page.map((d) => d?.text)).toEqual(['beta', 'alpha', 'gamma', 'gamma']);
    expect(store.asked).toEqual(['a', 'b', 'c']);
  });
});

describe('Engine hit texts with other engines and replaced stores', () => {
  const tabs = async () => {
    const store = new MemoryStore();
    let manifestReads = 0;
    const readManifest = store.readManifest.bind(store);
    store.readManifest = () => (manifestReads++, readManifest());
    const hub = createCoordinationHub();
    const a = new Engine({ store, coordination: hub() });
    const b = new Engine({ store, coordination: hub() });
    // Joins last, so it hears an announcement after A and B did.
    const spy = hub();
    const announced = () => new Promise<void>((ok) => { const off = spy.subscribe(() => (off(), ok())); });
    await a.open();
    await b.open();
    return { a, b, store, announced, manifestReads: () => manifestReads };
  };

  it('a cache hit reads neither the store nor its manifest while no other tab announced a commit', async () => {
    const { a, store, manifestReads } = await tabs();
    await a.add([{ id: 'w', text: 'the white whale' }, { id: 's', text: 'a ship and a whale' }]);
    await search(a, { query: 'whale' });
    let reads = 0;
    const getDocuments = store.getDocuments.bind(store);
    store.getDocuments = (list) => ((reads += list.length), getDocuments(list));
    const before = manifestReads();
    const again = await search(a, { query: 'whale' });
    expect(again.hits.map((h) => h.text).sort()).toEqual(['a ship and a whale', 'the white whale']);
    expect([reads, manifestReads() - before]).toEqual([0, 0]);
  });

  it('a delete in another tab is never hidden by this tab’s cache once its announcement arrived', async () => {
    const { a, b, announced } = await tabs();
    await a.add([{ id: 'secret', text: 'the secret whale' }, { id: 'x', text: 'another whale' }]);
    await search(a, { query: 'whale' }); // warms A's cache
    const heard = announced();
    await b.delete(['secret']);
    await heard;
    const r = await search(a, { query: 'secret whale' });
    expect(ids(r)).toEqual(['x']);
  });

  it('a pin to a version before another tab’s clear is -32010 whether or not the text was cached', async () => {
    for (const warm of [false, true]) {
      const { a, b, announced } = await tabs();
      const { indexVersion } = await a.add([{ id: 'secret', text: 'the secret whale' }]);
      if (warm) await search(a, { query: 'whale' });
      const heard = announced();
      await b.clear();
      await heard;
      await expect(search(a, { query: 'whale', indexVersion })).rejects.toMatchObject({ code: -32010 });
    }
  });

  it('a read that was under way when the store was replaced does not refill the cache with the old text', async () => {
    let inner = new MemoryStore();
    let gate: Promise<void> | undefined;
    let readOld = (): void => undefined;
    const store: IndexStore = {
      load: () => inner.load(),
      readManifest: () => inner.readManifest(),
      commit: (c) => inner.commit(c),
      getDocuments: async (d) => {
        const r = await inner.getDocuments(d);
        readOld();
        await gate;
        return r;
      },
      getChunks: (k) => inner.getChunks(k),
      getIdempotent: (k) => inner.getIdempotent(k),
      clear: (m) => inner.clear(m),
      close: () => undefined,
    };
    const engine = new Engine({ store });
    await engine.open();
    await engine.add([{ id: 'd', text: 'the first whale' }]);
    let release!: () => void;
    gate = new Promise((ok) => (release = ok));
    const atGate = new Promise<void>((ok) => (readOld = ok));
    const slow = search(engine, { query: 'whale' }); // reads the old database, then waits
    await atGate;
    gate = undefined;
    const replacement = new MemoryStore();
    const other = new Engine({ store: replacement });
    await other.open();
    await other.add([{ id: 'd', text: 'the second whale' }]);
    inner = replacement;
    engine.invalidate();
    expect((await search(engine, { query: 'whale' })).hits[0].text).toBe('the second whale');
    release();
    await slow;
    expect((await search(engine, { query: 'whale' })).hits[0].text).toBe('the second whale');
  });
});

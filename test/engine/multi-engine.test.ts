/** Several engines over one store (one per tab), coordinated by a lock and commit announcements. */
import { describe, expect, it } from 'vitest';
import type { Embedder, IndexStore } from '../../src/engine/contracts.ts';
import { createCoordinationHub, type CoordinationHub } from '../../src/engine/state/coordination.ts';
import { Engine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { ids , search } from '../support/engine.ts';

/** The hub of the current test: `tick()` waits until every announcement made so far was delivered. */
let hub: CoordinationHub = createCoordinationHub();
const tick = (): Promise<void> => hub.delivered();

async function tabs(n: number, store = new MemoryStore()) {
  const member = (hub = createCoordinationHub());
  const engines = Array.from({ length: n }, () => new Engine({ store, coordination: member() }));
  await Promise.all(engines.map((e) => e.open()));
  return { store, engines };
}

/** Every stored document's chunks exist once, belong to it, and every listed segment is stored. */
async function checkStore(store: MemoryStore): Promise<void> {
  const loaded = (await store.load())!;
  expect(loaded.segments.map((s) => s.id)).toEqual(loaded.manifest.segmentIds);
  const keys = loaded.documents!.flatMap((d) => d.chunkKeys);
  expect(new Set(keys).size).toBe(keys.length);
  const chunks = await store.getChunks(keys);
  loaded.documents!.forEach((d) => d.chunkKeys.forEach((k) => expect(chunks[keys.indexOf(k)]?.docId).toBe(d.id)));
  expect(Math.max(0, ...keys)).toBeLessThan(loaded.manifest.nextChunkKey);
  expect(Math.max(0, ...loaded.manifest.segmentIds)).toBeLessThan(loaded.manifest.nextSegmentId);
}

/** What a tab sees when another one deleted and re-created the database: `replace` swaps it. */
function replaceableStore(): { store: IndexStore; replace(next: MemoryStore): void } {
  let inner = new MemoryStore();
  const store: IndexStore = {
    load: () => inner.load(),
    readManifest: () => inner.readManifest(),
    commit: (c) => inner.commit(c),
    getDocuments: (d) => inner.getDocuments(d),
    getChunks: (k) => inner.getChunks(k),
    getIdempotent: (k) => inner.getIdempotent(k),
    clear: (m) => inner.clear(m),
    close: () => undefined,
  };
  return { store, replace: (next) => void (inner = next) };
}

describe('several engines over one store', () => {
  it('an engine sees documents another one added (reload before the next read)', async () => {
    const { engines: [a, b] } = await tabs(2);
    await a.add([{ id: 'w', text: 'the white whale' }]);
    await tick();
    expect(ids(await search(b, { query: 'whale' }))).toEqual(['w']);
    expect((await b.documents!()).total).toBe(1);
    expect((await b.document('w'))?.text).toBe('the white whale');
    expect(b.indexVersion).toBe(a.indexVersion);
  });

  it('interleaved concurrent adds from two engines: no collisions, every document once, cold start agrees', async () => {
    const { store, engines: [a, b] } = await tabs(2);
    const batch = (tab: string, i: number) =>
      Array.from({ length: 5 }, (_, j) => ({ id: `${tab}-${i}-${j}`, text: `document ${tab} batch ${i} item ${j} about harpoons and ${tab}` }));
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 12; i++) writes.push(a.add(batch('a', i)), b.add(batch('b', i)));
    await Promise.all(writes);
    expect(store.commits).toBe(24);
    await tick();
    for (const e of [a, b]) {
      const { total, documents } = await e.documents!(0, 1000);
      expect(total).toBe(120);
      expect(new Set(documents.map((d) => d.id)).size).toBe(120);
      expect(ids(await search(e, { query: 'harpoons', k: 200 }))).toHaveLength(120);
    }
    await checkStore(store);
    const cold = new Engine({ store });
    await cold.open();
    expect(cold.stats()).toEqual(a.stats());
    expect(a.stats()).toEqual(b.stats());
  });

  it('writes right after another engine committed see its state even before the announcement arrives', async () => {
    const { store, engines: [a, b] } = await tabs(2);
    await a.add([{ id: 'x', text: 'first version about sails' }, { id: 'y', text: 'keep me' }]);
    // No tick: b has not heard of a's commit, yet its write plans on top of it (checked under the lock).
    await b.add([{ id: 'x', text: 'second version about oars' }]);
    await tick();
    for (const e of [a, b]) {
      expect((await e.documents!()).total).toBe(2);
      expect(ids(await search(e, { query: 'sails' }))).toEqual([]);
      expect(ids(await search(e, { query: 'oars' }))).toEqual(['x']);
    }
    expect((await b.delete(['y'])).deleted).toBe(1);
    expect((await a.delete(['y'])).deleted).toBe(0);
    await checkStore(store);
    expect(store.stats().documents!).toBe(1);
  });

  it('clear() in one engine empties the other; later writes keep keys unique', async () => {
    const { store, engines: [a, b] } = await tabs(2);
    await a.add([{ id: 'a1', text: 'alpha' }]);
    await b.add([{ id: 'b1', text: 'beta' }]);
    expect((await a.clear()).deleted).toBe(2);
    await tick();
    expect(await b.documents!()).toEqual({ documents: [], total: 0 });
    expect(ids(await search(b, { query: 'alpha beta' }))).toEqual([]);
    await b.add([{ id: 'b2', text: 'beta again' }]);
    await a.add([{ id: 'a2', text: 'alpha again' }]);
    await tick();
    expect((await a.documents!()).documents!.map((d) => d.id)).toEqual(['a2', 'b2']);
    await checkStore(store);
  });

  it('after a clear, every engine refuses pins to the versions before it (-32010), not only the one that cleared', async () => {
    const { engines: [a, b] } = await tabs(2);
    await a.add([{ id: 'w', text: 'the white whale' }]);
    await tick();
    const before = await search(b, { query: 'whale', includeText: false });
    expect(ids(before)).toEqual(['w']);
    await a.clear();
    await tick();
    const pinned = { query: 'whale', includeText: false, indexVersion: before.indexVersion };
    await expect(search(a, pinned)).rejects.toMatchObject({ code: -32010 });
    await expect(search(b, pinned)).rejects.toMatchObject({ code: -32010 });
    await a.add([{ id: 'x', text: 'a whale after the clear' }]);
    await tick();
    await expect(search(b, pinned)).rejects.toMatchObject({ code: -32010 });
  });

  it('a reload keeps this engine’s older versions pinnable (the store moved forward) and cursors keep paging', async () => {
    const { engines: [a, b] } = await tabs(2);
    await a.add(Array.from({ length: 6 }, (_, i) => ({ id: `d${i}`, text: `whale number ${i}` })));
    const first = await search(a, { query: 'whale', k: 2 });
    await b.add([{ id: 'late', text: 'whale whale whale late' }]);
    await tick();
    const now = await search(a, { query: 'whale', k: 10 });
    expect(ids(now)).toContain('late');
    expect(now.indexVersion).not.toBe(first.indexVersion);
    const pinned = await search(a, { query: 'whale', k: 10, indexVersion: first.indexVersion });
    expect(ids(pinned)).not.toContain('late');
    const page2 = await search(a, { query: 'whale', k: 2, cursor: first.nextCursor });
    expect(page2.indexVersion).toBe(first.indexVersion);
    expect(ids(page2)).toHaveLength(2);
  });

  it('invalidate() reloads even at an equal version and drops older versions (the database was replaced)', async () => {
    const { store, replace } = replaceableStore();
    const engine = new Engine({ store });
    await engine.open();
    await engine.add([{ id: 'old', text: 'old whale' }]);
    const v = engine.indexVersion;
    const replacement = new MemoryStore();
    const other = new Engine({ store: replacement });
    await other.open();
    await other.add([{ id: 'new', text: 'new whale' }]);
    expect(other.indexVersion).toBe(v); // same version number, different database
    replace(replacement);
    engine.invalidate();
    expect(ids(await search(engine, { query: 'whale' }))).toEqual(['new']);
    expect((await engine.documents!()).documents!.map((d) => d.id)).toEqual(['new']);
    await expect(search(engine, { query: 'whale', indexVersion: String(Number(v) - 1) })).rejects.toMatchObject({ code: -32010 });
  });

  it('after invalidate(), a document with the same id and version in the new database shows its own text, not a cached one', async () => {
    const { store, replace } = replaceableStore();
    const engine = new Engine({ store });
    await engine.open();
    await engine.add([{ id: 'd', text: 'the first whale' }]);
    expect((await search(engine, { query: 'whale' })).hits[0].text).toBe('the first whale');
    const replacement = new MemoryStore();
    const other = new Engine({ store: replacement });
    await other.open();
    await other.add([{ id: 'd', text: 'the second whale' }]);
    replace(replacement);
    engine.invalidate();
    expect((await search(engine, { query: 'whale' })).hits[0].text).toBe('the second whale');
  });

  it('without coordination an engine never reads the store back on writes', async () => {
    const store = new MemoryStore();
    let reads = 0;
    const read = store.readManifest.bind(store);
    store.readManifest = () => (reads++, read());
    const engine = new Engine({ store });
    await engine.open();
    await engine.add([{ id: 'a', text: 'alpha' }]);
    await engine.delete(['a']);
    await search(engine, { query: 'alpha' });
    expect(reads).toBe(0);
  });

  it('a write waiting for the lock can be cancelled; nothing is written', async () => {
    const { store, engines: [a, b] } = await tabs(2);
    const ctrl = new AbortController();
    let finish!: () => void;
    let committing!: () => void;
    const slow = new Promise<void>((ok) => (finish = ok));
    const inCommit = new Promise<void>((ok) => (committing = ok));
    const commit = store.commit.bind(store);
    store.commit = async (c) => {
      committing();
      await slow;
      return commit(c);
    };
    const first = a.add([{ id: 'a', text: 'alpha' }]);
    await inCommit; // a holds the lock, stuck in its commit
    const second = b.add([{ id: 'b', text: 'beta' }], { signal: ctrl.signal });
    ctrl.abort(new Error('cancelled by test'));
    await expect(second).rejects.toThrow('cancelled by test');
    finish();
    await first;
    expect(store.stats().documents!).toBe(1);
  });

  it('a read catches up without waiting for this engine’s own slow preparation (embedding) of a write', async () => {
    const store = new MemoryStore();
    const member = (hub = createCoordinationHub());
    let release!: () => void;
    const gate = new Promise<void>((ok) => (release = ok));
    const embedder = (gated: boolean): Embedder => ({
      identity: 'toy',
      dimension: 2,
      normalized: true,
      embed: async (texts, kind) => {
        if (gated && kind === 'document') await gate;
        return texts.map(() => new Float32Array([1, 0]));
      },
    });
    const a = new Engine({ store, embedder: embedder(true), coordination: member() });
    const b = new Engine({ store, embedder: embedder(false), coordination: member() });
    await Promise.all([a.open(), b.open()]);
    const slow = a.add([{ id: 'mine', text: 'a slow import about whales' }]);
    await b.add([{ id: 'theirs', text: 'their quick note about whales' }]);
    await tick();
    expect(ids(await search(a, { query: 'whales', mode: 'sparse' }))).toEqual(['theirs']);
    release();
    await slow;
    await tick();
    for (const e of [a, b]) expect(ids(await search(e, { query: 'whales', mode: 'sparse' })).sort()).toEqual(['mine', 'theirs']);
  });
});

/** The engine over the real IndexedDB store (fake-indexeddb in Node). */
import 'fake-indexeddb/auto';
import { deleteDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexStore } from '../../src/engine/contracts.ts';
import { createCoordinationHub } from '../../src/engine/state/coordination.ts';
import { Engine } from '../../src/engine/engine.ts';
import { openIndexedDbStore, type IdbStoreOptions } from '../../src/storage/index.ts';
import { ids , search } from '../support/engine.ts';

let counter = 0;
const opened: IndexStore[] = [];
const dbName = (): string => `engine-${++counter}-${Date.now()}`;
async function store(name: string, opts?: IdbStoreOptions): Promise<IndexStore> {
  const s = await openIndexedDbStore(name, opts);
  opened.push(s);
  return s;
}
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

describe('engine over IndexedDB', () => {
  it('clear() is one transaction: documents, chunks, segments gone, the new manifest version persisted', async () => {
    const name = dbName();
    const engine = new Engine({ store: await store(name) });
    await engine.open();
    await engine.add([{ id: 'a', text: 'alpha whale' }, { id: 'b', text: 'beta whale' }]);
    const { deleted, indexVersion } = await engine.clear();
    expect(deleted).toBe(2);
    const s = await store(name);
    const loaded = await s.load();
    // The database keeps its id across the clear (it is the same database, emptied on purpose).
    const storeId = engine.summary().storeId;
    expect(storeId).toMatch(/^[0-9a-f]{24}$/);
    expect(loaded).toEqual({
      manifest: { version: Number(indexVersion), nextChunkKey: 3, nextSegmentId: 2, segmentIds: [], tombstones: [], chunkless: 0, documents: 0, clearedAt: Number(indexVersion), storeId },
      segments: [],
      documents: [],
    });
    expect(await s.getDocuments(['a'])).toEqual([undefined]);
    expect(await s.getChunks([1, 2])).toEqual([undefined, undefined]);
    const cold = new Engine({ store: s });
    await cold.open();
    expect(cold.indexVersion).toBe(indexVersion);
    await cold.add([{ id: 'c', text: 'gamma whale' }]);
    expect(ids(await search(cold, { query: 'whale' }))).toEqual(['c']);
  });

  it('two engines over two connections to one database: interleaved concurrent adds, each sees everything', async () => {
    const name = dbName();
    const member = createCoordinationHub();
    const [a, b] = await Promise.all([0, 1].map(async () => new Engine({ store: await store(name), coordination: member() })));
    await Promise.all([a.open(), b.open()]);
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 8; i++) {
      writes.push(a.add([{ id: `a${i}`, text: `tab a wrote harpoon ${i}` }, { id: 'shared', text: `shared by a ${i}` }]));
      writes.push(b.add([{ id: `b${i}`, text: `tab b wrote harpoon ${i}` }, { id: 'shared', text: `shared by b ${i}` }]));
    }
    await Promise.all(writes);
    await member.delivered(); // the last commit's announcement reached the other engine
    for (const e of [a, b]) {
      expect((await e.documents(0, 100)).total).toBe(17);
      expect(ids(await search(e, { query: 'harpoon', k: 50 })).sort()).toEqual([...Array.from({ length: 8 }, (_, i) => `a${i}`), ...Array.from({ length: 8 }, (_, i) => `b${i}`)].sort());
      expect((await e.document('shared'))?.text).toBe('shared by b 7'); // the last write wins
    }
    const cold = new Engine({ store: await store(name) });
    await cold.open();
    expect(cold.stats()).toEqual(a.stats());
  });

  it('a lost connection (the database was deleted and re-created) makes the engine reload, even at an equal version', async () => {
    const name = dbName();
    let engine: Engine | undefined;
    const first = await store(name, { onConnectionLost: () => engine?.invalidate() });
    engine = new Engine({ store: first });
    await engine.open();
    await engine.add([{ id: 'old', text: 'old whale' }]);
    await deleteDB(name); // our connection closes on versionchange
    const other = new Engine({ store: await store(name) });
    await other.open();
    await other.add([{ id: 'new', text: 'new whale' }]);
    expect(other.indexVersion).toBe(engine.indexVersion);
    expect(ids(await search(engine, { query: 'whale' }))).toEqual(['new']);
    await engine.add([{ id: 'again', text: 'whale again' }]);
    expect((await other.documents()).total).toBe(1); // no coordination between these two: other has not reloaded
    const cold = new Engine({ store: await store(name) });
    await cold.open();
    expect((await cold.documents()).documents.map((d) => d.id)).toEqual(['again', 'new']);
  });

  it('a disk full in the middle of a commit leaves nothing of the batch, tells the witness nothing, and the next open finds no loss', async () => {
    const name = dbName();
    let full = false;
    const faults = { failCommitWith: () => (full ? new DOMException('the disk is full', 'QuotaExceededError') : undefined) };
    const committed: number[] = [];
    const engine = new Engine({ store: await store(name, { faults }), onCommitted: (s) => committed.push(s.documents) });
    await engine.open();
    await engine.add([{ id: 'a', text: 'alpha whale' }]);
    full = true;
    await expect(engine.add([{ id: 'b', text: 'beta whale' }, { id: 'c', text: 'gamma whale' }])).rejects.toMatchObject({ name: 'QuotaExceededError' });
    expect(committed).toEqual([1]); // the witness only hears of what committed
    expect(engine.summary()).toMatchObject({ documents: 1, chunks: 1 });
    const cold = new Engine({ store: await store(name) });
    await cold.open();
    expect(cold.openedAs).toMatchObject({ documents: 1, chunks: 1, indexVersion: 1 });
    expect(cold.missing).toEqual([]);
    expect(ids(await search(cold, { query: 'whale' }))).toEqual(['a']);
  });
});

import { describe, expect, it } from 'vitest';
import type { Change, IndexSummary } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';

/**
 * What the engine tells the record kept outside its database (src/storage/witness.ts): after
 * every committed write, what the index holds; at open, what it held and what was missing.
 */
describe('engine summary for the witness', () => {
  it('counts documents and passages after adds, upserts and deletes, and persists the count and the database id', async () => {
    const store = new MemoryStore();
    const seen: [IndexSummary, boolean][] = [];
    const engine = new Engine({ store, onCommitted: (s, cleared) => seen.push([s, cleared]) });
    await engine.open();
    expect(engine.openedAs).toMatchObject({ indexVersion: 0, documents: 0, chunks: 0, storedId: false });
    await engine.add([{ id: 'a', text: 'alpha' }, { id: 'b', text: 'beta' }, { id: 'c', text: 'gamma' }]);
    await engine.add([{ id: 'a', text: 'alpha again' }, { id: 'd', text: 'delta' }]); // one upsert, one new
    await engine.delete(['b', 'nope']);
    expect(seen.map(([s]) => [s.indexVersion, s.documents, s.chunks])).toEqual([
      [1, 3, 3],
      [2, 4, 4],
      [3, 3, 3],
    ]);
    const storeId = seen[0][0].storeId;
    expect(seen.every(([s, cleared]) => s.storeId === storeId && !cleared)).toBe(true);
    expect((await store.readManifest())?.documents).toBe(3);

    // A new life of the same store: same database id, counts as committed, from the store.
    const again = new Engine({ store });
    await again.open();
    expect(again.openedAs).toEqual({ storeId, storedId: true, indexVersion: 3, documents: 3, chunks: 3 });

    // A clear empties the index on purpose, keeps the database's id, and says it was a clear.
    await engine.clear();
    expect(seen.at(-1)?.[0]).toMatchObject({ storeId, indexVersion: 4, documents: 0, chunks: 0 });
    expect(seen.at(-1)?.[1]).toBe(true);
  });

  it('gives a fresh store its own id, and an older manifest without one gets one with its next commit', async () => {
    const a = new Engine({ store: new MemoryStore() });
    const b = new Engine({ store: new MemoryStore() });
    await Promise.all([a.open(), b.open()]);
    expect(a.summary().storeId).not.toBe(b.summary().storeId);

    const legacy = new MemoryStore();
    const seed = new Engine({ store: legacy });
    await seed.open();
    await seed.add([{ id: 'x', text: 'old text' }]);
    const m = (await legacy.readManifest())!;
    const { storeId: _gone, documents: _count, ...old } = m;
    await legacy.commit({ putDocuments: [], deleteDocumentIds: [], putChunks: [], deleteChunkKeys: [], putSegments: [], deleteSegmentIds: [], manifest: old } satisfies Change);
    const reopened = new Engine({ store: legacy });
    await reopened.open();
    expect(reopened.openedAs).toMatchObject({ storedId: false, documents: 1, chunks: 1 }); // counted from the documents
    await reopened.add([{ id: 'y', text: 'new text' }]);
    const after = (await legacy.readManifest())!;
    expect(after.storeId).toBe(reopened.summary().storeId);
    expect(after.documents).toBe(2);
  });

  it('names segments the manifest lists but the store lacks (their passages are lost)', async () => {
    const store = new MemoryStore();
    const engine = new Engine({ store });
    await engine.open();
    await engine.add([{ id: 'a', text: 'alpha' }]);
    await engine.add([{ id: 'b', text: 'beta' }]);
    const m = (await store.readManifest())!;
    await store.commit({ putDocuments: [], deleteDocumentIds: [], putChunks: [], deleteChunkKeys: [], putSegments: [], deleteSegmentIds: [m.segmentIds[0]], manifest: m });
    const cold = new Engine({ store });
    await cold.open();
    expect(cold.missing).toEqual([`segment ${m.segmentIds[0]} listed in the manifest is missing from the store`]);
    expect(cold.openedAs?.chunks).toBe(1);
    expect(cold.warnings).toEqual([]);
  });
});

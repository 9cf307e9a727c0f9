import { describe, expect, it } from 'vitest';
import { createCoordinationHub } from '../../src/engine/state/coordination.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { readAhead } from '../../src/storage/read-ahead.ts';
import type { IndexStore } from '../../src/engine/contracts.ts';

/** Counts `load()` calls of the store underneath. */
function counting(store: IndexStore): IndexStore & { loads: number } {
  const c = { ...store, loads: 0 };
  c.load = (options) => (c.loads++, store.load(options));
  return c;
}

const manifest = (version: number) => ({ version, nextChunkKey: 0, nextSegmentId: 0, segmentIds: [], tombstones: [] });
const change = (version: number) => ({
  putDocuments: [], deleteDocumentIds: [], putChunks: [], deleteChunkKeys: [], putSegments: [], deleteSegmentIds: [], manifest: manifest(version),
});

describe('readAhead', () => {
  it('starts the first read at once and hands it to the first load(); later loads read the store', async () => {
    const base = counting(new MemoryStore());
    const store = readAhead(base);
    expect(base.loads).toBe(1);
    await store.firstRead;
    await store.load({ documents: 'unless-tabled' }); // what the engine asks for
    expect(base.loads).toBe(1);
    await store.load({ documents: 'unless-tabled' });
    expect(base.loads).toBe(2);
  });

  it('discards the read when another engine announced a commit after it started', async () => {
    const hub = createCoordinationHub();
    const [mine, other] = [hub(), hub()];
    const memory = new MemoryStore();
    const base = counting(memory);
    const store = readAhead(base, mine);
    await store.firstRead;
    await memory.commit(change(1));
    const announced = new Promise<void>((ok) => mine.subscribe(() => ok()));
    other.announce(1);
    await announced;
    expect((await store.load({ documents: 'unless-tabled' }))?.manifest.version).toBe(1);
    expect(base.loads).toBe(2);
  });

  it('does not hand the read to a load() that asks for every document (the read may lack them)', async () => {
    const memory = new MemoryStore();
    await memory.commit(change(1));
    const base = counting(memory);
    const store = readAhead(base);
    await store.firstRead;
    expect((await store.load())?.documents).toEqual([]);
    expect(base.loads).toBe(2);
  });
});

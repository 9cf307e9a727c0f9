/** The engine over the real IndexedDB store (fake-indexeddb in Node). */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexStore } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { openIndexedDbStore, type IdbStoreOptions } from '../../src/storage/index.ts';
import { ids } from './helpers.ts';

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
    expect(loaded).toEqual({ manifest: { version: Number(indexVersion), nextChunkKey: 3, nextSegmentId: 2, segmentIds: [], tombstones: [] }, segments: [], documents: [] });
    expect(await s.getDocuments(['a'])).toEqual([undefined]);
    expect(await s.getChunks([1, 2])).toEqual([undefined, undefined]);
    const cold = new Engine({ store: s });
    await cold.open();
    expect(cold.indexVersion).toBe(indexVersion);
    await cold.add([{ id: 'c', text: 'gamma whale' }]);
    expect(ids(await cold.retrieve({ query: 'whale' }))).toEqual(['c']);
  });
});

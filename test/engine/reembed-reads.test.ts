/**
 * Background embedding reads a long document's text once per segment, not once per slice of 512
 * chunks (a 30 MB import has ~33k chunks: re-reading it per slice was ~2 GB of IndexedDB reads).
 */
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { HashEmbedder, ids, search } from '../support/engine.ts';

describe('re-embedding a long document', () => {
  it('reads its text once, and every chunk gets its vector', async () => {
    const store = new MemoryStore();
    const reads: string[] = [];
    const getDocuments = store.getDocuments.bind(store);
    store.getDocuments = async (docIds) => (reads.push(...docIds), getDocuments(docIds));
    const engine = new Engine({ store, embedder: new HashEmbedder(), embedInBackground: true, chunkSize: 100, chunkOverlap: 0 });
    await engine.open();
    const words = Array.from({ length: 30_000 }, (_, i) => `word${i % 997}`).join(' ');
    await engine.add([{ id: 'short', text: 'a short note about whales' }, { id: 'long', text: `${words} narwhal` }], { chunk: true });
    const chunks = engine.stats().chunks;
    expect(chunks).toBeGreaterThan(1500); // more than two slices of 512
    await engine.whenReembedded();
    expect(engine.pendingVectors()).toBe(0);
    expect(reads.filter((id) => id === 'long')).toHaveLength(1);
    expect(ids(await search(engine, { query: 'narwhal', mode: 'dense', k: 1, unit: 'document' }))).toEqual(['long']);
  });
});

/**
 * Background embedding reads a long document's text once per segment, not once per slice of 512
 * chunks (a 30 MB import has ~33k chunks: re-reading it per slice was ~2 GB of IndexedDB reads),
 * and hands an embedder with several workers a batch per worker in each call.
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

  it('hands an embedder that runs 3 batches at once 24 texts per call (8 when it says nothing)', async () => {
    const sizes = async (parallelism?: number) => {
      const calls: number[] = [];
      const embedder = new HashEmbedder();
      const embed = embedder.embed.bind(embedder);
      embedder.embed = async (texts: string[]) => (calls.push(texts.length), embed(texts));
      if (parallelism) Object.assign(embedder, { parallelism: () => parallelism });
      const engine = new Engine({ store: new MemoryStore(), embedder, embedInBackground: true, chunkSize: 100, chunkOverlap: 0 });
      await engine.open();
      const words = Array.from({ length: 3_000 }, (_, i) => `word${i % 997}`).join(' ');
      await engine.add([{ id: 'long', text: words }], { chunk: true });
      await engine.whenReembedded();
      expect(engine.pendingVectors()).toBe(0);
      return calls;
    };
    const three = await sizes(3);
    expect(Math.max(...three)).toBe(24);
    expect(three.reduce((a, b) => a + b, 0)).toBeGreaterThan(100);
    expect(Math.max(...(await sizes()))).toBe(8);
  });
});

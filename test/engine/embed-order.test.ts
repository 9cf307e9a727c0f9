/**
 * Search-aware embedding order (issue 24, deliverable 3): while chunks wait for vectors, the
 * background pass embeds recent queries' sparse top hits first, then the open document, then the
 * documents in the current results, the rest in document order — inside one segment too (one large
 * document is one segment), with dense search scoring what was embedded ahead of the segment's
 * commit. A hybrid answer says how many of its candidates had no vector yet.
 */
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { HashEmbedder, search } from '../support/engine.ts';

/** HashEmbedder whose document batches wait until the test lets each one through. */
class GatedEmbedder implements Embedder {
  private readonly hash = new HashEmbedder();
  readonly identity = this.hash.identity;
  readonly dimension = this.hash.dimension;
  readonly normalized = true;
  /** Texts of every document batch, in call order. */
  readonly batches: string[][] = [];
  private opened = 0;
  private waiters: (() => void)[] = [];
  private arrived: (() => void)[] = [];

  async embed(texts: string[], kind?: 'query' | 'document'): Promise<Float32Array[]> {
    if (kind === 'document') {
      this.batches.push(texts);
      for (const a of this.arrived.splice(0)) a();
      if (this.batches.length > this.opened) await new Promise<void>((ok) => this.waiters.push(ok));
    }
    return this.hash.embed(texts);
  }

  /** Lets `n` more batches through (and the one waiting). */
  release(n = 1): void {
    this.opened += n;
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once `n` batches have started. */
  async started(n: number): Promise<void> {
    while (this.batches.length < n) await new Promise<void>((ok) => this.arrived.push(ok));
  }

  /** Opens the gate for good. */
  releaseAll(): void {
    this.release(1e9);
  }
}

/** A 40-chunk document (chunk i says `topic<i>`), with a rare word in chunk 33 only. */
const BOOK = Array.from({ length: 40 }, (_, i) => `Chapter ${i} speaks of topic${i} at length${i === 33 ? ' and the narwhal' : ''}.`).join(' ');

async function openEngine(embedder: GatedEmbedder): Promise<Engine> {
  // Chunks of about one sentence; the background pass embeds 8 per call.
  const engine = new Engine({ store: new MemoryStore(), embedder, embedInBackground: true, chunkSize: 60, chunkOverlap: 0 });
  await engine.open();
  return engine;
}

describe('search-aware embedding order', () => {
  it('embeds a query’s sparse top hits next, inside one segment, and dense search scores them before the segment is done', async () => {
    const embedder = new GatedEmbedder();
    const engine = await openEngine(embedder);
    // One add: one segment holding both documents (the book's 40 chunks first).
    await engine.add([{ id: 'book', text: BOOK }, { id: 'note', text: 'A short note about otters and rivers.' }], { chunk: true });
    const chunks = engine.stats().chunks;
    expect(chunks).toBeGreaterThan(30);
    await embedder.started(1);
    expect(embedder.batches[0].some((t) => t.includes('narwhal'))).toBe(false); // document order starts at chapter 0

    const sparse = await search(engine, { query: 'narwhal', mode: 'sparse', k: 3 });
    expect(sparse.hits[0].citation?.source).toBe('book');
    embedder.release();
    await embedder.started(2);
    // Without the reordering the narwhal chunk would come in the 5th batch (chunks 32–39).
    expect(embedder.batches[1].filter((t) => t.includes('narwhal'))).toHaveLength(1);

    embedder.release();
    await embedder.started(3); // batch 2's vectors are stored (early), batch 3 waits
    expect(engine.pendingVectors()).toBe(chunks - 16);
    expect(engine.unstoredVectors()).toBe(16); // embedded ahead, their segment not committed yet
    // 'topic30' is in chunk 30 only, which waits for its vector: one candidate without one.
    const hybrid = await search(engine, { query: 'narwhal topic30', mode: 'hybrid', k: 5 });
    const narwhal = hybrid.hits.find((h) => String(h.text).includes('narwhal'));
    expect(narwhal?.scores?.dense).toBeGreaterThan(0.1);
    expect(hybrid.hits.find((h) => String(h.text).includes('topic30 '))?.scores?.dense).toBeUndefined();
    const note = hybrid.usage?.notes?.find((n) => /candidates had no vector yet/.test(n));
    expect(note).toMatch(/^\d+ of \d+ candidates/);
    const [lacking, of] = note!.match(/\d+/g)!.map(Number);
    expect(of).toBe(hybrid.usage?.candidates);
    expect(lacking).toBe(1);
    expect(of).toBeGreaterThan(1);
    // Dense alone finds it too (the segment has no stored vectors yet: only early ones).
    const dense = await search(engine, { query: 'narwhal topic33', mode: 'dense', k: 1 });
    expect(dense.hits[0].citation?.source).toBe('book');
    expect(dense.hits[0].text).toContain('narwhal');

    embedder.releaseAll();
    await engine.whenReembedded();
    expect(engine.pendingVectors()).toBe(0);
    expect(engine.unstoredVectors()).toBe(0);
    // Every chunk was embedded exactly once (the early ones were not embedded again at the commit).
    expect(embedder.batches.flat()).toHaveLength(chunks);
    const after = await search(engine, { query: 'narwhal topic30', mode: 'hybrid', k: 5 });
    expect(after.usage?.notes?.some((n) => /no vector yet/.test(n)) ?? false).toBe(false);
    // The committed (int8) vector scores the narwhal chunk as its early (float) vector did.
    expect(after.hits.find((h) => String(h.text).includes('narwhal'))?.scores?.dense).toBeCloseTo(narwhal!.scores!.dense!, 2);
  });

  it('takes the open document, then the documents in the current results, before the rest', async () => {
    const embedder = new GatedEmbedder();
    const engine = await openEngine(embedder);
    // Four documents of 4 to 6 chunks each; only delta's part 7 says 'walrus'.
    const docs = ['alpha', 'beta', 'gamma', 'delta'].map((id) => ({ id, text: Array.from({ length: 10 }, (_, i) => `${id} part ${i} ${id === 'delta' && i === 7 ? 'walrus' : 'seal'} words.`).join(' ') }));
    await engine.add(docs, { chunk: true });
    await embedder.started(1);
    const of = (batch: string[], id: string) => batch.filter((t) => t.startsWith(id)).length;
    expect(of(embedder.batches[0], 'alpha')).toBeGreaterThan(3); // document order: alpha first
    expect(of(embedder.batches[0], 'gamma')).toBe(0);

    await engine.document('gamma');
    embedder.release();
    await embedder.started(2);
    expect(embedder.batches[1].slice(0, 4).every((t) => t.startsWith('gamma'))).toBe(true);

    // The walrus chunk (the query's only sparse hit), then the rest of its document (the result).
    const r = await search(engine, { query: 'walrus', mode: 'sparse', k: 1, unit: 'document' });
    expect(r.hits.map((h) => h.citation?.source)).toEqual(['delta']);
    embedder.release();
    await embedder.started(3);
    embedder.releaseAll();
    await engine.whenReembedded();
    expect(engine.pendingVectors()).toBe(0);
    const seen = embedder.batches.flat();
    const third = embedder.batches[2];
    // Delta's chunks that document order had not reached yet: all in the third batch, walrus first.
    const delta = of(seen, 'delta') - of(embedder.batches[0], 'delta') - of(embedder.batches[1], 'delta');
    expect(delta).toBeGreaterThan(2);
    expect(third[0]).toContain('walrus');
    expect(third.slice(0, delta).every((t) => t.startsWith('delta'))).toBe(true);
    expect(new Set(seen).size).toBe(seen.length); // nothing embedded twice
    expect(seen).toHaveLength(engine.stats().chunks);
  });

  it('a document rewritten while its chunks were embedded ahead gets vectors of its new text only', async () => {
    const embedder = new GatedEmbedder();
    const engine = await openEngine(embedder);
    await engine.add([{ id: 'book', text: BOOK }], { chunk: true });
    await embedder.started(1);
    await search(engine, { query: 'narwhal', mode: 'sparse', k: 3 });
    embedder.release();
    await embedder.started(2); // the narwhal chunk is embedded ahead (batch 2 done once released)
    embedder.release();
    await embedder.started(3);
    await engine.add([{ id: 'book', text: 'The book was rewritten: it speaks of beluga whales now.' }], { chunk: true });
    embedder.releaseAll();
    await engine.whenReembedded();
    expect(engine.pendingVectors()).toBe(0);
    const dense = await search(engine, { query: 'narwhal', mode: 'dense', k: 3 });
    expect(dense.hits.every((h) => !String(h.text).includes('narwhal'))).toBe(true);
    const beluga = await search(engine, { query: 'beluga whales', mode: 'dense', k: 1 });
    expect(beluga.hits[0].text).toContain('beluga');
  });
});

import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import type { Reranker } from '../../src/engine/contracts.ts';
import { HashEmbedder , search } from '../support/engine.ts';

/** Stalls the first query embedding until released, so a write can commit while a retrieve runs. */
class StallingEmbedder extends HashEmbedder {
  private stalledOnce = false;
  private onStall!: (release: () => void) => void;
  /** Resolves, with its release, once the first query embedding has stalled. */
  readonly stalled = new Promise<() => void>((ok) => (this.onStall = ok));
  override async embed(texts: string[], kind?: 'query' | 'document'): Promise<Float32Array[]> {
    if (kind === 'query' && !this.stalledOnce) {
      this.stalledOnce = true;
      await new Promise<void>((ok) => this.onStall(ok));
    }
    return super.embed(texts);
  }
}

describe('retrieve under concurrent writes, and score bounds across stages', () => {
  it('§7.7.1 an unpinned retrieve overlapping an upsert answers from the new state instead of -32010', async () => {
    const embedder = new StallingEmbedder();
    const engine = new Engine({ store: new MemoryStore(), embedder });
    await engine.open();
    await engine.add([{ id: 'a', text: 'the white whale' }]);
    const pending = search(engine, { query: 'white whale', k: 3, mode: 'dense', includeText: true });
    const release = await embedder.stalled; // the retrieve has resolved its view and waits for the query vector
    await engine.add([{ id: 'a', text: 'the white whale, rewritten' }]);
    release(); // the retry embeds the query again, unstalled
    const result = await pending;
    expect(result.hits[0].text).toBe('the white whale, rewritten');
  });

  it('§7.7.1 a pinned version whose text was rewritten is still refused with -32010', async () => {
    const engine = new Engine({ store: new MemoryStore() });
    await engine.open();
    const v1 = (await engine.add([{ id: 'a', text: 'first albatross' }])).indexVersion;
    await engine.add([{ id: 'a', text: 'second albatross' }]);
    await expect(search(engine, { query: 'albatross', k: 1, indexVersion: v1, includeText: true })).rejects.toMatchObject({ code: -32010 });
  });

  it('§4.6 recency after a rerank with negative scores never yields -Infinity, and MMR on top still works', async () => {
    const negative: Reranker = { method: 'cross-encoder', identity: 'neg', score: async (_q, ps) => ps.map((_, i) => -3 - i) };
    const engine = new Engine({ store: new MemoryStore(), reranker: [negative], embedder: new HashEmbedder() });
    await engine.open();
    await engine.add(['1790-01-01', '1900-01-01', '2020-01-01'].map((date, i) => ({ id: `d${i}`, text: `union address ${i}`, meta: { date } })));
    const params = { query: 'union address', k: 3, rerank: { method: 'cross-encoder' as const, topN: 3 }, recency: { field: 'date', halfLifeDays: 30 } };
    const r = await search(engine, params);
    expect(r.hits.every((h) => Number.isFinite(h.score))).toBe(true);
    const scores = r.hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const withMmr = await search(engine, { ...params, mmr: { lambda: 0.5 } });
    expect(withMmr.hits).toHaveLength(3);
  });
});

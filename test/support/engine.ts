/** Shared fixtures for engine tests: an engine on a memory store, a toy embedder and reranker. */
import { Engine, type EngineOptions } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import type { Embedder, Reranker } from '../../src/engine/contracts.ts';

export async function makeEngine(opts: Partial<EngineOptions> = {}): Promise<{ engine: Engine; store: MemoryStore }> {
  const store = (opts.store as MemoryStore | undefined) ?? new MemoryStore();
  const engine = new Engine({ ...opts, store });
  await engine.open();
  return { engine, store };
}

/** Bag-of-words hashing embedder: cosine ≈ word overlap. Deterministic. */
export class HashEmbedder implements Embedder {
  readonly identity = 'test/hash-64';
  readonly dimension = 64;
  readonly normalized = true;
  calls = 0;
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    return texts.map((t) => {
      const v = new Float32Array(this.dimension);
      for (const w of t.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
        let h = 2166136261;
        for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
        v[(h >>> 0) % this.dimension] += 1;
      }
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  }
}

/** Scores a passage by how many query words it contains, minus a length penalty. */
export class CountReranker implements Reranker {
  readonly method = 'cross-encoder' as const;
  readonly identity = 'test/count';
  async score(query: string, passages: string[]): Promise<number[]> {
    const q = query.toLowerCase().split(/\W+/).filter(Boolean);
    return passages.map((p) => {
      const words = p.toLowerCase().split(/\W+/);
      return q.filter((w) => words.includes(w)).length - words.length / 1000;
    });
  }
}

export const ids = (r: { hits: { id: string | number }[] }): string[] => r.hits.map((h) => String(h.id));

/** `retrieve` through the server's `planRetrieve` (validation, gating, clamps), as every caller does. */
export { retrieveInProcess as search } from '../../src/server/retrieve-plan.ts';

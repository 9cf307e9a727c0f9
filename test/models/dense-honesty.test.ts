/**
 * Dense honesty (issue 9): a zero vector (a text the model cannot represent) matches nothing, a
 * chunk below the model's similarity floor is no match, so dense and hybrid search answer a query
 * with no semantic match with fewer than k hits (or none) instead of ten hits scoring 0.
 */
import { retrieveInProcess } from '../../src/server/retrieve-plan.ts';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';

/** A bag-of-known-words embedder: one axis per word; unknown words add nothing (like a static model's [UNK]). */
function wordsEmbedder(words: string[], minSimilarity?: number): Embedder {
  return {
    identity: 'words@test',
    dimension: words.length,
    normalized: true,
    minSimilarity,
    async embed(texts) {
      return texts.map((t) => {
        const v = new Float32Array(words.length);
        for (const w of t.toLowerCase().match(/[a-z]+/g) ?? []) {
          const i = words.indexOf(w);
          if (i >= 0) v[i] += 1;
        }
        const n = Math.hypot(...v);
        return n > 0 ? v.map((x) => x / n) : v;
      });
    },
  };
}

const WORDS = ['whale', 'sea', 'ship', 'president', 'congress', 'railroad'];
const DOCS = [
  { id: 'moby', text: 'The whale and the sea.' },
  { id: 'ship', text: 'A ship on the sea.' },
  { id: 'sotu', text: 'The president spoke to congress about the railroad.' },
  { id: 'none', text: 'Lorem ipsum dolor sit amet.' }, // no known word: a zero vector
];

async function engine(minSimilarity?: number): Promise<Engine> {
  const e = new Engine({ store: new MemoryStore(), embedder: wordsEmbedder(WORDS, minSimilarity) });
  await e.open();
  await e.add(DOCS);
  return e;
}

describe('dense honesty', () => {
  it('a query with no known word (zero vector) gets no dense hits, and hybrid only what sparse finds', async () => {
    const e = await engine();
    expect((await retrieveInProcess(e, { query: 'qwzx vbnm', mode: 'dense', k: 10 })).hits).toEqual([]);
    expect((await retrieveInProcess(e, { query: 'qwzx vbnm', mode: 'hybrid', k: 10 })).hits).toEqual([]);
    const ipsum = await retrieveInProcess(e, { query: 'lorem ipsum', mode: 'hybrid', k: 10 });
    expect(ipsum.hits.map((h) => h.id)).toEqual(['none']); // the sparse match only
  });

  it('a document with a zero vector never matches in dense search', async () => {
    const e = await engine();
    const res = await retrieveInProcess(e, { query: 'whale', mode: 'dense', k: 10 });
    expect(res.hits.map((h) => h.id)).not.toContain('none');
    // Orthogonal documents score 0 but are still vectors; without a floor they are returned.
    expect(res.hits.map((h) => h.id)).toEqual(['moby', 'ship', 'sotu']);
  });

  it('the similarity floor drops dense candidates below it', async () => {
    const e = await engine(0.3);
    const res = await retrieveInProcess(e, { query: 'whale', mode: 'dense', k: 10 });
    expect(res.hits.map((h) => h.id)).toEqual(['moby']); // cos 0.707; ship 0, sotu 0 are cut
    for (const h of res.hits) expect(h.scores?.dense ?? h.score).toBeGreaterThanOrEqual(0.3);
    const hybrid = await retrieveInProcess(e, { query: 'whale ship', mode: 'hybrid', k: 10 });
    expect(hybrid.hits.map((h) => h.id).sort()).toEqual(['moby', 'ship']);
  });
});

/**
 * BM25 with collection-wide statistics for lists from shards of one collection that each sent
 * `_meta["x-inpage-bm25"]` (src/protocol/bm25-stats.ts): N, the total length and each term's df
 * summed over the shards, every hit rescored with them — the score one index holding all the
 * shards' documents gives, to the bit: the same formula as src/engine/index/bm25.ts in the same
 * order, with its Float32 accumulator. Per-shard statistics on small shards drift apart (a rare
 * term is rarer on one shard than another), which is what ranks a sharded collection below one index.
 */
import type { Bm25Chunk, Bm25Stats } from '../../protocol/bm25-stats.ts';

const same = <T>(a: readonly T[], b: readonly T[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Whether the lists were scored by one BM25 over one analysed query, so their statistics add up. */
export function compatibleStats(stats: readonly (Bm25Stats | undefined)[]): stats is readonly Bm25Stats[] {
  const first = stats[0];
  if (!first) return false;
  return stats.every((s) => s !== undefined && s.k1 === first.k1 && s.b === first.b && same(s.terms, first.terms) && same(s.qtf, first.qtf));
}

/** Each list's hits scored with the statistics of all lists together (call `compatibleStats` first). */
export function globalBm25Scores(stats: readonly Bm25Stats[]): number[][] {
  const { k1, b, qtf } = stats[0];
  const N = stats.reduce((n, s) => n + s.n, 0);
  const avgdl = stats.reduce((l, s) => l + s.length, 0) / N || 1;
  const idf = qtf.map((w, t) => {
    const raw = stats.reduce((n, s) => n + s.df[t], 0);
    if (raw === 0 || !(w > 0)) return 0; // bm25.ts skips such terms
    const df = Math.min(raw, N);
    return Math.log(1 + (N - df + 0.5) / (df + 0.5)) * w;
  });
  const k1p1 = k1 + 1;
  const c0 = k1 * (1 - b);
  const c1 = (k1 * b) / avgdl;
  const score = ({ dl, tf }: Bm25Chunk): number => {
    let acc = 0;
    tf.forEach((f, t) => {
      if (f > 0 && idf[t] > 0) acc = Math.fround(acc + (idf[t] * f * k1p1) / (f + c0 + c1 * dl));
    });
    return acc;
  };
  // A document hit scores as its best chunk, as the engine's unit "document" does.
  return stats.map((s) => s.hits.map((h) => (h.chunks ?? []).reduce((best, c) => Math.max(best, score(c)), score(h))));
}

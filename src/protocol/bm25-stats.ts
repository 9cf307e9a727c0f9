/**
 * `x-inpage-bm25`, a `_meta` extension (§4.4) for shards of one collection: an aggregator sets it
 * to `true` on a federated `retrieve`; an engine of ours that served the query by plain BM25
 * answers, in the result's `_meta` under the same key, what the aggregator needs to score every
 * hit with collection-wide statistics (src/client/federation/global-bm25.ts) — the statistics of
 * its own index and, per hit, the query terms' frequencies and the length of the hit's chunk.
 * Engines that do not know the key ignore it, and their lists are fused as before.
 */
import { isObject } from './json.ts';

export const BM25_STATS_FIELD = 'x-inpage-bm25';

export interface Bm25Stats {
  /** Format version. */
  v: 1;
  k1: number;
  b: number;
  /** The analysed query terms, in the order the engine sums them, and their query weights (repeats). */
  terms: string[];
  qtf: number[];
  /** Live chunks in the engine's index and their summed (weighted) length. */
  n: number;
  length: number;
  /** Postings of each term (aligned with `terms`), as the engine counts document frequency. */
  df: number[];
  /**
   * Per hit of the result, in order: the chunk's length and each term's frequency in it; for unit
   * "document", the document's other chunks that hold a query term (its score is its best chunk's).
   */
  hits: (Bm25Chunk & { chunks?: Bm25Chunk[] })[];
}

export interface Bm25Chunk {
  dl: number;
  tf: number[];
}

const count = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const counts = (v: unknown, n: number): v is number[] => Array.isArray(v) && v.length === n && v.every(count);

/** The stats of a result's `_meta` when well formed and one entry per hit (`hitCount`); else undefined. */
export function readBm25Stats(meta: unknown, hitCount: number): Bm25Stats | undefined {
  const s = isObject(meta) ? meta[BM25_STATS_FIELD] : undefined;
  if (!isObject(s) || s.v !== 1 || !count(s.k1) || !count(s.b) || !count(s.n) || !count(s.length)) return undefined;
  const { terms, hits } = s;
  if (!Array.isArray(terms) || !terms.every((t) => typeof t === 'string')) return undefined;
  if (!counts(s.qtf, terms.length) || !counts(s.df, terms.length)) return undefined;
  if (!Array.isArray(hits) || hits.length !== hitCount) return undefined;
  const chunk = (h: unknown): boolean => isObject(h) && count(h.dl) && counts(h.tf, terms.length);
  if (!hits.every((h) => chunk(h) && (h.chunks === undefined || (Array.isArray(h.chunks) && h.chunks.every(chunk))))) return undefined;
  return s as unknown as Bm25Stats;
}

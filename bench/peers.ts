/**
 * The in-browser vector stores our dense search is compared with, driven on the same vectors and
 * queries inside the bench worker:
 *
 * - edgevec 0.9 (Rust → WASM, HNSW). Metric `l2` on our unit vectors, which ranks exactly as
 *   cosine: in 0.9.0 its `cosine` and `dot` metrics return the least similar vectors first
 *   (recall@10 = 0 on a 2k check), so they are not used. M = 12, ef_construction = 40: its
 *   defaults insert at < 100 vectors/s at 3k × 384 in Node, which would take hours at 100k.
 * - EntityDB 1.0 (`@babycommando/entity-db`): IndexedDB-backed; `queryManualVectors` reads every
 *   record with `getAll()` and ranks by cosine in JS, on every query.
 * - Orama 3 vector search (`mode: 'vector'`, similarity threshold 0 so it always returns k).
 */
import { create, insertMultiple, search, type AnyOrama } from '@orama/orama';
import { round, timeQueries } from './stats.ts';
import type { IngestStat, Latency } from './types.ts';

/**
 * edgevec's ef_search, fixed per index in 0.9 (its `efSearch` option applies to filtered search
 * only). HNSW's beam is max(ef_search, k), so with the smallest useful ef_search one index gives
 * the whole curve: asking for k = 10 … 640 and keeping the best 10 is searching with ef = k.
 */
export const EDGEVEC_EF_SEARCH = 10;
/** The beams (k asked for, best 10 kept) of edgevec's recall–latency curve. */
export const EDGEVEC_BEAMS = [10, 20, 40, 80, 160, 320, 640];

export interface PeerInput {
  size: number;
  dim: number;
  /** Row i = passage i (unit vectors). */
  vectors: Float32Array;
  queries: Float32Array[];
  /** Exact top-10 passage indices of the first `truth.length` queries. */
  truth: Int32Array[];
  warmup: number;
  k: number;
  log: (line: string) => void;
}

/** Mean overlap of each answer (passage indices) with the exact top 10. */
export function recallAt10(answers: number[][], truth: Int32Array[]): number {
  let hit = 0;
  answers.forEach((a, i) => {
    const want = new Set(truth[i]);
    hit += a.slice(0, 10).filter((x) => want.has(x)).length;
  });
  return round(hit / (10 * Math.max(1, answers.length)), 4);
}

/** Times `run` over the queries (by index), then measures recall on the ones with ground truth. */
async function measure(p: PeerInput, run: (q: number) => number[] | Promise<number[]>, count = p.queries.length): Promise<Latency> {
  const idx = Array.from({ length: count }, (_, i) => String(i));
  const lat = await timeQueries(idx, p.warmup, async (i) => (await run(Number(i))).length);
  const answers: number[][] = [];
  for (let i = 0; i < Math.min(count, p.truth.length); i++) answers.push(await run(i));
  return { ...lat, recall10: recallAt10(answers, p.truth) };
}

export async function runEdgevec(p: PeerInput): Promise<{ ingest: IngestStat; latency: Record<string, Latency> }> {
  const mod = await import('edgevec');
  await mod.default();
  const cfg = new mod.EdgeVecConfig(p.dim);
  cfg.metric = 'l2';
  cfg.m = 12;
  cfg.m0 = 24;
  cfg.ef_construction = 40;
  cfg.ef_search = EDGEVEC_EF_SEARCH; // fixed per index in 0.9 (no per-query ef for float vectors)
  const db = new mod.EdgeVec(cfg);
  const t0 = performance.now();
  const step = 5000;
  for (let at = 0; at < p.size; at += step) {
    const n = Math.min(step, p.size - at);
    db.insertBatchFlat(p.vectors.subarray(at * p.dim, (at + n) * p.dim), n);
    p.log(`  edgevec: ${at + n}/${p.size} inserted (${round(((at + n) / (performance.now() - t0)) * 1000, 0)}/s)`);
  }
  const ms = performance.now() - t0;
  const ingest = { chunks: p.size, ms: round(ms, 1), perSec: round((p.size / ms) * 1000, 0) };
  const latency: Record<string, Latency> = {};
  // Ids are assigned from 1 in insertion order.
  const ids = (r: { id: number }[]) => r.map((h) => h.id - 1);
  // HNSW's beam is max(ef_search, k): asking for more than 10 and keeping the best 10 trades
  // speed for recall (0.9 fixes ef_search per index for float vectors).
  for (const wide of EDGEVEC_BEAMS) {
    latency[wide === 10 ? 'dense' : `dense (k=${wide}, best 10 kept)`] = await measure(p, (q) => ids(db.search(p.queries[q], wide)).slice(0, p.k));
  }
  return { ingest, latency };
}

export async function runEntityDb(p: PeerInput, queries: number): Promise<{ ingest: IngestStat; latency: Record<string, Latency> }> {
  const { EntityDB } = await import('@babycommando/entity-db');
  await new Promise<void>((ok, fail) => {
    const r = indexedDB.deleteDatabase('EntityDB');
    r.onsuccess = () => ok();
    r.onerror = () => fail(r.error);
  });
  const db = new EntityDB({ vectorPath: 'vector' });
  const t0 = performance.now();
  // One insert (one transaction) per vector, as its API does; a few in flight at once.
  const inflight = 64;
  for (let at = 0; at < p.size; at += inflight) {
    const batch = [];
    for (let i = at; i < Math.min(p.size, at + inflight); i++) batch.push(db.insertManualVectors({ vector: p.vectors.slice(i * p.dim, (i + 1) * p.dim), pid: i }));
    await Promise.all(batch);
    if (at % 20000 === 0) p.log(`  entitydb: ${at}/${p.size} inserted`);
  }
  const ms = performance.now() - t0;
  const ingest = { chunks: p.size, ms: round(ms, 1), perSec: round((p.size / ms) * 1000, 0) };
  const run = async (q: number): Promise<number[]> =>
    ((await db.queryManualVectors(p.queries[q], { limit: p.k })) as { pid: number }[]).map((r) => r.pid);
  return { ingest, latency: { dense: await measure(p, run, queries) } };
}

/** Orama with text and vectors; its lexical, vector and hybrid modes. */
export async function buildOramaVectors(texts: { id: string; text: string }[], p: PeerInput): Promise<{ db: AnyOrama; ingest: IngestStat }> {
  // Orama's schema check wants plain arrays; converting them is not counted.
  const docs = texts.map((t, i) => ({ id: t.id, text: t.text, pid: i, embedding: Array.from(p.vectors.subarray(i * p.dim, (i + 1) * p.dim)) }));
  const t0 = performance.now();
  const db = create({ schema: { id: 'string', text: 'string', pid: 'number', embedding: `vector[${p.dim}]` } as never });
  await insertMultiple(db, docs as never, 1000);
  const ms = performance.now() - t0;
  return { db: db as AnyOrama, ingest: { chunks: texts.length, ms: round(ms, 1), perSec: round((texts.length / ms) * 1000, 0) } };
}

export async function oramaVector(db: AnyOrama, p: PeerInput): Promise<Latency> {
  const run = async (q: number): Promise<number[]> => {
    const r = (await search(db, { mode: 'vector', vector: { value: p.queries[q], property: 'embedding' }, similarity: 0, limit: p.k } as never)) as {
      hits: { document: { pid: number } }[];
    };
    return r.hits.map((h) => h.document.pid);
  };
  return measure(p, run);
}

/**
 * Appendix F's "conformance-plus" harness: one retrieval configuration run over a collection's
 * judged queries through any engine's `retrieve` (an RcpClient, an in-process front door), scored
 * per query. The page and `npm run eval` both run this, so the same engine gives the same numbers.
 */
import type { RetrieveParams, RetrieveResult } from '../protocol/types.ts';
import type { BeirCollection } from './beir.ts';
import { judgedQueries } from './beir.ts';
import { meanScores, scoreQuery, type QueryScores } from './metrics.ts';

/** One configuration of an engine's retrieve. */
export interface RunConfig {
  /** e.g. "hybrid:weighted:0.4"; shown in tables. */
  label: string;
  mode?: 'sparse' | 'dense' | 'hybrid';
  fusion?: 'rrf' | 'weighted' | 'convex';
  /** hybrid: `weighted` dense weight (sparse gets 1 − w), or `convex` alpha. */
  weight?: number;
  rerank?: { method: 'colbert' | 'cross-encoder'; topN: number };
  unit?: 'chunk' | 'document';
}

/** Hits asked for per query: enough for Recall@100 (with a rerank, its topN bounds it: topN ≥ k, §7.7). */
export const QUERY_K = 100;

/** The retrieve params of `cfg` for one query. */
export function retrieveParams(query: string, cfg: RunConfig): RetrieveParams {
  const k = cfg.rerank ? Math.min(QUERY_K, cfg.rerank.topN) : QUERY_K;
  const params: RetrieveParams = { query, k, includeText: false };
  if (cfg.mode) params.mode = cfg.mode;
  if (cfg.fusion) {
    params.fusion = { method: cfg.fusion };
    if (cfg.weight !== undefined) params.fusion = cfg.fusion === 'convex' ? { method: 'convex', alpha: cfg.weight } : { method: cfg.fusion, weights: { dense: cfg.weight, sparse: 1 - cfg.weight } };
  }
  if (cfg.rerank) params.rerank = { method: cfg.rerank.method, topN: cfg.rerank.topN };
  if (cfg.unit) params.unit = cfg.unit;
  return params;
}

/** Document ids of a result in rank order: a passage counts for its document (`citation.source`). */
export const rankedDocuments = (r: RetrieveResult): string[] => r.hits.map((h) => String(h.citation?.source ?? h.id));

export interface QueryRun extends QueryScores {
  id: string;
  query: string;
  /** The first 10 documents returned. */
  top: string[];
}

export interface ConfigRun {
  engine: string;
  config: RunConfig;
  queries: QueryRun[];
  mean: QueryScores;
  /** Mean time per query, ms (client side, wall clock). */
  queryMs: number;
  /** The queries that failed (their scores count as 0), with the first error. */
  failed: number;
  error?: string;
}

export type Retrieve = (params: RetrieveParams, signal?: AbortSignal) => Promise<RetrieveResult>;

export interface RunOptions {
  signal?: AbortSignal;
  onQuery?(done: number, total: number): void;
}

/** Runs `cfg` over every judged query; a failed query scores 0 and is counted, never thrown. */
export async function runConfig(engine: string, retrieve: Retrieve, c: BeirCollection, cfg: RunConfig, o: RunOptions = {}): Promise<ConfigRun> {
  const queries = judgedQueries(c);
  const out: QueryRun[] = [];
  let failed = 0;
  let error: string | undefined;
  let ms = 0;
  for (const [i, q] of queries.entries()) {
    if (o.signal?.aborted) throw o.signal.reason ?? new Error('cancelled');
    const rel = c.qrels.get(q.id)!;
    const t0 = performance.now();
    let ranked: string[] = [];
    try {
      ranked = rankedDocuments(await retrieve(retrieveParams(q.text, cfg), o.signal));
    } catch (e) {
      if (o.signal?.aborted) throw e;
      failed++;
      error ??= e instanceof Error ? e.message : String(e);
    }
    ms += performance.now() - t0;
    out.push({ id: q.id, query: q.text, top: ranked.slice(0, 10), ...scoreQuery(ranked, rel) });
    o.onQuery?.(i + 1, queries.length);
  }
  return { engine, config: cfg, queries: out, mean: meanScores(out), queryMs: ms / Math.max(1, out.length), failed, ...(error ? { error } : {}) };
}

/** Per-query differences of two runs over the same queries, largest nDCG@10 change first. */
export function queryDiffs(a: ConfigRun, b: ConfigRun): { id: string; query: string; a: QueryRun; b: QueryRun; delta: number }[] {
  const byId = new Map(b.queries.map((q) => [q.id, q]));
  return a.queries
    .flatMap((qa) => {
      const qb = byId.get(qa.id);
      return qb ? [{ id: qa.id, query: qa.query, a: qa, b: qb, delta: qb.ndcg10 - qa.ndcg10 }] : [];
    })
    .sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta) || (x.id < y.id ? -1 : 1));
}

/** Parses `mode[:fusion[:weight]]` lists ("sparse,hybrid:rrf,hybrid:weighted:0.4"). */
export function parseRunConfigs(list: string): RunConfig[] {
  return list.split(',').filter(Boolean).map((label) => {
    const [mode, fusion, w] = label.split(':');
    const cfg: RunConfig = { label };
    if (mode) cfg.mode = mode as RunConfig['mode'];
    if (fusion) cfg.fusion = fusion as RunConfig['fusion'];
    if (w !== undefined && w !== '') cfg.weight = Number(w);
    return cfg;
  });
}

/**
 * Information-retrieval metrics over one ranked list, as shared/eval/bm25_eval.py computes them
 * (pytrec_eval's `ndcg_cut`, `recall`, `recip_rank` at a depth): pure functions with no I/O, for the
 * evaluation scripts and the page alike (BEIR files are read by beir.ts). A judgment's gain is its qrel score; a gain ≤ 0 counts as not relevant.
 */

/** One query's judgments: document id → gain. */
export type Judgments = ReadonlyMap<string, number>;
/** Every query's judgments: query id → Judgments. */
export type Qrels = ReadonlyMap<string, Judgments>;

const gain = (rel: Judgments, id: string): number => Math.max(0, rel.get(id) ?? 0);

/** Whether a query has at least one relevant document (only those are averaged). */
export function hasRelevant(rel: Judgments | undefined): rel is Judgments {
  return rel !== undefined && [...rel.values()].some((g) => g > 0);
}

/** nDCG@k with linear gain: DCG of the first k ranked ids over the DCG of the ideal order. */
export function ndcgAt(k: number, ranked: readonly string[], rel: Judgments): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => (dcg += gain(rel, id) / Math.log2(i + 2)));
  const ideal = [...rel.values()].filter((g) => g > 0).sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

/** Recall@k: the share of the relevant documents among the first k ranked ids. */
export function recallAt(k: number, ranked: readonly string[], rel: Judgments): number {
  const relevant = [...rel.values()].filter((g) => g > 0).length;
  if (relevant === 0) return 0;
  return ranked.slice(0, k).filter((id) => gain(rel, id) > 0).length / relevant;
}

/** MRR@k: 1 / the rank of the first relevant id among the first k, 0 when there is none. */
export function mrrAt(k: number, ranked: readonly string[], rel: Judgments): number {
  const first = ranked.slice(0, k).findIndex((id) => gain(rel, id) > 0);
  return first >= 0 ? 1 / (first + 1) : 0;
}

/** The figures the quality harness (harness.ts) reports for one query (Appendix F). */
export interface QueryScores {
  ndcg10: number;
  recall50: number;
  recall100: number;
  mrr10: number;
}

export const METRICS = ['ndcg10', 'recall50', 'recall100', 'mrr10'] as const satisfies readonly (keyof QueryScores)[];

export function scoreQuery(ranked: readonly string[], rel: Judgments): QueryScores {
  return { ndcg10: ndcgAt(10, ranked, rel), recall50: recallAt(50, ranked, rel), recall100: recallAt(100, ranked, rel), mrr10: mrrAt(10, ranked, rel) };
}

export function meanScores(rows: readonly QueryScores[]): QueryScores {
  const n = rows.length || 1;
  const mean = (k: keyof QueryScores) => rows.reduce((s, r) => s + r[k], 0) / n;
  return { ndcg10: mean('ndcg10'), recall50: mean('recall50'), recall100: mean('recall100'), mrr10: mean('mrr10') };
}

/**
 * IR metrics over one ranked list of document ids against graded judgements (Appendix F), as
 * shared/eval/bm25_eval.py computes them: nDCG@k with linear gain and log2(rank + 1) discount
 * (ideal DCG from the k best grades), Recall@k over the relevant (grade > 0) documents, MRR@k.
 * Pure functions; the harness averages them over the judged queries.
 */

export function ndcgAt(ranked: readonly string[], rel: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) dcg += (rel.get(ranked[i]) ?? 0) / Math.log2(i + 2);
  const gains = [...rel.values()].filter((g) => g > 0).sort((a, b) => b - a);
  let idcg = 0;
  gains.slice(0, k).forEach((g, i) => (idcg += g / Math.log2(i + 2)));
  return idcg > 0 ? dcg / idcg : 0;
}

export function recallAt(ranked: readonly string[], rel: ReadonlyMap<string, number>, k: number): number {
  const relevant = [...rel.values()].filter((g) => g > 0).length;
  if (relevant === 0) return 0;
  return ranked.slice(0, k).filter((d) => (rel.get(d) ?? 0) > 0).length / relevant;
}

export function mrrAt(ranked: readonly string[], rel: ReadonlyMap<string, number>, k: number): number {
  const first = ranked.slice(0, k).findIndex((d) => (rel.get(d) ?? 0) > 0);
  return first >= 0 ? 1 / (first + 1) : 0;
}

/** The figures the harness reports for one query. */
export interface QueryScores {
  ndcg10: number;
  recall50: number;
  recall100: number;
  mrr10: number;
}

export const METRICS = ['ndcg10', 'recall50', 'recall100', 'mrr10'] as const satisfies readonly (keyof QueryScores)[];

export function scoreQuery(ranked: readonly string[], rel: ReadonlyMap<string, number>): QueryScores {
  return { ndcg10: ndcgAt(ranked, rel, 10), recall50: recallAt(ranked, rel, 50), recall100: recallAt(ranked, rel, 100), mrr10: mrrAt(ranked, rel, 10) };
}

export function meanScores(rows: readonly QueryScores[]): QueryScores {
  const n = rows.length || 1;
  const sum = (k: keyof QueryScores) => rows.reduce((s, r) => s + r[k], 0) / n;
  return { ndcg10: sum('ndcg10'), recall50: sum('recall50'), recall100: sum('recall100'), mrr10: sum('mrr10') };
}

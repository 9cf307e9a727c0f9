/**
 * Information-retrieval metrics over one ranked list, as shared/eval/bm25_eval.py computes them
 * (pytrec_eval's `ndcg_cut`, `recall`, `recip_rank` at a depth): pure functions with no I/O, for the
 * evaluation scripts (scripts/eval.ts and friends read BEIR files with scripts/lib/beir.ts) and the
 * page alike. A judgment's gain is its qrel score; a gain ≤ 0 counts as not relevant.
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

/** Parses a BEIR qrels TSV (`query-id corpus-id score`, a header line first). */
export function parseQrels(tsv: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const line of tsv.split('\n').slice(1)) {
    const [q, d, s] = line.trim().split('\t');
    if (!q || !d) continue;
    if (!out.has(q)) out.set(q, new Map());
    out.get(q)!.set(d, Number(s));
  }
  return out;
}

/** Parses JSON Lines (BEIR's corpus.jsonl and queries.jsonl), skipping blank lines. */
export function parseJsonl<T = Record<string, unknown>>(text: string): T[] {
  return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as T);
}

/**
 * A hit's scores in plain words. Each number is named after the stage that produced it, so its
 * meaning never depends on the fusion method: keyword score (BM25), closeness in meaning (dense
 * cosine), the reranker's score and what it changed. The fused score only orders the list and is
 * not shown as a measure of anything. Pure (no DOM).
 */
import type { Hit } from '../protocol/types.ts';

/** Each stage score's name for people, and what its number means. */
export const STAGE_LABELS: Readonly<Record<string, string>> = Object.freeze({
  sparse: 'keywords (BM25)',
  dense: 'meaning (cosine)',
  rerank: 'reranker',
});

export interface ExplainContext {
  /** The words the engine matched in this passage (its own analysis, `x-inpage-matches`). */
  terms: readonly string[];
  /** 1-based place of the hit in the shown results. */
  rank: number;
  /** 1-based place among the shown results before reranking (from `scores.recall`), when reranked. */
  rankBeforeRerank?: number;
  /** The rerank method the request asked for. */
  rerankMethod?: string;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const quoted = (ws: readonly string[]) => ws.map((w) => `“${w}”`).join(', ');

/** Plain-word sentences about why `hit` is here. */
export function explainHit(hit: Hit, ctx: ExplainContext): string[] {
  const s = hit.scores ?? {};
  const sparse = num(s.sparse);
  const dense = num(s.dense);
  const rerank = num(s.rerank);
  const out: string[] = [];
  if (ctx.terms.length > 0) {
    out.push(`Matched the word${ctx.terms.length > 1 ? 's' : ''} ${quoted(ctx.terms)}${sparse !== undefined ? ` — keyword score ${sparse.toFixed(2)} (BM25: higher when rarer words match more often)` : ''}.`);
  } else if (sparse !== undefined) {
    out.push(`Keyword score ${sparse.toFixed(2)} (BM25: higher when rarer words match more often).`);
  } else if (dense !== undefined) {
    out.push('None of your words appear here: it was found by meaning alone.');
  }
  if (dense !== undefined) out.push(`Closeness in meaning: cosine ${dense.toFixed(2)} (1 = same meaning, 0 = unrelated).`);
  if (rerank !== undefined) {
    const who = ctx.rerankMethod ? `The reranker (${ctx.rerankMethod})` : 'The reranker';
    let moved = '';
    if (ctx.rankBeforeRerank !== undefined) {
      const before = ctx.rankBeforeRerank;
      moved =
        before === ctx.rank
          ? ` and kept it at #${ctx.rank} of these results`
          : ` and moved it ${before > ctx.rank ? 'up' : 'down'} from #${before} to #${ctx.rank} of these results`;
    }
    out.push(`${who} read your query and this passage together, scored it ${rerank.toFixed(2)}${moved}.`);
  }
  if (num(s.relevance) !== undefined) out.push('Diversifying (MMR) placed it lower, because passages above say something similar.');
  return out;
}

/** Each hit's 1-based place before reranking among `hits` (by `scores.recall`); undefined for hits not reranked. */
export function ranksBeforeRerank(hits: readonly Hit[]): (number | undefined)[] {
  const reranked = hits.map((h, i) => ({ i, r: num(h.scores?.recall) })).filter((x): x is { i: number; r: number } => x.r !== undefined);
  reranked.sort((a, b) => b.r - a.r || a.i - b.i);
  const out: (number | undefined)[] = hits.map(() => undefined);
  reranked.forEach((x, place) => (out[x.i] = place + 1));
  return out;
}

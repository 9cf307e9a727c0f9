/**
 * The last retrieve stage for an aggregator that asked for `_meta["x-inpage-bm25"]`
 * (src/protocol/bm25-stats.ts): the BM25 statistics of the page's hits, when their scores are
 * plain BM25 of one query text (sparse, one variant, nothing after recall rescoring or dropping
 * by score) over an index held in memory. Otherwise nothing is added, and the aggregator fuses
 * this answer as any other.
 */
import { BM25_STATS_FIELD } from '../../protocol/bm25-stats.ts';
import type { RetrieveResult } from '../../protocol/types.ts';
import { bm25Stats } from '../index/bm25-stats.ts';
import type { Run } from './retrieve-run.ts';

/** Whether the page's scores are BM25 of `run.variants[0]` exactly as recall computed them. */
function plainBm25(run: Run): boolean {
  const { params, plan } = run;
  return run.mode === 'sparse' && run.variants.length === 1 && !params.recency && !plan.rerank && !params.mmr && params.minScore === undefined && !run.deps.residency;
}

export function addBm25Stats(run: Run, result: RetrieveResult): RetrieveResult {
  if (run.params._meta?.[BM25_STATS_FIELD] !== true || !plainBm25(run)) return result;
  const { analyzer, bm25 } = run.deps;
  const stats = bm25Stats(run.view, bm25.params, analyzer.queryTerms(run.variants[0]), run.page, run.unit);
  return { ...result, _meta: { ...result._meta, [BM25_STATS_FIELD]: stats } };
}

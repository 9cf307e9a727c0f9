/**
 * The retrieve stages after recall that reorder or cut the candidates (src/engine/query/retrieve.ts):
 * recency, the plan's reranker, `minScore` and MMR.
 */
import { checkAborted } from '../../util/abort.ts';
import { candidateVector, cosine, denseModel } from '../index/dense.ts';
import { compareCandidates, type Candidate } from '../index/view.ts';
import { loadTexts } from './hits.ts';
import { jaccard, mmrOrder } from './mmr.ts';
import { resident, type Run } from './retrieve-run.ts';
import { applyRecency } from './score-order.ts';

/** MMR reorders at most this many leading candidates (O(n²) similarities). */
const MMR_POOL = 200;

/** σ(x) = 1 / (1 + e^−x): monotone, in [0, 1]. */
const logistic = (x: number): number => 1 / (1 + Math.exp(-x));

/** Recency multiplier relative to the newest dated candidate, mapped around the stage floor. */
export function recency(run: Run, cands: Candidate[], floor: number | undefined): void {
  const { field, halfLifeDays } = run.params.recency!;
  applyRecency(cands, field, halfLifeDays, floor, run.notes);
}

/** The plan's reranker rescores the leading `topN`; the rest follow in recall order up to `k`. */
export async function rerank(run: Run): Promise<void> {
  if (!run.plan.rerank) return;
  const { reranker, topN } = run.plan.rerank;
  const { signal } = run.ctx;
  run.ctx.onStage?.('rerank', 0.5);
  const pool = run.list.slice(0, topN);
  await resident(run, pool);
  const texts = await loadTexts(run.reader, pool, 'chunk');
  checkAborted(signal);
  const passages = pool.map((c, i) => (c.seg.lex.contexts[c.local] ? `${c.seg.lex.contexts[c.local]}\n${texts[i]}` : texts[i]));
  const scores = await reranker.score(run.variants[0], passages, signal);
  checkAborted(signal);
  pool.forEach((c, i) => {
    c.scores.recall = c.score; // the score it was ranked by before reranking, so a viewer can show what rerank changed
    c.scores.rerank = scores[i];
    c.score = scores[i];
  });
  pool.sort(compareCandidates);
  // The raw reranker score (a logit, a MaxSim sum) has no floor; its logistic does (0), so the
  // advertised scoreFloor stays true with a reranker (§6.1, §16.3). Mapped after sorting on the
  // raw value, so saturation near 1 can only tie neighbours, never reorder them.
  for (const c of pool) c.score = logistic(c.score);
  if (run.params.recency) recency(run, pool, 0);
  run.reranked = pool.length;
  const { k } = run.plan;
  run.list = pool.length < k ? [...pool, ...run.list.slice(pool.length, k)] : pool;
}

/** MMR over the leading candidates: cosine of their vectors when all have one, else term Jaccard. */
export async function mmr(run: Run): Promise<void> {
  const { params, deps } = run;
  if (!params.mmr || run.list.length <= 1) return;
  run.ctx.onStage?.('mmr', 0.8);
  const pool = run.list.slice(0, MMR_POOL);
  await resident(run, pool);
  const model = deps.embedder && denseModel(deps.embedder);
  const vecs = model ? pool.map((c) => candidateVector(c, model)) : [];
  let sim: (i: number, j: number) => number;
  if (model && vecs.every((v) => v !== undefined)) {
    sim = (i, j) => cosine(vecs[i]!, vecs[j]!);
  } else {
    const texts = await loadTexts(run.reader, pool, 'chunk');
    const sets = texts.map((t) => new Set(deps.analyzer.indexTerms(t)));
    sim = (i, j) => jaccard(sets[i], sets[j]);
  }
  checkAborted(run.ctx.signal);
  const order = mmrOrder(pool.map((c) => c.score), params.mmr.lambda, sim);
  run.list = [...order.map((i) => pool[i]), ...run.list.slice(pool.length)];
}

/** §7.7 `minScore`: hits scoring below it are dropped (after rerank, on the final scale). */
export function minScore(run: Run): void {
  const min = run.params.minScore;
  if (min !== undefined) run.list = run.list.filter((c) => c.score >= min);
}

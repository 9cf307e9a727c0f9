import type { Reranker } from '../contracts.ts';

/**
 * The one rule for which reranker serves a request (retrieve's rerank stage and the `rerank`
 * method alike): those of `method` — the first reranker's method when none is named, since the
 * list is in preference order — and among them the one whose identity is `model` when named and
 * present, else the first. Undefined when no reranker has that method.
 */
export function pickReranker(rerankers: readonly Reranker[], method?: string, model?: string): Reranker | undefined {
  const wanted = method ?? rerankers[0]?.method;
  const same = rerankers.filter((r) => r.method === wanted);
  return (model !== undefined ? same.find((r) => r.identity === model) : undefined) ?? same[0];
}

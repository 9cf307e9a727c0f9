import type { Reranker } from '../engine/contracts.ts';
import { pickReranker } from '../engine/query/pick-reranker.ts';
import type { RetrievePlan } from '../engine/query/plan.ts';
import { clampFunnel } from '../protocol/retrieve-gating.ts';
import type { Capabilities } from '../protocol/types.ts';
import { validateRetrieve } from '../protocol/validate.ts';

/**
 * The front door of `retrieve`: validates and gates raw params against the capabilities the
 * session advertised (§7.7, §8), applies the §3.3 defaults and clamps to the advertised bounds,
 * and picks the reranker — once, so what is advertised is what is enforced. The engine carries
 * out the plan as given. Node callers (scripts/eval.ts, tests) come through here too.
 */
export function planRetrieve(raw: unknown, caps: Capabilities, rerankers: readonly Reranker[]): RetrievePlan {
  const { params, notes } = validateRetrieve(raw, caps);
  const funnel = clampFunnel(params, caps);
  const reranker = params.rerank ? pickReranker(rerankers, params.rerank.method, params.rerank.model) : undefined;
  return {
    params,
    k: funnel.k,
    candidateK: funnel.candidateK,
    ...(reranker && funnel.topN !== undefined ? { rerank: { reranker, topN: funnel.topN } } : {}),
    // §3.3: no mode means the session's advertised default (sparse for a session started after the
    // model failed); the engine serves it (sparse while chunks still wait for vectors).
    ...(caps.retrieve?.defaultMode !== undefined ? { defaultMode: caps.retrieve.defaultMode } : {}),
    notes: [...notes, ...funnel.notes],
  };
}

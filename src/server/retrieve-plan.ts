import type { Reranker } from '../engine/contracts.ts';
import type { RetrievePlan } from '../engine/query/plan.ts';
import { chooseReranker } from '../engine/serving.ts';
import { clampFunnel } from '../protocol/retrieve-gating.ts';
import type { Capabilities } from '../protocol/types.ts';
import { validateRetrieve } from '../protocol/validate.ts';

/**
 * The front door of `retrieve`: validates and gates raw params against the capabilities the
 * session advertised (§7.7, §8), applies the §3.3 defaults and clamps to the advertised bounds,
 * and resolves the mode and the reranker (the policy is src/engine/serving.ts) — once, so what is
 * advertised is what is enforced. The engine carries out the plan as given. Node callers
 * (scripts/eval.ts, tests) come through here too.
 */
export function planRetrieve(raw: unknown, caps: Capabilities, rerankers: readonly Reranker[]): RetrievePlan {
  const { params, notes } = validateRetrieve(raw, caps);
  const funnel = clampFunnel(params, caps);
  const rr = params.rerank;
  const reranker = rr ? chooseReranker(rerankers, rr.method, rr.model, 'rerank.method') : undefined;
  return {
    params,
    k: funnel.k,
    candidateK: funnel.candidateK,
    ...(reranker && funnel.topN !== undefined ? { rerank: { reranker, topN: funnel.topN } } : {}),
    // §3.3: no mode means the session's advertised default (sparse for a session started after the
    // model failed, a server without an encoder advertises no other).
    mode: params.mode ?? caps.retrieve?.defaultMode ?? 'sparse',
    modeDefaulted: params.mode === undefined,
    notes: [...notes, ...funnel.notes],
  };
}

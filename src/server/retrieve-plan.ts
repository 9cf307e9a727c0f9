/**
 * The way into `retrieve`, for RCP and for Node callers alike: `planRetrieve` turns raw params into
 * the plan the engine carries out; `retrieveInProcess` is the same path for callers in the engine's
 * process (scripts/eval.ts, the bench worker, tests).
 */
import type { Reranker } from '../engine/contracts.ts';
import type { RetrievePlan } from '../engine/query/plan.ts';
import { chooseReranker } from '../engine/serving.ts';
import { clampFunnel } from '../protocol/retrieve-gating.ts';
import type { Capabilities, RetrieveResult } from '../protocol/types.ts';
import { validateRetrieve } from '../protocol/validate.ts';
import type { ServedEngine } from './backend.ts';
import { advertisedCapabilities, modelCapabilities } from './capabilities.ts';

/**
 * Validates and gates raw `retrieve` params against the capabilities the
 * session advertised (§7.7, §8), applies the §3.3 defaults and clamps to the advertised bounds,
 * and resolves the mode and the reranker (the policy is src/engine/serving.ts) — once, so what is
 * advertised is what is enforced. The engine carries out the plan as given.
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

/** What an in-process caller holds: the engine with its models. */
export type InProcessEngine = Pick<ServedEngine, 'embedder' | 'rerankers' | 'capabilities' | 'retrieve'>;

/** The capabilities a worker would advertise for this engine and its models (no session, no extensions). */
export function inProcessCapabilities(engine: InProcessEngine): Capabilities {
  return advertisedCapabilities({
    engine: engine.capabilities(),
    models: modelCapabilities({ embedder: engine.embedder, rerankers: engine.rerankers }),
  });
}

/**
 * `retrieve` for callers in the same process as the engine: the same validation, gating, clamps,
 * mode and reranker as over RCP, then the engine. Invalid or unsupported params reject with the
 * RcpError a client would receive.
 */
export function retrieveInProcess(engine: InProcessEngine, params: unknown, ctx?: { signal?: AbortSignal }): Promise<RetrieveResult> {
  try {
    return engine.retrieve(planRetrieve(params, inProcessCapabilities(engine), engine.rerankers), ctx);
  } catch (e) {
    return Promise.reject(e);
  }
}

import type { Embedder, Reranker } from '../engine/contracts.ts';
import type { RetrievePlan } from '../engine/query/plan.ts';
import type { Capabilities, RetrieveResult } from '../protocol/types.ts';
import type { EngineCapabilities } from '../engine/capabilities.ts';
import { advertisedCapabilities, modelCapabilities } from './capabilities.ts';
import { planRetrieve } from './retrieve-plan.ts';

/** What an in-process caller holds: src/engine's Engine fits. */
export interface FrontDoorEngine {
  readonly embedder?: Embedder;
  readonly rerankers: readonly Reranker[];
  capabilities(): EngineCapabilities;
  retrieve(plan: RetrievePlan, ctx?: { signal?: AbortSignal }): Promise<RetrieveResult>;
}

/** The capabilities a worker would advertise for this engine and its models (no session, no extensions). */
export function inProcessCapabilities(engine: FrontDoorEngine): Capabilities {
  return advertisedCapabilities({
    engine: engine.capabilities(),
    models: modelCapabilities({ embedder: engine.embedder, rerankers: engine.rerankers }),
  });
}

/**
 * `retrieve` for callers in the same process as the engine (scripts/eval.ts, the bench worker,
 * tests): the same validation, gating, clamps and reranker choice as over RCP, then the engine.
 * Invalid or unsupported params reject with the RcpError a client would receive.
 */
export function retrieveInProcess(engine: FrontDoorEngine, params: unknown, ctx?: { signal?: AbortSignal }): Promise<RetrieveResult> {
  try {
    return engine.retrieve(planRetrieve(params, inProcessCapabilities(engine), engine.rerankers), ctx);
  } catch (e) {
    return Promise.reject(e);
  }
}

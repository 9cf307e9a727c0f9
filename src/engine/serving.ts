/**
 * How a retrieve is served: the one policy. The engine's capabilities (capabilities.ts), the set a
 * session gets after the dense model failed (src/server/capabilities.ts `withoutDenseModel`), the
 * front door (src/server/retrieve-plan.ts `planRetrieve`) and recall all read it from here.
 *
 * - Modes: sparse always; dense and hybrid only with a dense encoder.
 * - Default mode (§3.3, a request that names none): the configured one (`DEFAULT_MODE`, measured)
 *   when it is served, else sparse. `planRetrieve` applies the session's advertised default once;
 *   the engine only serves such a request sparse while dense is not ready (the model still loads,
 *   chunks still wait for vectors), and says so in `usage.notes`.
 * - Score floor: each recall stage's theoretical minimum (§6.1); the advertised `scoreFloor` is the
 *   lowest over the modes served.
 * - Reranker: those of the requested method (the first reranker's when none is named, the list being
 *   in preference order), the named model among them when present; none with that method is -32005.
 */
import { optionUnsupported } from '../protocol/errors.ts';
import { echo } from '../protocol/limits.ts';
import type { Capabilities, RetrieveMode } from '../protocol/types.ts';
import { DEFAULT_MODE } from './config.ts';
import type { Reranker } from './contracts.ts';

/**
 * Theoretical minimum score per recall stage (§6.1): BM25 ≥ 0, cosine ≥ −1, every fusion ≥ 0.
 * Later stages keep it: a reranked score is the logistic of the reranker's (≥ 0), recency decays
 * toward the floor and MMR only lowers a score to the one above it.
 */
export const STAGE_FLOOR = Object.freeze({ sparse: 0, dense: -1, fused: 0 });

/** The floor of the scores a recall in `mode` (one query variant) produces. */
export function modeFloor(mode: RetrieveMode): number {
  return mode === 'dense' ? STAGE_FLOOR.dense : mode === 'hybrid' ? STAGE_FLOOR.fused : STAGE_FLOOR.sparse;
}

/** The part of the `retrieve` capability that depends on the models. */
export type RetrieveServing = Required<Pick<NonNullable<Capabilities['retrieve']>, 'modes' | 'defaultMode' | 'scoreFloor' | 'scoreScale' | 'rerankBuiltin'>> &
  Pick<NonNullable<Capabilities['retrieve']>, 'fusion'>;

export interface ServingInputs {
  /** A dense encoder serves (dense, hybrid and fusion advertised). */
  dense: boolean;
  /** At least one reranker serves (`rerankBuiltin`). */
  rerank: boolean;
  /** The configured default mode (default `DEFAULT_MODE`); served only when its mode is. */
  preferredMode?: RetrieveMode;
}

/** Modes, default mode, fusion methods, score floor and scale for what the models can serve. */
export function retrieveServing(i: ServingInputs): RetrieveServing {
  const modes: RetrieveMode[] = i.dense ? ['dense', 'sparse', 'hybrid'] : ['sparse'];
  const preferred = i.preferredMode ?? DEFAULT_MODE;
  return {
    modes,
    defaultMode: modes.includes(preferred) ? preferred : 'sparse',
    ...(i.dense ? { fusion: ['rrf', 'weighted', 'convex'] as const } : {}),
    rerankBuiltin: i.rerank,
    scoreFloor: Math.min(...modes.map(modeFloor)),
    // BM25 only when BM25 is all there is: fused and reranked scores are engine-relative.
    scoreScale: i.dense || i.rerank ? 'unbounded' : 'bm25',
  } as RetrieveServing;
}

/**
 * The reranker that serves a request (retrieve's rerank stage and the `rerank` method alike), or
 * -32005 naming `option` when none has the method: the session advertised a method this server
 * cannot run, which is refused, never skipped in silence.
 */
export function chooseReranker(rerankers: readonly Reranker[], method: string | undefined, model: string | undefined, option: string): Reranker {
  const wanted = method ?? rerankers[0]?.method;
  const same = rerankers.filter((r) => r.method === wanted);
  const chosen = (model !== undefined ? same.find((r) => r.identity === model) : undefined) ?? same[0];
  if (!chosen) throw optionUnsupported(option, wanted === undefined ? 'no reranker is served' : `rerank method ${echo(wanted)} is not served`);
  return chosen;
}

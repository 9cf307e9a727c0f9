import type { RetrieveMode, RetrieveParams } from '../../protocol/types.ts';
import type { Reranker } from '../contracts.ts';

/**
 * A retrieve as the engine carries it out: built once at the server's front door
 * (src/server/retrieve-plan.ts), where params are validated and gated against the advertised
 * capabilities and the counts defaulted and clamped. The engine does not check it again.
 */
export interface RetrievePlan {
  /** Validated params; options the server does not serve were refused or (strict:false) dropped. */
  readonly params: Readonly<RetrieveParams>;
  /** Hits per page (≤ candidateK, ≤ retrieve.maxK). */
  readonly k: number;
  /** Recall depth (≤ retrieve.maxK). */
  readonly candidateK: number;
  /** The rerank stage, when one runs: the chosen reranker and how many leading candidates it rescores. */
  readonly rerank?: { readonly reranker: Reranker; readonly topN: number };
  /** The session's advertised default mode, for a request that names none (else the engine's). */
  readonly defaultMode?: RetrieveMode;
  /** Degradations and clamps so far, for `usage.notes`. */
  readonly notes: readonly string[];
}

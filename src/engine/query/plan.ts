import type { RetrieveMode, RetrieveParams } from '../../protocol/types.ts';
import type { Reranker } from '../contracts.ts';

/**
 * A retrieve as the engine carries it out: built once at the server's front door
 * (src/server/retrieve-plan.ts), where params are validated and gated against the advertised
 * capabilities, the counts defaulted and clamped, the mode and the reranker chosen. The engine does
 * not check it again; it only downgrades a defaulted mode at run time.
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
  /** The mode to serve (§3.3): the request's, else the session's advertised default (src/engine/serving.ts). */
  readonly mode: RetrieveMode;
  /**
   * The request named no mode. Only then may the engine serve sparse instead of `mode` while dense
   * is not ready (the model still loads, chunks still wait for vectors), saying so in `usage.notes`.
   */
  readonly modeDefaulted: boolean;
  /** Degradations and clamps so far, for `usage.notes`. */
  readonly notes: readonly string[];
}

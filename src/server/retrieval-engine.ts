import type { RetrievePlan } from '../engine/query/plan.ts';
import type { IndexAddResult, IndexDeleteResult, IndexDocument, RetrieveResult } from '../protocol/types.ts';

/** What the server needs from the retrieval engine (src/engine implements it). */
export interface RetrievalEngine {
  add(
    docs: IndexDocument[],
    opts: {
      chunk?: boolean;
      contextual?: boolean;
      idempotencyKey?: string;
      signal?: AbortSignal;
      onProgress?(done: number, total: number): void;
    },
  ): Promise<IndexAddResult & { chunks: number }>;
  delete(ids: string[], opts: { signal?: AbortSignal }): Promise<IndexDeleteResult>;
  /** Carries out a plan built by `planRetrieve` (no second validation). */
  retrieve(
    plan: RetrievePlan,
    opts: { signal?: AbortSignal; onStage?(stage: string, progress: number): void },
  ): Promise<RetrieveResult>;
  /** §7.8 from the index's own vocabulary; `corrections` are the words `rewrite` changed. */
  transform(query: string, method: 'rewrite' | 'multi-query', n?: number): Promise<{ queries: string[]; corrections: { from: string; to: string }[] }>;
}

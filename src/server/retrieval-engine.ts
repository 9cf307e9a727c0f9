import type { IndexAddResult, IndexDeleteResult, IndexDocument, RetrieveParams, RetrieveResult } from '../protocol/types.ts';

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
  retrieve(
    params: RetrieveParams,
    opts: { signal?: AbortSignal; onStage?(stage: string, progress: number): void },
  ): Promise<RetrieveResult>;
}

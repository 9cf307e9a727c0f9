/** The engine's part of the RCP capabilities (§6), advertising exactly what works. */
import { FILTER_OPERATORS } from '../protocol/filter.ts';
import type { Capabilities, FilterFieldType, RetrieveMode } from '../protocol/types.ts';
import type { EngineLimits } from './config.ts';
import type { Embedder, Reranker } from './contracts.ts';

/** The engine's keys; `embed`, `multiVector` and `rerank` belong to the models' part (src/server/capabilities.ts). */
export type EngineCapabilities = Pick<Capabilities, 'retrieve' | 'filter' | 'index' | 'session' | 'pagination' | 'citations'>;

export interface CapabilityInputs {
  embedder?: Embedder;
  /** In preference order: the first one's method is the default `rerank.method`. */
  rerankers?: readonly Reranker[];
  limits: Readonly<EngineLimits>;
  fields: Readonly<Record<string, FilterFieldType>>;
  defaultMode: RetrieveMode;
}

/**
 * Dense/hybrid and fusion only with an embedder; `rerankBuiltin` only with a reranker. `scoreFloor` is the
 * minimum over every mode the engine can serve: BM25 and every fusion are ≥ 0, cosine ≥ −1 (recency
 * decays scores toward that floor, never below). A reranker's scores have no known floor, so with
 * one configured neither `scoreFloor` nor `scoreScale` is advertised.
 */
export function engineCapabilities(i: CapabilityInputs): EngineCapabilities {
  const dense = i.embedder !== undefined;
  const rerankers = i.rerankers ?? [];
  const retrieve: NonNullable<Capabilities['retrieve']> = {
    maxK: i.limits.maxK,
    modes: dense ? ['dense', 'sparse', 'hybrid'] : ['sparse'],
    mmr: true,
    rerankBuiltin: rerankers.length > 0,
    units: ['chunk', 'passage', 'document'],
    tokenBudget: true,
    defaultMode: i.defaultMode,
    deterministic: true,
    snapshots: true,
    citations: true,
    modalities: ['text'],
  };
  if (dense) retrieve.fusion = ['rrf', 'weighted', 'convex'];
  if (rerankers.length === 0) {
    retrieve.scoreScale = dense ? 'unbounded' : 'bm25';
    retrieve.scoreFloor = dense ? -1 : 0;
  }
  const caps: EngineCapabilities = {
    retrieve,
    filter: { fields: { ...i.fields }, operators: [...FILTER_OPERATORS], dates: 'rfc3339' },
    // `maxDocuments` is the per-call bound `index/add` enforces (validateIndexAdd, -32013).
    index: { writable: true, chunking: true, contextual: true, maxDocuments: i.limits.maxDocumentsPerAdd },
    session: { dedup: true, ttlSeconds: i.limits.sessionTtlSeconds },
    pagination: {},
    citations: {},
  };
  return caps;
}

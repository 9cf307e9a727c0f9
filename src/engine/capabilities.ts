/** The engine's part of the RCP capabilities (§6), advertising exactly what works. */
import { FILTER_OPERATORS } from '../protocol/filter.ts';
import type { Capabilities, FilterFieldType, RetrieveMode } from '../protocol/types.ts';
import type { EngineLimits } from './config.ts';
import type { Embedder, Reranker } from './contracts.ts';

/** The engine's keys; `embed`, `multiVector` and `rerank` belong to the models' part (src/server/capabilities.ts). */
export type EngineCapabilities = Pick<Capabilities, 'retrieve' | 'filter' | 'index' | 'session' | 'pagination' | 'citations' | 'transform'>;

export interface CapabilityInputs {
  embedder?: Embedder;
  /** In preference order: the first one's method is the default `rerank.method`. */
  rerankers?: readonly Reranker[];
  limits: Readonly<EngineLimits>;
  fields: Readonly<Record<string, FilterFieldType>>;
  defaultMode: RetrieveMode;
  /** A read-only store (a bundle): no `index` capability, so `index/add` and `index/delete` are -32003. */
  readOnly?: boolean;
}

/**
 * Dense/hybrid and fusion only with an embedder; rerank only with a reranker. `scoreFloor` is the
 * minimum over every stage the engine can serve: BM25, every fusion and reranked hits (the logistic
 * of the reranker's score) are ≥ 0, cosine ≥ −1; recency decays toward the floor and MMR only lowers
 * a score to the one above it, never below. `scoreScale` is `bm25` only when BM25 is all there is.
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
  retrieve.scoreScale = dense || rerankers.length > 0 ? 'unbounded' : 'bm25';
  retrieve.scoreFloor = dense ? -1 : 0;
  const caps: EngineCapabilities = {
    retrieve,
    filter: { fields: { ...i.fields }, operators: [...FILTER_OPERATORS], dates: 'rfc3339' },
    // `maxDocuments` is the per-call bound `index/add` enforces (validateIndexAdd, -32013).
    index: i.readOnly ? undefined : { writable: true, chunking: true, contextual: true, maxDocuments: i.limits.maxDocumentsPerAdd },
    session: { dedup: true, ttlSeconds: i.limits.sessionTtlSeconds },
    pagination: {},
    citations: {},
    // §7.8: the two methods that need no language model (spelling correction and variants from the
    // index's own vocabulary, src/engine/query/transform.ts); hyde, decompose, step-back need one.
    transform: { methods: ['rewrite', 'multi-query'] },
  };
  return caps;
}

/** The engine's part of the RCP capabilities (§6), advertising exactly what works. */
import { FILTER_OPERATORS } from '../protocol/filter.ts';
import type { Capabilities, FilterFieldType, RetrieveMode } from '../protocol/types.ts';
import { retrieveServing } from './serving.ts';
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
  /** The configured default mode (EngineOptions.defaultMode); served only when its mode is (serving.ts). */
  defaultMode?: RetrieveMode;
}

/**
 * Modes, default mode, fusion, score floor and scale follow the one serving policy (serving.ts):
 * dense/hybrid and fusion only with an embedder, rerank only with a reranker.
 */
export function engineCapabilities(i: CapabilityInputs): EngineCapabilities {
  const rerankers = i.rerankers ?? [];
  const retrieve: NonNullable<Capabilities['retrieve']> = {
    maxK: i.limits.maxK,
    mmr: true,
    units: ['chunk', 'passage', 'document'],
    tokenBudget: true,
    deterministic: true,
    snapshots: true,
    citations: true,
    modalities: ['text'],
    ...retrieveServing({ dense: i.embedder !== undefined, rerank: rerankers.length > 0, preferredMode: i.defaultMode }),
  };
  const caps: EngineCapabilities = {
    retrieve,
    filter: { fields: { ...i.fields }, operators: [...FILTER_OPERATORS], dates: 'rfc3339' },
    // `maxDocuments` is the per-call bound `index/add` enforces (validateIndexAdd, -32013).
    index: { writable: true, chunking: true, contextual: true, maxDocuments: i.limits.maxDocumentsPerAdd },
    session: { dedup: true, ttlSeconds: i.limits.sessionTtlSeconds },
    pagination: {},
    citations: {},
    // §7.8: the two methods that need no language model (spelling correction and variants from the
    // index's own vocabulary, src/engine/query/transform.ts); hyde, decompose, step-back need one.
    transform: { methods: ['rewrite', 'multi-query'] },
  };
  return caps;
}

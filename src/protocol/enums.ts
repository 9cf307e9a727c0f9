import type { FusionMethod, LogLevel, Modality, RerankMethod, RetrieveMode, Unit, VectorEncoding } from './types.ts';

/* The enum values RCP/1 defines (§4.6: lower-case, compared case-sensitively), as frozen lists. */

/** §7.7 `mode`. */
export const RETRIEVE_MODES: readonly RetrieveMode[] = Object.freeze(['dense', 'sparse', 'hybrid']);
/** §7.7 `fusion.method`, §16.3. */
export const FUSION_METHODS: readonly FusionMethod[] = Object.freeze(['rrf', 'weighted', 'convex']);
/** §7.6 `method`, §7.7 `rerank.method`. */
export const RERANK_METHODS: readonly RerankMethod[] = Object.freeze(['cross-encoder', 'colbert', 'llm']);
/** §4.8 modalities. */
export const MODALITIES: readonly Modality[] = Object.freeze(['text', 'image', 'audio', 'code', 'multimodal']);
/** §7.3.1 vector encodings. */
export const VECTOR_ENCODINGS: readonly VectorEncoding[] = Object.freeze(['json', 'f32-base64']);
/** §7.3 `kind`. */
export const EMBED_KINDS = Object.freeze(['query', 'document'] as const);
/** §7.7.2 retrieval units. */
export const UNITS: readonly Unit[] = Object.freeze([
  'chunk', 'passage', 'document', 'node', 'triplet', 'path', 'subgraph', 'community', 'tree-node', 'page',
]);
/** §17.1 log severities, least to most severe: the index is the comparison key. */
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze(['debug', 'info', 'notice', 'warning', 'error']);
/** §7.8 transform methods; `retrieve.rewrite` takes any of them (or `false`). */
export const TRANSFORM_METHODS = Object.freeze(['rewrite', 'hyde', 'multi-query', 'decompose', 'step-back'] as const);
/** One of TRANSFORM_METHODS. */
export type TransformMethod = (typeof TRANSFORM_METHODS)[number];

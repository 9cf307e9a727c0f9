/**
 * RCP/1 wire types (spec §4–§17). Types only: no runtime code lives here.
 * Requests are a union keyed on `method`; results are looked up through `ResultOf<M>`.
 */

// ── JSON-RPC envelope (§4) ────────────────────────────────────────────────
export type Id = string | number;
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Meta = { progressToken?: Id; idempotencyKey?: string; logLevel?: LogLevel; [key: string]: unknown };

export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
export interface RequestFrame<M extends string = string, P = unknown> {
  jsonrpc: '2.0';
  id: Id;
  method: M;
  params?: P;
}
export interface NotificationFrame<M extends string = string, P = unknown> {
  jsonrpc: '2.0';
  method: M;
  params?: P;
}
export interface SuccessFrame<R = unknown> {
  jsonrpc: '2.0';
  id: Id;
  result: R;
}
export interface ErrorFrame {
  jsonrpc: '2.0';
  id: Id | null;
  error: ErrorObject;
}
export type ResponseFrame<R = unknown> = SuccessFrame<R> | ErrorFrame;
export type Frame = RequestFrame | NotificationFrame | ResponseFrame;

// ── Data types (§4.6, §4.8) ──────────────────────────────────────────────
export type Modality = 'text' | 'image' | 'audio' | 'code' | 'multimodal';
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio' | 'blob'; mimeType: string; data?: string; uri?: string };
export type Query = string | ContentBlock | ContentBlock[];
export type VectorEncoding = 'json' | 'f32-base64';
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error';

// ── Capabilities (§6) ────────────────────────────────────────────────────
export type RetrieveMode = 'dense' | 'sparse' | 'hybrid';
export type FusionMethod = 'rrf' | 'weighted' | 'convex';
export type RerankMethod = 'cross-encoder' | 'colbert' | 'llm';
export type Unit =
  | 'chunk' | 'passage' | 'document' | 'node' | 'triplet' | 'path' | 'subgraph' | 'community' | 'tree-node' | 'page';
export type ScoreScale = 'cosine' | 'dot' | 'bm25' | 'probability' | 'unbounded';
export type FilterFieldType = 'keyword' | 'text' | 'int' | 'float' | 'bool' | 'date' | 'geo';
export type FilterOperator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'nin' | 'contains' | 'exists';

export interface RetrieveCapability {
  maxK?: number;
  modes?: RetrieveMode[];
  fusion?: FusionMethod[];
  mmr?: boolean;
  rerankBuiltin?: boolean;
  units?: Unit[];
  levels?: number;
  tokenBudget?: boolean;
  confidence?: boolean;
  scoreScale?: ScoreScale;
  scoreFloor?: number;
  defaultMode?: RetrieveMode;
  deterministic?: boolean;
  snapshots?: boolean;
  citations?: boolean;
  modalities?: Modality[];
  [key: string]: unknown;
}
export interface Capabilities {
  embed?: { dimension: number; identity: string; batchLimit?: number; normalized?: boolean; modalities?: Modality[]; encodings?: VectorEncoding[] };
  /** `batchLimit` is this server's addition (as for `embed`): texts accepted by one `embed/sparse` call. */
  sparseEmbed?: { identity: string; vocabulary?: number; batchLimit?: number };
  multiVector?: { dimension: number; identity: string; similarity?: 'dot' | 'cosine'; modalities?: Modality[]; encodings?: VectorEncoding[] };
  rerank?: { methods: RerankMethod[]; maxCandidates?: number; models?: string[] };
  retrieve?: RetrieveCapability;
  transform?: { methods: string[] };
  graph?: GraphCapability;
  index?: { writable: boolean; chunking?: boolean; contextual?: boolean; maxDocuments?: number; maxBytes?: number };
  session?: { dedup?: boolean; ttlSeconds?: number };
  feedback?: Record<string, never>;
  memory?: { scopes: string[]; clues?: boolean };
  filter?: { fields: string[] | Record<string, FilterFieldType>; operators?: FilterOperator[]; dates?: string };
  streaming?: Record<string, never>;
  pagination?: Record<string, never>;
  citations?: Record<string, never>;
  log?: { levels?: LogLevel[] };
  catalog?: { engines: number };
  [key: `x-${string}`]: unknown;
}
export type CapabilityKey = Exclude<keyof Capabilities, `x-${string}`>;

export type ConformanceLevel = 'L0' | 'L1' | 'L2';
export interface PeerInfo {
  name: string;
  version: string;
}

// ── Methods (§7) ─────────────────────────────────────────────────────────
export interface InitializeParams {
  protocolVersion: number;
  client?: PeerInfo;
  capabilities?: Partial<Capabilities> & Record<string, unknown>;
  _meta?: Meta;
}
export interface InitializeResult {
  protocolVersion: number;
  server: PeerInfo;
  capabilities: Capabilities;
  /** §17.2 `usage.notes` on `initialize`: what every client must know now (e.g. an index found smaller than its record). */
  usage?: { notes: string[] };
  _meta?: { conformance?: ConformanceLevel; [key: string]: unknown };
}
export type InfoResult = InitializeResult;

export interface PingParams { nonce?: string | number; _meta?: Meta }
export interface PingResult { nonce?: string | number }

export interface EmbedParams {
  inputs?: (string | ContentBlock)[];
  /** Legacy synonym of `inputs` (§7.3). */
  texts?: string[];
  kind?: 'query' | 'document';
  encoding?: VectorEncoding;
  /** The model expected (its `embed.identity`, or the name before its '@'); another is -32005 `model`. */
  model?: string;
  _meta?: Meta;
}
/** `model`: the identity of the encoder that made the vectors (this server's addition). */
export interface EmbedResult { vectors: (number[] | string)[]; encoding?: VectorEncoding; dimension?: number; model?: string }

export interface SparseEmbedParams { texts: string[]; kind?: 'query' | 'document'; _meta?: Meta }
export interface SparseVector { indices: number[]; values: number[] }
export interface SparseEmbedResult { sparse: SparseVector[] }

export interface MultiEmbedParams { inputs?: (string | ContentBlock)[]; texts?: string[]; kind?: 'query' | 'document'; encoding?: VectorEncoding; _meta?: Meta }
export interface MultiEmbedResult { matrices: (number[][] | string[])[]; dimension: number; encoding?: VectorEncoding }

export interface RerankParams {
  query: Query;
  passages?: string[];
  /** Legacy synonym of `passages` still sent by reference clients. */
  documents?: string[];
  method?: RerankMethod;
  topN?: number;
  _meta?: Meta;
}
export interface RerankResult {
  scores: number[];
  order?: number[];
  /** Legacy shape read by reference clients: best first, truncated to topN. */
  results?: { index: number; score: number }[];
  usage?: Usage;
}

export type FilterNode =
  | { and: FilterNode[] }
  | { or: FilterNode[] }
  | { not: FilterNode }
  | { field: string; op: FilterOperator; value?: unknown };

export interface RetrieveParams {
  query: Query;
  k?: number;
  mode?: RetrieveMode;
  modality?: Modality;
  candidateK?: number;
  fusion?: { method: FusionMethod; weights?: { dense?: number; sparse?: number }; rrfK?: number; alpha?: number };
  rerank?: { method: RerankMethod; model?: string; topN?: number } | false;
  mmr?: { lambda: number };
  rewrite?: string | false;
  filter?: FilterNode;
  minScore?: number;
  recency?: { field: string; halfLifeDays: number };
  unit?: Unit;
  level?: number;
  tokenBudget?: number;
  sessionId?: string;
  includeText?: boolean;
  includeVectors?: boolean;
  encoding?: VectorEncoding;
  seed?: number;
  indexVersion?: string;
  strict?: boolean;
  cursor?: string;
  _meta?: Meta;
}
export interface Citation { source: string; uri?: string; title?: string; start?: number; end?: number; page?: number }
export interface Hit {
  id: Id;
  score: number;
  confidence?: number;
  text?: string;
  content?: ContentBlock[];
  modality?: Modality;
  unit?: Unit;
  level?: number;
  meta?: Record<string, unknown>;
  vector?: number[] | string;
  /** §7.3.1: the encoding of `vector` and its dimension, present whenever `vector` is. */
  encoding?: VectorEncoding;
  dimension?: number;
  scores?: { dense?: number; sparse?: number; rerank?: number; [stage: string]: number | undefined };
  citation?: Citation;
  /** §7.7.2 graph/tree lineage behind a hit (`graph local` gives the walk's path from a seed). */
  provenance?: Provenance;
  trust?: { level: 'trusted' | 'community' | 'untrusted'; score?: number; injectionSuspected?: boolean; sanitized?: boolean };
  chunk?: { docId: string; index: number; context?: string };
}
/** §7.8 result; `_meta` may carry implementation data (§4.4), e.g. the corrections a rewrite made. */
export interface TransformResult { queries: string[]; hypothetical?: string; _meta?: Meta }
export interface Usage { candidates?: number; reranked?: number; latencyMs?: number; tokens?: number; notes?: string[] }
export interface RetrieveResult {
  hits: Hit[];
  nextCursor?: string;
  indexVersion?: string;
  usage?: Usage;
  rewrittenQuery?: string;
  /** §4.4 implementation data, e.g. `x-inpage-bm25` statistics for an aggregator (bm25-stats.ts). */
  _meta?: Meta;
}

// ── graph (§7.9) ─────────────────────────────────────────────────────────
/** §6 `graph`: `ops` served, plus this server's bounds (informational keys, §6). */
export interface GraphCapability {
  ops: string[];
  /** Largest `hops` of `neighbors`, `k` of every op and number of `seedIds`. */
  maxHops?: number;
  maxK?: number;
  maxSeeds?: number;
  [key: string]: unknown;
}
export type GraphOp = 'local' | 'global' | 'drift' | 'communities' | 'neighbors';
export interface GraphParams { op: string; query?: string; k?: number; seedIds?: string[]; hops?: number; level?: number; sessionId?: string; _meta?: Meta }
export interface Provenance { path?: string[]; nodes?: string[]; edges?: { src: string; dst: string }[]; leaves?: string[] }
export interface GraphNode { id: string; score: number; [key: `x-${string}`]: unknown }
export interface GraphEdge { src: string; dst: string; weight: number; [key: `x-${string}`]: unknown }
export interface GraphCommunity { id: string; level: number; summary: string; score?: number; [key: `x-${string}`]: unknown }
/** §7.9: op-specific; `indexVersion` and `usage` as on `retrieve`. */
export interface GraphResult {
  hits?: Hit[];
  nodes?: GraphNode[];
  edges?: GraphEdge[];
  communities?: GraphCommunity[];
  summary?: string;
  indexVersion?: string;
  usage?: Usage;
  _meta?: Meta;
}

// ── feedback (§7.16) ─────────────────────────────────────────────────────
export interface FeedbackSignal {
  hitId: string | number;
  used?: boolean;
  cited?: boolean;
  helpful?: boolean;
  reward?: number;
  poisonSuspected?: boolean;
  injectionSuspected?: boolean;
}
export interface FeedbackParams { sessionId?: string; query?: string; signals: FeedbackSignal[]; _meta?: Meta }
export interface FeedbackResult { accepted: number; _meta?: Meta }

// ── catalog/list (§7.13) ─────────────────────────────────────────────────
export interface CatalogEngine {
  id: string;
  server: PeerInfo;
  capabilities: Capabilities;
  endpoint?: { transport: 'stdio' | 'http'; url?: string; command?: string[] };
}
export interface CatalogListResult { engines: CatalogEngine[] }

export interface IndexDocument { id?: string; text: string; meta?: Record<string, unknown> }
export interface IndexAddParams { documents: IndexDocument[]; chunk?: boolean; contextual?: boolean; _meta?: Meta }
export interface IndexAddResult { ids: string[]; chunks?: number; indexVersion?: string }
export interface IndexDeleteParams { ids: string[]; _meta?: Meta }
export interface IndexDeleteResult { deleted: number; indexVersion?: string }

export type ShutdownParams = { _meta?: Meta };
export type ShutdownResult = Record<string, never>;

export interface CancelParams { id: Id; reason?: string }
export interface ProgressParams {
  progressToken: Id;
  progress: number;
  stage?: string;
  message?: string;
  partial?: { hits: Hit[] };
}
export interface LogParams { level: LogLevel; message: string; logger?: string; data?: unknown; _meta?: Meta }

/** Method name → [params, result]. Methods RCP defines but this project does not serve keep `unknown`. */
export interface MethodMap {
  initialize: [InitializeParams, InitializeResult];
  info: [Record<string, unknown>, InfoResult];
  ping: [PingParams, PingResult];
  shutdown: [ShutdownParams, ShutdownResult];
  embed: [EmbedParams, EmbedResult];
  'embed/sparse': [SparseEmbedParams, SparseEmbedResult];
  'embed/multi': [MultiEmbedParams, MultiEmbedResult];
  rerank: [RerankParams, RerankResult];
  retrieve: [RetrieveParams, RetrieveResult];
  'query/transform': [{ query: string; method: string; n?: number }, TransformResult];
  graph: [GraphParams, GraphResult];
  'index/add': [IndexAddParams, IndexAddResult];
  'index/delete': [IndexDeleteParams, IndexDeleteResult];
  'catalog/list': [Record<string, unknown>, CatalogListResult];
  feedback: [FeedbackParams, FeedbackResult];
  'memory/build': [Record<string, unknown>, { memoryId: string; tokens?: number }];
  'memory/recall': [Record<string, unknown>, { clues: unknown[]; hits?: Hit[] }];
}
export type Method = keyof MethodMap;
export type ParamsOf<M extends Method> = MethodMap[M][0];
export type ResultOf<M extends Method> = MethodMap[M][1];

export interface NotificationMap {
  'notifications/cancel': CancelParams;
  'notifications/progress': ProgressParams;
  'notifications/log': LogParams;
}

/** Shapes shared by the bench page, the bench worker and bench/run.ts. Types only. */

export interface BenchPassage {
  id: string;
  text: string;
  meta: Record<string, unknown>;
}

export interface BenchCorpus {
  passages: BenchPassage[];
  queries: string[];
  /** Index of the passage each query was drawn from (its synthetic query vector lies near that passage's). */
  querySources: number[];
  info: {
    naturalPassages: number;
    overlappingWindows: number;
    remixedPassages: number;
    bySource: Record<string, number>;
    meanChars: number;
    totalChars: number;
    passage: { min: number; target: number; max: number };
    seed: number;
  };
}

export interface BenchConfig {
  /** Index sizes in chunks (= passages; every passage is added as one unchunked document). */
  sizes: number[];
  /** Queries timed per system and size (with `warmup` > 0 the whole set runs once untimed first: warm timings). */
  queries: number;
  /** Fewer timed queries at sizes ≥ `reducedAt` (slow systems at 100k). */
  reducedQueries: number;
  reducedAt: number;
  warmup: number;
  k: number;
  /** Documents per Engine.add call. */
  addBatch: number;
  /** Size of the persisted index the cold start opens. */
  coldSize: number;
  coldRuns: number;
  /** Try to load the TransformersEmbedder (dense/hybrid rows). */
  dense: boolean;
  /** Give up loading the embedder after this long. */
  embedderTimeoutMs: number;
  /** Skip MiniSearch/Orama (engine only). */
  baselines: boolean;
  /** Queries whose dense/hybrid recall@10 is measured (the exact float top 10 costs n × d per query). */
  recallQueries: number;
  /** The vector stores (edgevec, EntityDB, Orama) run only at sizes up to this (their builds are slow). */
  peersMax: number;
  /** Timed queries for EntityDB, which reads every vector from IndexedDB per query. */
  entityDbQueries: number;
  /** IndexedDB commit durability of our engine's store (src/storage/idb-store.ts). */
  durability: IDBTransactionDurability;
  /** Keep the witness (a record in OPFS after each commit, src/storage/witness.ts) as the app's worker does. */
  witness: boolean;
  /** Keep the recovery log (every change in OPFS before it commits, src/storage/recovery) as the app's worker does. */
  recoveryLog: boolean;
  /** `--ingest-only`: fresh workers timed from `new Worker` to their first sparse answer after each size (0: none). */
  firstAnswerRuns?: number;
}

export interface Latency {
  n: number;
  p50: number;
  p95: number;
  mean: number;
  max: number;
  /** Mean hits returned (a sanity check that queries match). */
  hits: number;
  /** Queries that threw (excluded from the timings), and the first error. */
  failed?: number;
  error?: string;
  /** Mean recall@10 against the exact answer (dense: exact float cosine; hybrid: our hybrid over an exact dense scan). */
  recall10?: number;
  /** The first query of the untimed warm-up pass (ms): the cold cost of this mode, after the modes measured before it. */
  firstMs?: number;
}

export interface IngestStat {
  chunks: number;
  ms: number;
  perSec: number;
  /** Of `ms`, the time spent inside IndexStore.commit (IndexedDB transactions). */
  commitMs?: number;
}

export interface SystemAtSize {
  ingest?: IngestStat;
  heapBytesPerChunk?: number;
  idbBytesPerChunk?: number;
  latency: Record<string, Latency | string>;
}

export interface SizeResult {
  size: number;
  engine: SystemAtSize;
  minisearch?: SystemAtSize;
  orama?: SystemAtSize;
  edgevec?: SystemAtSize;
  entitydb?: SystemAtSize;
  /** A fresh bench worker opening this size's database: first sparse, then first dense answer. */
  cold?: ScaleColdStart;
  /** Bytes our vector blocks hold per chunk (int8 codes, sign bits, scales, norms, scratch). */
  vectorBytesPerChunk?: number;
  notes: string[];
}

export interface ScaleColdStart {
  openStoreMs: number;
  loadMs: number;
  storeLoadMs: number;
  firstSparseMs: number;
  firstDenseMs: number;
  /** From `new Worker` on the page to the first sparse / dense answer. */
  toFirstSparseMs: number;
  toFirstDenseMs: number;
}

export interface ColdStartResult {
  size: number;
  runs: { totalMs: number; initializeMs: number; firstRetrieveMs: number; hits: number }[];
  /** Fresh app worker → initialize → first hybrid retrieve (waits for the model to load); undefined without a model. */
  hybrid?: { totalMs: number; hits: number; error?: string };
  /**
   * Engine only, no model: a fresh bench worker opens the store, Engine.open (load) and answers
   * the first retrieve; parts measured inside, `totalMs` from the page (new Worker → reply).
   */
  inWorker: { openStoreMs: number; loadMs: number; storeLoadMs: number; firstQueryMs: number; totalMs: number }[];
}

export interface RcpOverheadResult {
  size: number;
  rcp: Latency;
  inWorker: Latency;
  /** usage.latencyMs as the server reported it over RCP. */
  serverReported: Latency;
}

export interface EmbedderInfo {
  available: boolean;
  reason?: string;
  identity?: string;
  device?: string;
  dimension?: number;
  loadMs?: number;
  /** Passage embedding throughput (texts/s), measured on the whole corpus. */
  embedPerSec?: number;
  /** Mean time to embed one query (ms). */
  queryEmbedMs?: number;
}

/** One size of an `--ingest-only` run: the engine's ingest and the CPU the browser spent on it. */
export interface IngestOnlyResult {
  size: number;
  ingest: IngestStat;
  /** CPU time (user + system) of every Chromium process during the ingest, from /proc (ms); undefined off Linux. */
  cpuMs?: number;
  /** The witness's OPFS writes during the ingest (after commits, off their path) and their time in all (ms). */
  witness?: { writes: number; ms: number };
  /** After the ingest (log flushed): the recovery log's bytes in OPFS, of them its base snapshot's (what a compaction leaves), and IndexedDB's usage. */
  bytes?: { log: number; logBase: number; idb?: number };
  /** Each fresh worker's time from `new Worker` to its first sparse answer on the index (ms; `firstAnswerRuns`). */
  firstSparseMs?: number[];
}

export interface BenchResult {
  userAgent: string;
  hardwareConcurrency: number;
  heapMethod: string;
  storageMethod: string;
  config: BenchConfig;
  embedder: EmbedderInfo;
  sizes: SizeResult[];
  cold?: ColdStartResult;
  rcp?: RcpOverheadResult;
  totalMs: number;
  log: string[];
}

/** Bench page → bench worker. */
export type WorkerRequest =
  | { id: number; cmd: 'load'; corpusUrl: string; config: BenchConfig }
  /** The recovery log's bytes and IndexedDB's after an ingest (compacts the log: asked for after the ingest's CPU time is read). */
  | { id: number; cmd: 'logBytes' }
  | { id: number; cmd: 'populate'; db: string; size: number; withVectors: boolean }
  | { id: number; cmd: 'coldOpen'; db: string; query: string; k: number; dense?: { identity: string; vector: Float32Array }; recoveryLog?: boolean }
  | { id: number; cmd: 'queries'; db: string; queries: string[]; k: number; warmup: number }
  | { id: number; cmd: 'embedder' }
  | { id: number; cmd: 'queryVector'; query: string }
  | { id: number; cmd: 'stage'; db: string; size: number; phase: StagePhase }
  | { id: number; cmd: 'gc' };

export type StagePhase = 'engine-ingest' | 'engine-query' | 'minisearch' | 'orama' | 'edgevec' | 'entitydb' | 'drop';

/** Bench worker → bench page. */
export type WorkerReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: string }
  | { log: string };

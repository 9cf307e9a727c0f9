/**
 * The three seams of the engine (see shared DESIGN.md): what it needs from storage, from an
 * embedding model and from a reranker. Each is replaceable in tests. Types, and the one load
 * request the engine's open makes.
 */
import type { InpageHitFeedback } from '../protocol/inpage.ts';

/** A document as persisted. `text` is the full source text; chunk offsets index into it. */
export interface StoredDocument {
  id: string;
  text: string;
  meta: Record<string, unknown>;
  /** Keys of this document's chunks, in order. */
  chunkKeys: number[];
  /** Index version at which this document was (re)written. */
  version: number;
}

/** A chunk: a character range `[start, end)` of its document, plus optional situating context. */
export interface StoredChunk {
  key: number;
  docId: string;
  index: number;
  start: number;
  end: number;
  /** Title / heading path prefixed to the indexed text when `contextual` was requested. */
  context?: string;
  /**
   * What the int8 code of this chunk's vector left out, for exact rescoring of a dense shortlist
   * (src/engine/index/vectors/fine.ts). Absent for chunks written without vectors or before it existed.
   */
  fine?: FineCodes;
}

/**
 * The rounding residual of one int8 row: x ≈ scale · (code + fine / 254), 254 times finer than the
 * code alone. Valid only next to the row it was computed from (same model identity and scale).
 */
export interface FineCodes {
  identity: string;
  /** The row's int8 scale (float32 value) when the residual was computed. */
  scale: number;
  codes: Int8Array;
}

/**
 * An immutable unit of index data written by one `index/add` (or produced by a merge).
 * `lexical` and `dense` are engine-defined, structured-clone-able payloads (typed arrays allowed).
 */
export interface SegmentRecord {
  id: number;
  chunkKeys: Uint32Array;
  lexical: unknown;
  dense?: FloatVectors | QuantizedVectors;
  /**
   * Set by a store whose `load()` leaves the vectors out (they are read with `loadVectors`, after
   * the first sparse answer): whose vectors they are. The engine never writes it.
   */
  denseApart?: { identity: string; dimension: number };
  /**
   * The documents of the segment's chunks, packed, so that a cold start builds no per-document
   * object (src/engine/index/doc-table.ts). Absent in segments written before it existed.
   */
  docTable?: DocTable;
  /**
   * Set by a store that reads a segment on demand (`IndexStore.partial`, a bundle over HTTP): its
   * `lexical` is then absent and the engine builds and fills it as queries need (index/partial.ts).
   */
  partial?: PartialSegmentInfo;
}

/**
 * What a store reading segments on demand gives at load: enough to order, group and count chunks
 * and to compute BM25's corpus statistics, with no term, document id or meta.
 */
export interface PartialSegmentInfo {
  /** `Analyzer.id` and context weight the segment's terms were produced with. */
  analyzer: string;
  contextWeight: number;
  /**
   * Ordinal of the segment's first document among all documents of the store's partial segments,
   * which are numbered in id order (UTF-16 code units): score ties break on it as on the id.
   */
  docBase: number;
  /** Documents of the segment. */
  docs: number;
  /** Local document ordinal of each chunk (−1: no live document). A document's chunks are contiguous. */
  docOf: Int32Array;
  /** Chunk index of each chunk within its document. */
  chunkIndex: Uint32Array;
  /** Sum of the BM25 lengths of the segment's live chunks (their own lengths come with the postings). */
  lengthSum: number;
}

/** The postings of one term in one segment, each with the BM25 length of its chunk. */
export interface TermPostings {
  segment: number;
  /** Local chunk ordinals, ascending. */
  postings: Uint32Array;
  tfs: Uint16Array;
  lengths: Uint32Array;
}

/** A document of a partial segment with what its hits cite. */
export interface PartialDocument {
  /** Its ordinal (PartialSegmentInfo.docBase + local document ordinal). */
  ordinal: number;
  id: string;
  meta: Record<string, unknown>;
  version: number;
  /** Text length. */
  length: number;
  chunks: { key: number; start: number; end: number; context: string }[];
}

/** Identity of every document of the partial segments, by ordinal. */
export interface PartialTable {
  ids: readonly string[];
  /** Absent when only the ids were asked for. */
  metas?: readonly Record<string, unknown>[];
  versions?: Uint32Array;
  lengths?: Uint32Array;
}

/**
 * What a store whose `load()` returns partial segments (`SegmentRecord.partial`) reads on demand.
 * The engine asks before it reads (state/residency.ts): the postings of a query's terms before
 * BM25 scores, the documents of the hits it returns, the whole table only for what needs every
 * document (filters, fusion ids, listings). Reads may be retried after a failure.
 */
export interface PartialSource {
  /** Postings of each asked term by term; a term in no segment is absent from the map. */
  readTerms(terms: readonly string[]): Promise<Map<string, TermPostings[]>>;
  /** Every term's postings (the vocabulary, for rewrites and the passage graph). */
  readAllTerms(): Promise<Map<string, TermPostings[]>>;
  /** The documents with these ordinals. */
  readDocuments(ordinals: readonly number[]): Promise<PartialDocument[]>;
  /** Every document's id (`'ids'`), or id, meta, version and length (`'all'`). */
  readTable(what: 'ids' | 'all'): Promise<PartialTable>;
  /** The fine codes of these chunks (dense rescoring), without the rest of their records. */
  readFine(keys: number[]): Promise<({ fine?: FineCodes } | undefined)[]>;
  /**
   * Facet counts of a keyword field computed when the store was written, when they answer this
   * request exactly (the same as `facetValues` over every document would); undefined otherwise.
   */
  facets?(field: string, limit: number): { values: { value: string | number | boolean; count: number }[]; distinct: number } | undefined;
  /**
   * Approximate dense scores of the chunks near `query`, read on demand (a bundle built with a
   * static model: its clusters of sign-bit codes), so a first dense answer needs no vectors in
   * memory. Absent: dense search reads every segment's vectors (`IndexStore.loadVectors`).
   */
  denseNearest?(query: Float32Array): Promise<LazyDenseHits>;
  /**
   * The corpus's words within one edit (insertion, deletion, substitution, transposition of
   * neighbours) of each asked word (lowercase), the word itself included when the corpus has it,
   * with how often the texts hold each: a bundle's typo shards, read on demand. Absent: the store
   * offers no typo tolerance of its own (query/typos.ts).
   */
  nearWords?(words: readonly string[]): Promise<Map<string, NearWord[]>>;
}

/** A corpus word `PartialSource.nearWords` found, with its occurrences over the documents' texts. */
export interface NearWord {
  word: string;
  count: number;
}

/** What `PartialSource.denseNearest` found: chunks by segment id and local ordinal, with their approximate cosines. */
export interface LazyDenseHits {
  segment: Int32Array;
  local: Uint32Array;
  score: Float32Array;
  /** Clusters scored, of how many. */
  probed: number;
  clusters: number;
}

/**
 * Per segment: which document each chunk belongs to, with the documents' id, version and meta.
 * Strings are concatenated with end offsets: a few values per segment, not two per document, so
 * reading a million documents' tables costs no per-document deserialization or garbage.
 */
export interface DocTable {
  /** Document index of each chunk (local ordinal); −1 for a chunk whose document was already gone. A document's chunks are contiguous. */
  docOf: Int32Array;
  /** The ids, concatenated: document i's ends at idEnds[i] (and starts where i − 1's ends). */
  ids: string;
  idEnds: Uint32Array;
  versions: Uint32Array;
  /** The distinct metas as JSON (what RCP carries), concatenated with their ends; metaOf[i] is document i's. */
  metas: string;
  metaEnds: Uint32Array;
  metaOf: Uint32Array;
}

/** The segment's stored vectors, read with `IndexStore.loadVectors`. */
export type SegmentVectors = FloatVectors | QuantizedVectors;

/** Vectors as an embedder returns them (n × dimension); segments written before int8 storage hold these. */
export interface FloatVectors {
  identity: string;
  dimension: number;
  vectors: Float32Array;
}

/**
 * Vectors as segments store them (src/engine/index/vectors): int8 codes with a per-vector scale
 * (x ≈ code · scale), 1/‖code‖ for cosine, and sign bits of the unit vector minus the segment's
 * center for the approximate scan. Rows are padded with zeros to `stride` codes / `bitStride` bytes.
 */
export interface QuantizedVectors {
  format: 2;
  identity: string;
  dimension: number;
  stride: number;
  codes: Int8Array;
  scales: Float32Array;
  invNorms: Float32Array;
  center: Float32Array;
  bitStride: number;
  bits: Uint8Array;
}

/** The root record: which segments are live and which chunk keys are deleted, at which version. */
export interface Manifest {
  version: number;
  nextChunkKey: number;
  nextSegmentId: number;
  segmentIds: number[];
  /** Chunk keys deleted since their segment was written (segments are immutable). */
  tombstones: number[];
  /** Live documents without chunks (a text with nothing to index): they live only in the document store. */
  chunkless?: number;
  /** Version of the last clear: older versions' texts are gone, so no engine keeps them pinnable. */
  clearedAt?: number;
  /**
   * A random id given to the database by its first manifest and kept by every later one (clears
   * included): a database the browser discarded and recreated has another, so a record kept
   * outside the database (src/storage/witness.ts) can tell it is not the index it described.
   * Absent in manifests written before it existed (the next commit adds one).
   */
  storeId?: string;
  /** Live documents at this version (absent in manifests written before it existed). */
  documents?: number;
  /**
   * Documents held out of every retrieve and graph answer since a `feedback` signal flagged one of
   * their passages (§7.16, §15.3), until released. A quarantine or a release is a new version.
   */
  quarantine?: QuarantineEntry[];
}

/** One quarantined document: why (which signals flagged it) and since when (ms since the epoch). */
export interface QuarantineEntry {
  id: string;
  reasons: ('poisonSuspected' | 'injectionSuspected')[];
  at: number;
}

/** What the index holds, as the record kept outside the database remembers it (a control-plane wire type). */
export type { IndexSummary } from '../protocol/control.ts';

/** Everything one mutation writes; a store MUST apply it atomically (all or nothing). */
export interface Change {
  putDocuments: StoredDocument[];
  deleteDocumentIds: string[];
  putChunks: StoredChunk[];
  deleteChunkKeys: number[];
  putSegments: SegmentRecord[];
  deleteSegmentIds: number[];
  manifest: Manifest;
  /** Remember this result under an idempotency key (§7.10 `_meta.idempotencyKey`). */
  idempotency?: { key: string; result: unknown };
}

/** What a cold start needs: no document text, only what queries touch. */
export interface LoadedIndex {
  manifest: Manifest;
  segments: SegmentRecord[];
  /**
   * id → meta and chunk keys, for filters and citations. Undefined when every listed segment has a
   * `docTable` and the manifest counts no chunkless document: the engine then reads the tables.
   */
  documents?: { id: string; meta: Record<string, unknown>; chunkKeys: number[]; version: number }[];
}

export interface LoadOptions {
  /**
   * 'always' (the default) lists every document; 'unless-tabled' leaves `documents` out when every
   * listed segment has a `docTable` and the manifest counts no chunkless document (a cold start then
   * reads no per-document record).
   */
  documents?: 'always' | 'unless-tabled';
}

/** What the engine's `open` asks of the store (state/index-state.ts); a read started ahead of it asks the same (src/storage/read-ahead.ts). */
export const ENGINE_LOAD: Readonly<LoadOptions> = Object.freeze({ documents: 'unless-tabled' });

/**
 * What `feedback` (§7.16) recorded about one document's hits, by hit id: counts of each signal
 * (`helpful: false` counts as `unhelpful`), the sum and number of rewards, and when the last came.
 * Kept with the index (exported and imported with it) until the document is deleted.
 */
export interface FeedbackRecord {
  docId: string;
  hits: Record<string, HitFeedback>;
}

/** How often each `feedback` signal came for one hit: the engine keeps the wire form of `x-inpage/feedback` as is. */
export type HitFeedback = InpageHitFeedback;

/** One read-modify-write of a document's feedback; `apply` returns the new record (undefined deletes it). */
export interface FeedbackUpdate {
  docId: string;
  apply(old: FeedbackRecord | undefined): FeedbackRecord | undefined;
}

/** Persistence the engine relies on. Implementations: IndexedDB (src/storage) and in-memory (tests). */
export interface IndexStore {
  /**
   * The manifest, the listed segments and the documents' meta. A store MAY leave segments' vectors
   * out (marking those records with `denseApart`); it then MUST implement `loadVectors`.
   */
  load(options?: LoadOptions): Promise<LoadedIndex | undefined>;
  /** The vectors of the given segments (by id; a segment without vectors is absent from the map). */
  loadVectors?(segmentIds: number[]): Promise<Map<number, SegmentVectors>>;
  /** The manifest alone (a cheap read): engines sharing the store compare its version with theirs. */
  readManifest(): Promise<Manifest | undefined>;
  /** Resolves only after the change is durable. */
  commit(change: Change): Promise<void>;
  getDocuments(ids: string[]): Promise<(StoredDocument | undefined)[]>;
  getChunks(keys: number[]): Promise<(StoredChunk | undefined)[]>;
  getIdempotent(key: string): Promise<unknown | undefined>;
  /** Feedback records by document id (a store without them serves no `feedback`). */
  getFeedback?(docIds: string[]): Promise<(FeedbackRecord | undefined)[]>;
  /**
   * Applies every update as ONE atomic read-modify-write (concurrent engines never lose a count).
   * A committed `Change` that deletes a document deletes its feedback in the same step.
   */
  updateFeedback?(updates: FeedbackUpdate[]): Promise<void>;
  /**
   * Deletes everything (documents, chunks, segments, idempotency results, feedback) in one atomic step; when
   * `next` is given it becomes the manifest in that same step, so no reader sees a gap. Resolves
   * only after the step is durable.
   */
  clear(next?: Manifest): Promise<void>;
  close(): void;
  /** Present when `load()` returns partial segments: what they lack, read on demand. */
  readonly partial?: PartialSource;
}

/** A dense text encoder (src/models implements it with transformers.js). */
export interface Embedder {
  /** Names the model and its checksum; a change means stored vectors are stale (§15.7). */
  readonly identity: string;
  readonly dimension: number;
  /** True when vectors are L2-normalised (then cosine = dot). */
  readonly normalized: boolean;
  /**
   * Cosine below which dense search treats a chunk as no match (measured per model: unrelated
   * texts still score well above 0 with a transformer encoder). Undefined = no floor.
   */
  readonly minSimilarity?: number;
  /**
   * Weights `weighted` fusion gives this model's dense list and the sparse list when the request
   * names none (measured per model: a weak static model helps only at a light dense weight).
   * Undefined = the engine's DEFAULT_FUSION weights.
   */
  readonly fusionWeights?: Readonly<{ dense: number; sparse: number }>;
  /**
   * True when a text and its translation embed close (a multilingual encoder): a default hybrid
   * over an index in other languages than the query's then ranks by dense alone (query/language-gate.ts).
   */
  readonly crossLingual?: boolean;
  /**
   * False while a query embedding would wait for the model's weights to load (a fresh tab); a
   * request naming no mode is then served sparse instead of waiting. Undefined = always ready.
   */
  ready?(): boolean;
  /**
   * Starts loading the weights now, without waiting for them: a request that will embed its query
   * has arrived, and has other reads to make first (a bundle's vectors). Optional; never throws.
   */
  prepare?(): void;
  /**
   * Loads the weights (as `prepare`) and resolves once a query can be embedded: true, or false when
   * the model cannot load. A request that asks for reproducible results waits on it instead of being
   * served sparse meanwhile. Optional; never rejects.
   */
  whenReady?(): Promise<boolean>;
  /**
   * How many batches it embeds at once (its encoder workers; 1 when absent): a background pass hands
   * it that many times as many texts per call, so no worker waits for the others' end of a call.
   */
  parallelism?(): number;
  embed(texts: string[], kind: 'query' | 'document', signal?: AbortSignal): Promise<Float32Array[]>;
}

/** A second-stage scorer over (query, passage) pairs. */
export interface Reranker {
  readonly method: 'cross-encoder' | 'colbert';
  readonly identity: string;
  score(query: string, passages: string[], signal?: AbortSignal): Promise<number[]>;
}

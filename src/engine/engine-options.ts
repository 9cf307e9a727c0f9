import type { PresetVectors } from './index/prepare.ts';
/** What the Engine is built with, and what its writes take and return. */
import type { FilterFieldType, RetrieveMode } from '../protocol/types.ts';
import type { AnalyzerOptions } from './analysis/analyzer.ts';
import type { LanguageDetector } from './analysis/language.ts';
import type { Bm25Params } from './index/bm25.ts';
import type { EngineLimits } from './config.ts';
import type { Embedder, IndexStore, IndexSummary, Reranker } from './contracts.ts';
import type { Coordination } from './state/coordination.ts';

export interface EngineOptions {
  store: IndexStore;
  embedder?: Embedder;
  /** One reranker, or several with distinct methods (retrieve's `rerank.method` picks one). */
  reranker?: Reranker | readonly Reranker[];
  limits?: Partial<EngineLimits>;
  /** Filterable meta fields, name → type (§8). Default DEFAULT_FIELDS. */
  fields?: Record<string, FilterFieldType>;
  analyzer?: AnalyzerOptions;
  /**
   * Detects the language of each added document without `meta.lang` and stores it there (a
   * filterable keyword). Loaded on the first add; src/engine/analysis/language.ts has the
   * project's (eld). Default: none (documents keep the meta they were given).
   */
  detectLanguage?: () => Promise<LanguageDetector>;
  bm25?: Partial<Bm25Params>;
  /** BM25F-style weight of context terms (title, heading path). */
  contextWeight?: number;
  chunkSize?: number;
  chunkOverlap?: number;
  /**
   * Mode when a request names none, when it is served (src/engine/serving.ts): default
   * `DEFAULT_MODE` (hybrid, measured) with an embedder; without one, sparse whatever this says.
   */
  defaultMode?: RetrieveMode;
  /**
   * Writes commit without vectors and the background re-embedding fills them in (one atomic
   * commit per segment), so a slow encoder never holds up sparse search: `add` returns as soon
   * as the text is analysed, dense search covers each segment once it is embedded, and
   * `pendingVectors()` says how far behind it is. Default false (vectors in the same commit).
   */
  embedInBackground?: boolean;
  /**
   * The store is read-only (a bundle built ahead, src/bundle): vectors from another model are not
   * re-embedded in the background (that would read every text only to fail its commit); dense
   * search skips them and `open()` warns. Default false.
   */
  readOnly?: boolean;
  /** Clock for session TTLs and the re-embedding back-off (tests). */
  now?: () => number;
  /**
   * Sharing the store with other engines (other tabs): a cross-engine write lock and commit
   * announcements. Absent (Node, a single tab): this engine assumes it is the only writer.
   */
  coordination?: Coordination;
  /**
   * Called after each write this engine committed became current (adds, deletes, clears,
   * re-embedding), with what the index holds now: the worker keeps a record of it outside the
   * database (src/storage/witness.ts). Must not throw; it runs on the write's path.
   */
  onCommitted?: (summary: IndexSummary, cleared: boolean) => void;
}

export interface AddOptions {
  chunk?: boolean;
  contextual?: boolean;
  chunkSize?: number;
  chunkOverlap?: number;
  idempotencyKey?: string;
  /** Vectors to reuse (an exported index coming back); ignored unless they name the running model. */
  vectors?: PresetVectors;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface AddResult {
  ids: string[];
  chunks: number;
  indexVersion: string;
  /** With `vectors`: how many chunks reused a given vector instead of being embedded. */
  vectorsReused?: number;
}

export interface DeleteResult {
  deleted: number;
  indexVersion: string;
}

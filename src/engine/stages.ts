/**
 * The engine's stages, built once from its options and wired to each other through interfaces
 * (each collaborator gets the narrow part of another it uses, never a callback into the Engine
 * class): what engine.ts is a facade over. Nothing here runs a request.
 */
import type { FilterFieldType, RetrieveMode } from '../protocol/types.ts';
import { createAnalyzer, type Analyzer } from './analysis/analyzer.ts';
import {
  DEFAULT_ANALYZER, DEFAULT_BM25, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, DEFAULT_CONTEXT_WEIGHT, DEFAULT_FIELDS,
  DEFAULT_LIMITS, type EngineLimits,
} from './config.ts';
import type { Embedder, IndexStore, IndexSummary, Reranker } from './contracts.ts';
import type { EngineOptions } from './engine-options.ts';
import { FeedbackService } from './feedback/service.ts';
import { GraphService } from './graph/service.ts';
import { Bm25 } from './index/bm25.ts';
import { Sessions } from './query/dedup-sessions.ts';
import { LanguageProfiles } from './query/language-gate.ts';
import { Retriever } from './query/retriever.ts';
import { BackgroundReembed } from './state/background-reembed.ts';
import { EarlyVectors } from './state/early-vectors.ts';
import { EmbedOrder } from './state/embed-order.ts';
import { FOREGROUND_MAX_WAIT_MS, ForegroundGate } from './state/foreground.ts';
import { IndexState } from './state/index-state.ts';
import { ReadGate } from './state/reads.ts';
import { TextCache } from './state/text-cache.ts';
import { VectorPrefetch } from './state/vector-prefetch.ts';
import { IndexWriter } from './state/writer.ts';

/** Texts per embedder call in background passes, per batch the embedder runs at once: about one WASM batch each, so a request waits for one at most. */
const BACKGROUND_BATCH = 8;

export interface Stages {
  readonly store: IndexStore;
  /** The dense encoder, when one was given (dense/hybrid modes, stored vectors). */
  readonly embedder?: Embedder;
  /** The store takes no writes (EngineOptions.readOnly). */
  readonly readOnly: boolean;
  readonly analyzer: Analyzer;
  readonly limits: Readonly<EngineLimits>;
  readonly fields: Readonly<Record<string, FilterFieldType>>;
  /** Rerankers in preference order; a retrieve plan names the one it uses (src/server/retrieve-plan.ts). */
  readonly rerankers: readonly Reranker[];
  /** The configured default mode; the capabilities say whether it is served (serving.ts). */
  readonly defaultMode?: RetrieveMode;
  /** The index versions, in step with the store. */
  readonly state: IndexState;
  /** Hit texts of live documents, from memory when recently read. */
  readonly texts: TextCache;
  /** Vectors the background pass embedded ahead of their segment's commit; dense search scores them. */
  readonly early: EarlyVectors;
  /** What the person searches for and reads, which the background pass embeds first. */
  readonly embedOrder: EmbedOrder;
  /** Requests a person waits for; background embedding lets them go first. */
  readonly foreground: ForegroundGate;
  /** Reads the vectors after the first answer, so a cold start's first sparse query does not wait on them. */
  readonly prefetch: VectorPrefetch;
  /** Whether the engine is open, and the prelude of every read. */
  readonly reads: ReadGate;
  /** Re-embeds, in the background, segments the embedder cannot search (absent without an embedder, or read-only). */
  readonly reembed?: BackgroundReembed;
  /** Every write, one at a time, in one lock order. */
  readonly writer: IndexWriter;
  readonly retriever: Retriever;
  readonly languages: LanguageProfiles;
  /** The passage graph and its ops (§7.9), built on first use and refreshed after writes. */
  readonly graphs: GraphService;
  /** `feedback` (§7.16): counts kept with the index, integrity signals quarantine documents. */
  readonly feedbacks: FeedbackService;
}

/**
 * What the index holds now, as a record kept outside the database remembers it (`storeId` is
 * the database's once `storedId` is true: loaded from it or committed since).
 */
export function indexSummary(state: IndexState, embedder: Embedder | undefined): IndexSummary & { storedId: boolean } {
  const m = state.manifest;
  return {
    storeId: m.storeId ?? '',
    storedId: state.stored,
    indexVersion: m.version,
    documents: m.documents ?? state.docs.size,
    chunks: state.current().live,
    ...(embedder ? { model: embedder.identity } : {}),
  };
}

/** Builds and wires the stages; `warnings` collects what background re-embedding reports. */
export function buildStages(options: EngineOptions, warnings: string[]): Stages {
  const { store, embedder, coordination } = options;
  const readOnly = options.readOnly === true;
  const limits = Object.freeze({ ...DEFAULT_LIMITS, ...options.limits });
  const fields = Object.freeze({ ...(options.fields ?? DEFAULT_FIELDS) });
  const analyzer = createAnalyzer({ ...DEFAULT_ANALYZER, ...options.analyzer });
  const bm25 = new Bm25({ ...DEFAULT_BM25, ...options.bm25 });
  const now = options.now ?? Date.now;
  const early = new EarlyVectors();
  const embedOrder = new EmbedOrder();
  const foreground = new ForegroundGate();
  // Built below; the state's hooks run only after a load or a commit, when both exist.
  let texts: TextCache | undefined;
  let reembed: BackgroundReembed | undefined;
  const state: IndexState = new IndexState({
    store,
    analyzerId: analyzer.id,
    embedder,
    retainVersions: limits.retainVersions,
    coordination,
    onReload: () => {
      // The store may have been replaced (same ids and versions, other texts): forget cached texts.
      texts?.clear();
      reembed?.schedule();
    },
    onPublished: (cleared) => {
      texts?.committed();
      options.onCommitted?.(indexSummary(state, embedder), cleared);
    },
  });
  // Not `docs`: a text read must not build the id map of a lazily opened index (~1 s at 1M);
  // until something else builds it, the versions the hits want decide (TextCache).
  texts = new TextCache(store, () => state.docsIfBuilt, coordination && (() => !state.needsRefresh));
  if (embedder && !readOnly) {
    reembed = new BackgroundReembed({
      embedder, store, state, coordination, early, warnings, now: options.now, order: embedOrder,
      // Small calls, each after the foreground is idle: a request waits for one batch at most.
      batch: Math.min(limits.embedBatch, BACKGROUND_BATCH),
      beforeBatch: () => foreground.idle(FOREGROUND_MAX_WAIT_MS),
    });
  }
  const reads = new ReadGate(state, foreground);
  const prefetch = new VectorPrefetch(() => state.prefetchVectors(), () => foreground.busy);
  const languages = new LanguageProfiles(state);
  const retriever = new Retriever({
    analyzer, bm25, embedder, store, state, early, texts, fields, reads, prefetch,
    sessions: new Sessions(limits.sessionTtlSeconds * 1000, limits.maxSessions, options.now),
    languages: options.detectLanguage && { detect: options.detectLanguage, profiles: languages },
    order: reembed && embedOrder,
  });
  const graphs = new GraphService({ analyzer, embedder, texts, state, seeds: retriever, foreground });
  const writer = new IndexWriter({
    store, state, analyzer, embedder, limits, now, readOnly,
    gate: reads,
    embedInBackground: options.embedInBackground === true,
    detectLanguage: options.detectLanguage,
    contextWeight: options.contextWeight ?? DEFAULT_CONTEXT_WEIGHT,
    chunkSize: options.chunkSize ?? DEFAULT_CHUNK_SIZE,
    chunkOverlap: options.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP,
    coordinated: coordination !== undefined,
    followers: { texts, early, graphs, reembed },
  });
  const feedbacks = new FeedbackService({ store, state, writer, now });
  const rerankers = options.reranker === undefined ? [] : Array.isArray(options.reranker) ? [...options.reranker] : [options.reranker as Reranker];
  return {
    store, embedder, readOnly, analyzer, limits, fields, rerankers, defaultMode: options.defaultMode,
    state, texts, early, embedOrder, foreground, prefetch, reads, reembed, writer, retriever, languages, graphs, feedbacks,
  };
}

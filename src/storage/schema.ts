import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreKey, StoreNames, StoreValue } from 'idb';
import type { FeedbackRecord, Manifest, SegmentRecord, SegmentVectors, StoredChunk, StoredDocument } from '../engine/contracts.ts';

/**
 * The one IndexedDB schema of the engine. Every key and value type used by the store is derived
 * from it, so a change here is checked everywhere.
 *
 * Documents are split in two stores so that a cold start (`load()`) reads only `docMeta` and
 * never touches the (large) source text in `docText`.
 */
export interface RcpDB extends DBSchema {
  /** Single root record under the key {@link MANIFEST_KEY}. */
  manifest: { key: typeof MANIFEST_KEY; value: Manifest };
  /** In-line key `id`. */
  segments: { key: number; value: SegmentRecord };
  /** In-line key `id`: everything about a document except its text. */
  docMeta: { key: string; value: Omit<StoredDocument, 'text'> };
  /** Out-of-line key = document id; the value is the full source text. */
  docText: { key: string; value: string };
  /** In-line key `key`. */
  chunks: { key: number; value: StoredChunk };
  /**
   * Out-of-line key = segment id: the segment's vectors (v2). Kept apart from `segments` so that a
   * cold start reads postings only and the first sparse answer does not wait on the vectors.
   * Segments written by v1 still hold theirs inline (read with the segment, as before).
   */
  vectors: { key: number; value: SegmentVectors };
  /** Out-of-line key = the client's `_meta.idempotencyKey`; `at` is ms since the epoch. */
  idempotency: { key: string; value: { result: unknown; at: number }; indexes: { 'by-at': number } };
  /** In-line key `docId` (v3): what `feedback` recorded about a document's hits. */
  feedback: { key: string; value: FeedbackRecord };
}

export type StoreName = StoreNames<RcpDB>;
export type Key<S extends StoreName> = StoreKey<RcpDB, S>;
export type Value<S extends StoreName> = StoreValue<RcpDB, S>;
export type DocMetaRecord = Value<'docMeta'>;
export type IdempotencyRecord = Value<'idempotency'>;

/** Key of the single manifest record. */
export const MANIFEST_KEY = 'root' as const;

/** Bump together with a new step in {@link upgrade}. */
export const SCHEMA_VERSION = 3;

/** Every store, in the order a full-database transaction lists them. */
export const ALL_STORES: readonly StoreName[] = Object.freeze([
  'manifest',
  'segments',
  'docMeta',
  'docText',
  'chunks',
  'vectors',
  'idempotency',
  'feedback',
] as const);

/**
 * Versioned upgrade: each step brings the database from `step - 1` to `step`, so a user on any
 * older version runs exactly the steps they miss. Steps must never be edited once released.
 */
export function upgrade(
  db: IDBPDatabase<RcpDB>,
  oldVersion: number,
  _newVersion: number | null,
  _tx: IDBPTransaction<RcpDB, StoreName[], 'versionchange'>,
): void {
  if (oldVersion < 1) {
    db.createObjectStore('manifest');
    db.createObjectStore('segments', { keyPath: 'id' });
    db.createObjectStore('docMeta', { keyPath: 'id' });
    db.createObjectStore('docText');
    db.createObjectStore('chunks', { keyPath: 'key' });
    db.createObjectStore('idempotency').createIndex('by-at', 'at');
  }
  if (oldVersion < 2) {
    // v1 segments keep their inline vectors (read as before) until a merge or re-embedding rewrites them.
    db.createObjectStore('vectors');
  }
  if (oldVersion < 3) {
    db.createObjectStore('feedback', { keyPath: 'docId' });
  }
}

/**
 * An in-memory IndexStore for tests and Node evaluation. Values cross the boundary through
 * `structuredClone`, as they would through IndexedDB, so neither side can alias the other's objects.
 */
import { needsDocuments } from './load-options.ts';
import type { Change, FeedbackRecord, FeedbackUpdate, IndexStore, LoadOptions, LoadedIndex, Manifest, SegmentRecord, SegmentVectors, StoredChunk, StoredDocument } from '../engine/contracts.ts';

export class MemoryStore implements IndexStore {
  private manifest: Manifest | undefined;
  private readonly documents = new Map<string, StoredDocument>();
  private readonly chunks = new Map<number, StoredChunk>();
  private readonly segments = new Map<number, SegmentRecord>();
  /** Segment vectors, apart from the segments as in IndexedDB: `load()` leaves them out. */
  private readonly vectors = new Map<number, SegmentVectors>();
  private readonly idempotency = new Map<string, unknown>();
  private readonly feedback = new Map<string, FeedbackRecord>();
  /** Number of successful commits (tests use it to assert one atomic write per mutation). */
  commits = 0;
  /** When set, the next commit rejects with this error and changes nothing (tests of atomicity). */
  failNextCommit: Error | undefined;

  async load(options?: LoadOptions): Promise<LoadedIndex | undefined> {
    if (!this.manifest) return undefined;
    const segments = this.manifest.segmentIds.map((id) => this.segments.get(id)).filter((s): s is SegmentRecord => !!s);
    const out: LoadedIndex = { manifest: this.manifest, segments };
    if (needsDocuments(this.manifest, segments, options)) {
      out.documents = [...this.documents.values()].map(({ id, meta, chunkKeys, version }) => ({ id, meta, chunkKeys, version }));
    }
    return structuredClone(out);
  }

  async loadVectors(segmentIds: number[]): Promise<Map<number, SegmentVectors>> {
    const out = new Map<number, SegmentVectors>();
    for (const id of segmentIds) {
      const v = this.vectors.get(id);
      if (v) out.set(id, structuredClone(v));
    }
    return out;
  }

  /**
   * Test hook: stores a segment record exactly as given (vectors inline), as a database written
   * before vectors were kept apart holds it.
   */
  putLegacySegment(record: SegmentRecord): void {
    this.segments.set(record.id, structuredClone(record));
    this.vectors.delete(record.id);
  }

  async readManifest(): Promise<Manifest | undefined> {
    return this.manifest && structuredClone(this.manifest);
  }

  /** Applies the whole change or nothing: everything is cloned before any map is touched. */
  async commit(change: Change): Promise<void> {
    const fail = this.failNextCommit;
    if (fail) {
      this.failNextCommit = undefined;
      throw fail;
    }
    const c = structuredClone(change);
    for (const id of c.deleteDocumentIds) this.documents.delete(id), this.feedback.delete(id);
    for (const key of c.deleteChunkKeys) this.chunks.delete(key);
    for (const id of c.deleteSegmentIds) this.segments.delete(id), this.vectors.delete(id);
    for (const d of c.putDocuments) this.documents.set(d.id, d);
    for (const ch of c.putChunks) this.chunks.set(ch.key, ch);
    for (const s of c.putSegments) {
      const { dense, denseApart: _stale, ...record } = s;
      if (dense) {
        this.segments.set(s.id, { ...record, denseApart: { identity: dense.identity, dimension: dense.dimension } });
        this.vectors.set(s.id, dense);
      } else {
        this.segments.set(s.id, record);
        this.vectors.delete(s.id);
      }
    }
    if (c.idempotency) this.idempotency.set(c.idempotency.key, c.idempotency.result);
    this.manifest = c.manifest;
    this.commits++;
  }

  async getDocuments(ids: string[]): Promise<(StoredDocument | undefined)[]> {
    return ids.map((id) => {
      const d = this.documents.get(id);
      return d && structuredClone(d);
    });
  }

  async getChunks(keys: number[]): Promise<(StoredChunk | undefined)[]> {
    return keys.map((k) => {
      const c = this.chunks.get(k);
      return c && structuredClone(c);
    });
  }

  async getIdempotent(key: string): Promise<unknown | undefined> {
    const r = this.idempotency.get(key);
    return r === undefined ? undefined : structuredClone(r);
  }

  async getFeedback(docIds: string[]): Promise<(FeedbackRecord | undefined)[]> {
    return docIds.map((id) => {
      const r = this.feedback.get(id);
      return r && structuredClone(r);
    });
  }

  async updateFeedback(updates: FeedbackUpdate[]): Promise<void> {
    // All computed before any is applied: an update that throws changes nothing.
    const next = updates.map((u) => [u.docId, u.apply(structuredClone(this.feedback.get(u.docId)))] as const);
    for (const [id, r] of next) {
      if (r) this.feedback.set(id, structuredClone(r));
      else this.feedback.delete(id);
    }
  }

  async clear(next?: Manifest): Promise<void> {
    this.feedback.clear();
    this.manifest = next && structuredClone(next);
    this.documents.clear();
    this.chunks.clear();
    this.segments.clear();
    this.vectors.clear();
    this.idempotency.clear();
  }

  close(): void {}

  /** Counts for tests. */
  stats(): { documents: number; chunks: number; segments: number } {
    return { documents: this.documents.size, chunks: this.chunks.size, segments: this.segments.size };
  }
}

/**
 * What the recovery log says the index holds: a base snapshot folded with the entries after it,
 * applied exactly as a store applies them (src/storage/idb-store.ts: deletes before puts, a
 * deleted document's feedback deleted with it). Folding the log rebuilds the index without
 * reading IndexedDB, which is the thing that may have been discarded.
 */
import type { Change, FeedbackRecord, Manifest, SegmentRecord, StoredChunk, StoredDocument } from '../../engine/contracts.ts';

/** One record of the log after its base. */
export type LogEntry =
  | { kind: 'change'; change: Change }
  /** Feedback records as they were written (null: deleted), at the index version `version`. */
  | { kind: 'feedback'; version: number; records: { docId: string; record: FeedbackRecord | null }[] };

/** The first record of every log file: what the index held when the file was started. */
export interface LogBase {
  kind: 'base';
  format: typeof LOG_FORMAT;
  /** Files of a later generation replace earlier ones (a compaction or a clear starts one). */
  generation: number;
  snapshot: Snapshot;
}

/** Bumped on any change an older reader would misread; a newer file is never used by an older engine. */
export const LOG_FORMAT = 1;

/** The index as plain data, in the order a store lists it. */
export interface Snapshot {
  manifest?: Manifest;
  documents: StoredDocument[];
  chunks: StoredChunk[];
  segments: SegmentRecord[];
  feedback: FeedbackRecord[];
}

export const EMPTY_SNAPSHOT: Snapshot = Object.freeze({ documents: [], chunks: [], segments: [], feedback: [] }) as Snapshot;

/** A snapshot being folded: keyed maps (insertion order kept, as a store's key order is not needed). */
export class LogState {
  manifest: Manifest | undefined;
  readonly documents = new Map<string, StoredDocument>();
  readonly chunks = new Map<number, StoredChunk>();
  readonly segments = new Map<number, SegmentRecord>();
  readonly feedback = new Map<string, FeedbackRecord>();

  constructor(base: Snapshot = EMPTY_SNAPSHOT) {
    this.manifest = base.manifest;
    for (const d of base.documents) this.documents.set(d.id, d);
    for (const c of base.chunks) this.chunks.set(c.key, c);
    for (const s of base.segments) this.segments.set(s.id, s);
    for (const f of base.feedback) this.feedback.set(f.docId, f);
  }

  apply(entry: LogEntry): void {
    if (entry.kind === 'feedback') {
      for (const { docId, record } of entry.records) {
        if (record) this.feedback.set(docId, record);
        else this.feedback.delete(docId);
      }
      return;
    }
    const c = entry.change;
    for (const id of c.deleteDocumentIds) {
      this.documents.delete(id);
      this.feedback.delete(id);
    }
    for (const key of c.deleteChunkKeys) this.chunks.delete(key);
    for (const id of c.deleteSegmentIds) this.segments.delete(id);
    for (const d of c.putDocuments) this.documents.set(d.id, d);
    for (const k of c.putChunks) this.chunks.set(k.key, k);
    for (const s of c.putSegments) this.segments.set(s.id, s);
    this.manifest = c.manifest;
  }

  snapshot(): Snapshot {
    return {
      ...(this.manifest ? { manifest: this.manifest } : {}),
      documents: [...this.documents.values()],
      chunks: [...this.chunks.values()],
      segments: [...this.segments.values()],
      feedback: [...this.feedback.values()],
    };
  }
}

/** Documents and passages a manifest says the index holds (the witness's counts). */
export function countsOf(s: Pick<LogState, 'documents' | 'chunks'>): { documents: number; chunks: number } {
  return { documents: s.documents.size, chunks: s.chunks.size };
}

/** Whether `value` is a log base this engine can read (its format, a generation, a snapshot). */
export function isLogBase(value: unknown): value is LogBase {
  const b = value as Partial<LogBase> | null;
  return (
    typeof b === 'object' && b !== null && b.kind === 'base' && b.format === LOG_FORMAT && Number.isSafeInteger(b.generation) &&
    typeof b.snapshot === 'object' && b.snapshot !== null && Array.isArray(b.snapshot.documents) && Array.isArray(b.snapshot.chunks) &&
    Array.isArray(b.snapshot.segments) && Array.isArray(b.snapshot.feedback)
  );
}

/** Whether `value` is an entry of this format (a change with its manifest, or feedback records). */
export function isLogEntry(value: unknown): value is LogEntry {
  const e = value as Partial<{ kind: string; change: Partial<Change>; records: unknown }> | null;
  if (typeof e !== 'object' || e === null) return false;
  if (e.kind === 'feedback') return Array.isArray(e.records);
  return e.kind === 'change' && typeof e.change === 'object' && e.change !== null && typeof e.change.manifest === 'object' && Array.isArray(e.change.putDocuments);
}

/**
 * How many bytes of a log file a fold would drop: what later entries superseded (deleted or
 * replaced passages and documents, merged-away segments, older manifests). The log compacts on
 * this, not on its length: an ingest that only adds supersedes almost nothing, and folding it
 * would rewrite the whole file for no gain (it cost ≈ 0.9 s of the worker's thread per 10,000
 * passages in the bench, on the commit's path).
 *
 * An estimate: a segment is weighed by its arrays and strings, a passage by the average bytes per
 * passage of the entries that put them (their documents included). What it misses (feedback
 * records rewritten, another tab's entries) the log's length bound still covers.
 */
import type { Manifest, SegmentRecord } from '../../engine/contracts.ts';
import type { LogEntry, Snapshot } from './log-state.ts';

/** Rough encoded size of a plain value: its typed arrays' and strings' bytes, 8 per number. */
export function approxBytes(v: unknown): number {
  if (typeof v === 'string') return v.length + 2;
  if (v === null || typeof v !== 'object') return 8;
  if (ArrayBuffer.isView(v)) return v.byteLength;
  let n = 2;
  if (Array.isArray(v)) {
    for (const x of v) n += approxBytes(x) + 1;
    return n;
  }
  for (const [k, x] of Object.entries(v)) n += k.length + 3 + approxBytes(x);
  return n;
}

export class LogWaste {
  /** Estimated bytes a fold would drop. */
  dead = 0;
  private readonly segments = new Map<number, number>();
  private manifest = 0;
  private passageBytes = 0;
  private passages = 0;

  /** Starts over from a file's base of `bytes` bytes. */
  base(snapshot: Snapshot, bytes: number): void {
    this.dead = 0;
    this.segments.clear();
    let segmentBytes = 0;
    for (const s of snapshot.segments) segmentBytes += this.putSegment(s);
    this.manifest = snapshot.manifest ? approxBytes(snapshot.manifest) : 0;
    this.passages = snapshot.chunks.length;
    this.passageBytes = Math.max(0, bytes - segmentBytes);
  }

  /** Counts what `entry` (of `bytes` bytes) supersedes, and what it adds that a later entry may. */
  entry(entry: LogEntry, bytes: number): void {
    if (entry.kind !== 'change') return;
    const c = entry.change;
    for (const id of c.deleteSegmentIds) this.dropSegment(id);
    let segmentBytes = 0;
    for (const s of c.putSegments) {
      this.dropSegment(s.id);
      segmentBytes += this.putSegment(s);
    }
    this.passageBytes += Math.max(0, bytes - segmentBytes);
    this.passages += c.putChunks.length;
    this.dead += c.deleteChunkKeys.length * (this.passages ? this.passageBytes / this.passages : 0) + this.manifest;
    this.manifest = approxBytes(c.manifest as Manifest);
  }

  private putSegment(s: SegmentRecord): number {
    const n = approxBytes(s);
    this.segments.set(s.id, n);
    return n;
  }

  private dropSegment(id: number): void {
    this.dead += this.segments.get(id) ?? 0;
    this.segments.delete(id);
  }
}

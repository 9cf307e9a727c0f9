/**
 * In-memory state of one index version: the live segments and which of their chunks are
 * tombstoned. Views are immutable once published, so a retrieve pinned to an older version reads
 * exactly what that version contained (its segments, its tombstones and, through each segment's
 * DocEntry objects, its documents' meta). The id → document map exists only for the current
 * version (the engine owns it), so retaining versions costs O(changed segments), not O(corpus).
 */
import type { DocTable, Manifest, SegmentRecord } from '../contracts.ts';
import { tableId, tableMeta } from './doc-table-fields.ts';
import type { LexicalSegmentData } from './segment.ts';
import type { VectorBlock } from './vectors/block.ts';

/** A document as the engine keeps it in memory (no text). One object per written version of a document. */
export interface DocEntry {
  readonly id: string;
  readonly meta: Record<string, unknown>;
  readonly version: number;
  readonly chunkKeys: readonly number[];
  /**
   * Documents of partial segments (index/partial.ts): their ordinal in id order, which breaks score
   * ties exactly as the id does, so ranking needs no id.
   */
  readonly order?: number;
  /**
   * Documents of partial segments, until the residency fills them in (state/residency.ts): 'id'
   * while neither id nor meta is known, 'meta' while only the id is. Nothing may read what is unknown.
   */
  unknown?: 'id' | 'meta';
  /** Per-query scratch (filter cache, best chunk for unit:"document"); valid only when `stamp` matches. */
  stamp: number;
  ok: boolean;
  best: Candidate | undefined;
}

/** A segment loaded in memory. Immutable apart from lazily computed caches. */
export interface LiveSegment {
  readonly id: number;
  readonly record: SegmentRecord;
  readonly lex: LexicalSegmentData;
  readonly size: number;
  /** Local ordinal → document (undefined for chunks already dead when loaded). */
  readonly docs: (DocEntry | undefined)[];
  /** The segment's current-model vectors as dense search scans them (built on first use, see dense.ts). */
  vectors?: VectorBlock;
  /** Loaded segments: the packed documents `docs` is filled from on first use (see {@link docAt}). */
  readonly table?: DocTable;
}

/** One published index version. */
export interface IndexView {
  readonly version: number;
  readonly segments: readonly LiveSegment[];
  /** Per segment: 1 = tombstoned chunk. Shared between views until a segment gains tombstones. */
  readonly dead: readonly Uint8Array[];
  /** Per segment: global ordinal of its first chunk. */
  readonly bases: readonly number[];
  readonly total: number;
  readonly live: number;
  /** Sum of BM25 lengths of live chunks. */
  readonly liveLength: number;
  /** Documents this version holds out of answers (the manifest's quarantine); absent = none. */
  readonly quarantined?: ReadonlySet<string>;
}

/** A scored chunk flowing through the pipeline. */
export interface Candidate {
  seg: LiveSegment;
  local: number;
  doc: DocEntry;
  score: number;
  scores: { dense?: number; sparse?: number; rerank?: number; relevance?: number; recall?: number };
}

/** Chunk key of a candidate. */
export const keyOf = (c: { seg: LiveSegment; local: number }): number => c.seg.record.chunkKeys[c.local];

/** Deterministic order: higher score first, then document id, then chunk index. */
export function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.doc !== b.doc) {
    const ao = a.doc.order;
    const bo = b.doc.order;
    if (ao !== undefined && bo !== undefined) {
      if (ao !== bo) return ao - bo;
    } else if (a.doc.id !== b.doc.id) return a.doc.id < b.doc.id ? -1 : 1;
  }
  return a.seg.lex.chunkIndex[a.local] - b.seg.lex.chunkIndex[b.local];
}

/** Builds a view, deriving bases and live statistics. */
export function makeView(
  version: number,
  segments: LiveSegment[],
  dead: Uint8Array[],
): IndexView {
  const bases: number[] = [];
  let total = 0;
  let live = 0;
  let liveLength = 0;
  segments.forEach((s, i) => {
    bases.push(total);
    total += s.size;
    const d = dead[i];
    const len = s.lex.lengths;
    const partial = s.record.partial;
    for (let c = 0; c < s.size; c++) {
      if (d[c]) continue;
      live++;
      if (!partial) liveLength += len[c];
    }
    // A partial segment's lengths arrive with its postings; the sum came with the segment.
    if (partial) liveLength += partial.lengthSum;
  });
  return { version, segments, dead, bases, total, live, liveLength };
}

/** `view` carrying the quarantine of the manifest it was published with. */
export function withQuarantine(view: IndexView, manifest: Manifest | undefined): IndexView {
  const q = manifest?.quarantine;
  if (!q?.length) return view.quarantined ? { ...view, quarantined: undefined } : view;
  return { ...view, quarantined: new Set(q.map((e) => e.id)) };
}

/**
 * A fresh document entry (its per-query scratch fields cleared). `unresolved`: the entry of a
 * partial segment's document whose id and meta the residency fills in later (index/partial.ts).
 */
export function newDocEntry(id: string, meta: Record<string, unknown>, version: number, chunkKeys: number[], unresolved?: { order: number }): DocEntry {
  const entry: DocEntry = { id, meta: storedMeta(meta), version, chunkKeys, stamp: 0, ok: false, best: undefined };
  return unresolved ? Object.assign(entry, { order: unresolved.order, unknown: 'id' as const }) : entry;
}

/**
 * Meta as read from the store: always an object. Writes never store anything else (index/add
 * treats `meta: null` as absent, §4.6), but a profile written by an older build may hold
 * `meta: null`, which made listing, facets and every filtered retrieve fail with -32603.
 */
export function storedMeta(meta: unknown): Record<string, unknown> {
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {};
}

/** Local ordinal of `key` in a segment (chunk keys ascend within a segment), or -1. */
export const localOf = (seg: LiveSegment, key: number): number => keyOrdinal(seg.record.chunkKeys, key);

/** Position of `key` in ascending `keys`, or -1. */
export function keyOrdinal(keys: ArrayLike<number>, key: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] === key) return mid;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Wraps a segment record for in-memory use; with `table`, `docs` starts empty and fills on use. */
export function liveSegment(record: SegmentRecord, docs: (DocEntry | undefined)[], table?: DocTable): LiveSegment {
  const lex = record.lexical as LiveSegment['lex'];
  return { id: record.id, record, lex, size: record.chunkKeys.length, docs, table };
}

/**
 * The document of chunk `c` (undefined for a chunk whose document was gone when the segment was
 * loaded or written). A loaded segment builds its DocEntry objects from its table on first use, one
 * per document, shared by every view holding the segment.
 */
export function docAt(seg: LiveSegment, c: number): DocEntry | undefined {
  const d = seg.docs[c];
  if (d !== undefined || seg.table === undefined) return d;
  const t = seg.table;
  const i = t.docOf[c];
  if (i < 0) return undefined;
  let from = c;
  while (from > 0 && t.docOf[from - 1] === i) from--;
  let to = c + 1;
  while (to < seg.size && t.docOf[to] === i) to++;
  const keys = Array.from(seg.record.chunkKeys.subarray(from, to));
  const entry = newDocEntry(tableId(t, i), tableMeta(t, i), t.versions[i], keys);
  for (let k = from; k < to; k++) seg.docs[k] = entry;
  return entry;
}

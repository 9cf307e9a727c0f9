/**
 * Plans one mutation: from the current view and manifest plus the prepared documents to write and
 * ids to delete, computes the single atomic `Change` for the store and the view to publish once
 * that change is durable. Pure: nothing here touches the store or the published state.
 */
import { runInSlices, runToEnd, type Sliced } from '../../util/slices.ts';
import type { Change, FloatVectors, Manifest, SegmentRecord, StoredChunk, StoredDocument } from '../contracts.ts';
import { mergeDense } from './dense.ts';
import { fineCodes } from './vectors/fine.ts';
import { quantize } from './vectors/quantize.ts';
import { buildLexical, mergeLexical, type ChunkTerms } from './segment.ts';
import { buildDocTable } from './doc-table.ts';
import { docAt, liveSegment, localOf, makeView, newDocEntry, type DocEntry, type IndexView, type LiveSegment } from './view.ts';

/** A document analysed and ready to write. */
export interface PreparedDoc {
  id: string;
  text: string;
  meta: Record<string, unknown>;
  chunks: ChunkTerms[];
}

export interface WriteOptions {
  analyzerId: string;
  contextWeight: number;
  maxSegments: number;
  /** Dense vectors of all prepared chunks in order (n × dimension), when an embedder is present. */
  dense?: FloatVectors;
}

export interface PlannedWrite {
  change: Change;
  view: IndexView;
  /** Documents that existed and were removed by `deletes`. */
  deleted: number;
  /** Applies this write to the current id → document map (call once the change is durable). */
  applyDocs(docs: Map<string, DocEntry>): void;
}

function* mergeSegments(parts: { seg: LiveSegment; dead: Uint8Array }[], id: number): Sliced<LiveSegment> {
  const { data, remap } = yield* mergeLexical(parts.map(({ seg, dead }) => ({ data: seg.lex, keep: dead.map((d) => 1 - d) })));
  const n = data.lengths.length;
  const chunkKeys = new Uint32Array(n);
  const docs = new Array<DocEntry | undefined>(n);
  parts.forEach(({ seg }, pi) => {
    remap[pi].forEach((to, c) => {
      if (to < 0) return;
      chunkKeys[to] = seg.record.chunkKeys[c];
      docs[to] = docAt(seg, c);
    });
  });
  yield 'merge: chunks remapped';
  const record: SegmentRecord = { id, chunkKeys, lexical: data, docTable: buildDocTable(docs) };
  yield 'merge: document table built';
  const dense = mergeDense(parts.map(({ seg }, pi) => ({ seg, remap: remap[pi] })), n);
  if (dense) record.dense = dense;
  yield 'merge: vectors merged';
  return liveSegment(record, docs);
}

const compatible = (a: LiveSegment, b: LiveSegment): boolean =>
  a.lex.analyzer === b.lex.analyzer &&
  a.lex.contextWeight === b.lex.contextWeight &&
  a.record.dense?.identity === b.record.dense?.identity &&
  a.record.dense?.dimension === b.record.dense?.dimension;

/**
 * Merges never build a segment above this many chunks: one IndexedDB record per segment stays
 * near 60 MB (1M chunks would be one ~600 MB value), and a merge never rewrites the whole index.
 * Past it, an index may hold more than `maxSegments` segments.
 */
export const MAX_MERGED_CHUNKS = 1 << 17;

const liveCount = (dead: Uint8Array): number => dead.length - dead.reduce((s, d) => s + d, 0);

/** Plans a write of `puts` (upserts) and `deletes`, in one new index version (at once: Node, tests). */
export function planWrite(...args: Parameters<typeof planWriteSteps>): PlannedWrite {
  return runToEnd(planWriteSteps(...args));
}

/**
 * `planWrite` in slices of a few ms: building and merging segments held Firefox's engine worker for
 * 2.5–3.7 s per merge while seeding the sample under load (issue 44), so pings went unanswered.
 * The caller holds the write lock; nothing is published until the commit, so readers meanwhile
 * see the current version.
 */
export function planWriteSliced(...args: Parameters<typeof planWriteSteps>): Promise<PlannedWrite> {
  return runInSlices(planWriteSteps(...args), 'index: planning a write (longest slice)');
}

function* planWriteSteps(
  view: IndexView,
  current: ReadonlyMap<string, DocEntry>,
  manifest: Manifest,
  puts: PreparedDoc[],
  deletes: string[],
  o: WriteOptions,
): Sliced<PlannedWrite> {
  const version = manifest.version + 1;
  let nextChunkKey = manifest.nextChunkKey;
  let nextSegmentId = manifest.nextSegmentId;
  const segments = [...view.segments];
  const dead = [...view.dead];
  const copied = new Set<number>();
  // Document changes as an overlay on `current` (null = removed); applied only after commit.
  const overlay = new Map<string, DocEntry | null>();
  const lookup = (id: string): DocEntry | undefined => (overlay.has(id) ? (overlay.get(id) ?? undefined) : current.get(id));
  const deleteChunkKeys: number[] = [];
  const deleteDocumentIds: string[] = [];
  const deleteSegmentIds: number[] = [];
  const putSegments: SegmentRecord[] = [];
  let deleted = 0;
  /** Documents live before that this write puts for the first time (not upserts). */
  let added = 0;
  // Documents without chunks are in no segment's table: the manifest counts them (see LoadOptions).
  let chunkless = manifest.chunkless ?? 0;

  const tombstone = (entry: DocEntry): void => {
    for (const key of entry.chunkKeys) {
      deleteChunkKeys.push(key);
      for (let s = 0; s < segments.length; s++) {
        const local = localOf(segments[s], key);
        if (local < 0) continue;
        if (!copied.has(s)) {
          dead[s] = dead[s].slice();
          copied.add(s);
        }
        dead[s][local] = 1;
        break;
      }
    }
  };

  for (const id of deletes) {
    const entry = lookup(id);
    if (!entry) continue;
    if (entry.chunkKeys.length === 0) chunkless--;
    tombstone(entry);
    overlay.set(id, null);
    deleteDocumentIds.push(id);
    deleted++;
  }

  const putDocuments: StoredDocument[] = [];
  const putChunks: StoredChunk[] = [];
  const chunkTerms: ChunkTerms[] = [];
  const segDocs: DocEntry[] = [];
  for (const p of puts) {
    const old = lookup(p.id);
    if (old) tombstone(old);
    else added++;
    if (old && old.chunkKeys.length === 0) chunkless--;
    if (p.chunks.length === 0) chunkless++;
    const keys = p.chunks.map(() => nextChunkKey++);
    const entry = newDocEntry(p.id, p.meta, version, keys);
    overlay.set(p.id, entry);
    putDocuments.push({ id: p.id, text: p.text, meta: p.meta, chunkKeys: keys, version });
    p.chunks.forEach((c, i) => {
      const chunk: StoredChunk = { key: keys[i], docId: p.id, index: c.index, start: c.start, end: c.end };
      if (c.context) chunk.context = c.context;
      putChunks.push(chunk);
      chunkTerms.push(c);
      segDocs.push(entry);
    });
  }
  yield 'plan: documents placed';
  if (chunkTerms.length > 0) {
    const record: SegmentRecord = {
      id: nextSegmentId++,
      chunkKeys: Uint32Array.from(segDocs, (_, i) => putChunks[i].key),
      lexical: buildLexical(chunkTerms, o.analyzerId, o.contextWeight),
      docTable: buildDocTable(segDocs),
    };
    if (o.dense) {
      const q = quantize(o.dense);
      record.dense = q;
      putChunks.forEach((chunk, r) => {
        const fine = fineCodes(o.dense!, q, r);
        if (fine) chunk.fine = fine;
      });
    }
    putSegments.push(record);
    segments.push(liveSegment(record, segDocs));
    dead.push(new Uint8Array(chunkTerms.length));
    yield 'plan: new segment built';
  }

  // Drop fully dead segments; rewrite mostly dead ones; merge adjacent ones while there are too many.
  for (let s = segments.length - 1; s >= 0; s--) {
    if (liveCount(dead[s]) === 0) {
      deleteSegmentIds.push(segments[s].id);
      segments.splice(s, 1);
      dead.splice(s, 1);
    }
  }
  function* replace(from: number, count: number): Sliced<void> {
    const merged = yield* mergeSegments(
      segments.slice(from, from + count).map((seg, i) => ({ seg, dead: dead[from + i] })),
      nextSegmentId++,
    );
    for (const seg of segments.slice(from, from + count)) deleteSegmentIds.push(seg.id);
    segments.splice(from, count, merged);
    dead.splice(from, count, new Uint8Array(merged.size));
    putSegments.push(merged.record);
  }
  for (let s = 0; s < segments.length; s++) if (liveCount(dead[s]) * 2 < segments[s].size) yield* replace(s, 1);
  while (segments.length > o.maxSegments) {
    let best = -1;
    let bestSize = Infinity;
    for (let s = 0; s + 1 < segments.length; s++) {
      if (!compatible(segments[s], segments[s + 1])) continue;
      const size = liveCount(dead[s]) + liveCount(dead[s + 1]);
      if (size < bestSize && size <= MAX_MERGED_CHUNKS) [best, bestSize] = [s, size];
    }
    if (best < 0) break;
    yield* replace(best, 2);
    yield 'plan: segments merged';
  }
  // A segment planned in this change and merged away again is simply not written.
  const gone = new Set(deleteSegmentIds);
  const written = putSegments.filter((r) => !gone.has(r.id));
  const stillDeleted = deleteSegmentIds.filter((id) => !putSegments.some((r) => r.id === id));

  const tombstones: number[] = [];
  segments.forEach((seg, s) => dead[s].forEach((d, c) => void (d && tombstones.push(seg.record.chunkKeys[c]))));
  const next: Manifest = {
    ...manifest,
    version,
    nextChunkKey,
    nextSegmentId,
    segmentIds: segments.map((s) => s.id),
    tombstones,
    chunkless,
    documents: current.size + added - deleted,
  };
  const change: Change = {
    putDocuments,
    deleteDocumentIds,
    putChunks,
    deleteChunkKeys,
    putSegments: written,
    deleteSegmentIds: stillDeleted,
    manifest: next,
  };
  const applyDocs = (docs: Map<string, DocEntry>): void => {
    for (const [id, entry] of overlay) {
      if (entry) docs.set(id, entry);
      else docs.delete(id);
    }
  };
  return { change, view: makeView(version, segments, dead), deleted, applyDocs };
}

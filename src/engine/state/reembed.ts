/**
 * Re-embedding after a model change (§15.7). Vectors are stored per segment with the identity of
 * the embedder that wrote them; a segment whose identity (or dimension) differs from the current
 * embedder's, or that has no vectors, is invisible to dense search. These helpers rebuild such a
 * segment's vectors from exactly the text embedded at index time (situating context + chunk body)
 * and plan its replacement by an otherwise identical segment, committed atomically.
 */
import type { Change, Embedder, IndexStore, Manifest, SegmentRecord, StoredDocument } from '../contracts.ts';
import { needsUpgrade, segmentVectors, storedVectors, type DenseModel } from '../index/dense.ts';
import { quantize } from '../index/vectors/quantize.ts';
import { embedDocuments, indexedText } from '../index/prepare.ts';
import { makeView, type IndexView, type LiveSegment } from '../index/view.ts';
import { docAt, liveSegment } from '../index/view.ts';
import { tableOf } from '../index/doc-table.ts';

/** Live chunks whose texts are read (and embedded) together, bounding memory on large segments. */
const SLICE = 512;

/**
 * True when the segment needs rewriting for this model: dense search cannot use its vectors, or
 * the store holds them as floats written before int8 storage (those are served, quantized in
 * memory, until the rewrite, which needs no embedding).
 */
export const needsVectors = (seg: LiveSegment, model: DenseModel): boolean => {
  // Vectors kept apart and not read yet are int8 of the model they name (never floats).
  const d = seg.record.dense ?? seg.record.denseApart;
  // A segment written before document tables is rewritten too (same vectors, no embedding), so
  // that cold starts stop reading every document record.
  return d?.identity !== model.identity || d.dimension !== model.dimension || needsUpgrade(seg, model) || seg.record.docTable === undefined;
};

/** Thrown when a chunk's document changed after `view` was published: sync and try again. */
export class ViewOutdated extends Error {
  constructor(docId: string) {
    super(`document '${docId}' changed since the view was published`);
    this.name = 'ViewOutdated';
  }
}

/**
 * New vectors (size × dimension) for segment `s` of `view`: one per live chunk, embedded from the
 * text `add` embedded, i.e. `indexedText(context, text.slice(start, end))` of the chunk's document
 * at the version the view holds. Dead chunks keep zero vectors (dense search never reads them).
 * Throws ViewOutdated when a document's stored version is not the view's.
 */
export async function reembedSegment(
  store: IndexStore,
  view: IndexView,
  s: number,
  embedder: Embedder,
  batch: number,
  signal?: AbortSignal,
  beforeBatch?: () => Promise<void>,
): Promise<Float32Array> {
  const seg = view.segments[s];
  const dead = view.dead[s];
  const dim = embedder.dimension;
  const out = new Float32Array(seg.size * dim);
  const live: number[] = [];
  for (let c = 0; c < seg.size; c++) if (!dead[c] && docAt(seg, c)) live.push(c);
  const lex = seg.lex;
  // A document's chunks are contiguous in a segment: one that spans slices (a 30 MB text has
  // thousands of chunks) is read once and carried over, not re-read for every slice.
  let carried = new Map<string, StoredDocument | undefined>();
  for (let i = 0; i < live.length; i += SLICE) {
    const locals = live.slice(i, i + SLICE);
    const ids = [...new Set(locals.map((c) => docAt(seg, c)!.id))];
    const missing = ids.filter((id) => !carried.has(id));
    const docs = missing.length > 0 ? await store.getDocuments(missing) : [];
    const byId = new Map(carried);
    missing.forEach((id, j) => byId.set(id, docs[j]));
    const last = ids[ids.length - 1];
    carried = new Map([[last, byId.get(last)]]);
    const texts = locals.map((c) => {
      const entry = docAt(seg, c)!;
      const doc = byId.get(entry.id);
      if (!doc || doc.version !== entry.version) throw new ViewOutdated(entry.id);
      return indexedText(lex.contexts[c], doc.text.slice(lex.starts[c], lex.ends[c]));
    });
    const vectors = await embedDocuments(embedder, texts, batch, signal, undefined, beforeBatch);
    locals.forEach((c, j) => out.set(vectors.subarray(j * dim, (j + 1) * dim), c * dim));
  }
  return out;
}

/**
 * Plans replacing segment `s` of `view` by a new segment (a fresh id: records stay immutable) with
 * the same chunks and lexical data and the given vectors, at the next version. Tombstones and
 * documents are unchanged.
 */
export function planReembed(
  view: IndexView,
  manifest: Manifest,
  s: number,
  dense: NonNullable<SegmentRecord['dense']>,
): { change: Change; view: IndexView } {
  const old = view.segments[s];
  const record: SegmentRecord = { id: manifest.nextSegmentId, chunkKeys: old.record.chunkKeys, lexical: old.record.lexical, dense, docTable: tableOf(old) };
  const segments = [...view.segments];
  segments[s] = liveSegment(record, old.docs, old.table);
  const next: Manifest = {
    ...manifest,
    version: manifest.version + 1,
    nextSegmentId: manifest.nextSegmentId + 1,
    segmentIds: segments.map((x) => x.id),
  };
  const change: Change = {
    putDocuments: [],
    deleteDocumentIds: [],
    putChunks: [],
    deleteChunkKeys: [],
    putSegments: [record],
    deleteSegmentIds: [old.id],
    manifest: next,
  };
  return { change, view: makeView(next.version, segments, [...view.dead]) };
}

/** What a re-embedding pass needs from the engine. */
export interface ReembedHost {
  readonly embedder: Embedder;
  readonly store: IndexStore;
  /** Texts per embedder call. */
  readonly batch: number;
  /** Aborted when the engine closes. */
  readonly signal: AbortSignal;
  /** Awaited before each embedder call: foreground requests go first (foreground.ts). */
  beforeBatch?(): Promise<void>;
  /** Catches up with the store (other engines' commits) and returns the current view. */
  sync(): Promise<IndexView>;
  /**
   * Under the write lock, on up-to-date state: replaces segment `id` by a copy with `dense` when it
   * is still current and still needs vectors; false otherwise (merged away, re-embedded elsewhere).
   */
  replace(id: number, dense: NonNullable<SegmentRecord['dense']>): Promise<boolean>;
}

/** Attempts per segment when its documents keep changing under the pass. */
const ATTEMPTS = 3;

/**
 * Re-embeds, one segment at a time, every segment of the current view that the embedder cannot
 * search, until none is left. Each segment is one atomic commit, so queries keep working (dense
 * search skips the segments not yet done) and writes interleave between segments. Returns the
 * number of segments rewritten.
 */
export async function runReembedPass(host: ReembedHost): Promise<number> {
  const e = host.embedder;
  const model: DenseModel = { identity: e.identity, dimension: e.dimension, normalized: e.normalized };
  const tries = new Map<number, number>();
  let done = 0;
  for (;;) {
    const view = await host.sync();
    const s = view.segments.findIndex((seg) => (tries.get(seg.id) ?? 0) < ATTEMPTS && needsVectors(seg, model));
    if (s < 0) return done;
    const id = view.segments[s].id;
    tries.set(id, (tries.get(id) ?? 0) + 1);
    if (segmentVectors(view.segments[s], model)) {
      // Current model, stored as floats or in the layout before document tables: rewrite as int8, with a table.
      if (await host.replace(id, storedVectors(view.segments[s])!)) done++;
      continue;
    }
    let vectors: Float32Array;
    try {
      vectors = await reembedSegment(host.store, view, s, e, host.batch, host.signal, host.beforeBatch?.bind(host));
    } catch (err) {
      if (err instanceof ViewOutdated) continue; // another engine rewrote a document: sync, then retry
      throw err;
    }
    if (await host.replace(id, quantize({ identity: e.identity, dimension: e.dimension, vectors }))) done++;
  }
}

/**
 * Re-embedding after a model change (§15.7). Vectors are stored per segment with the identity of
 * the embedder that wrote them; a segment whose identity (or dimension) differs from the current
 * embedder's, or that has no vectors, is invisible to dense search. These helpers rebuild such a
 * segment's vectors from exactly the text embedded at index time (situating context + chunk body)
 * and plan its replacement by an otherwise identical segment, committed atomically.
 */
import type { Change, Embedder, FineCodes, IndexStore, Manifest, QuantizedVectors, SegmentRecord, StoredChunk, StoredDocument } from '../contracts.ts';
import { needsUpgrade, segmentVectors, storedVectors, type DenseModel } from '../index/dense.ts';
import { quantize } from '../index/vectors/quantize.ts';
import { fineCodes } from '../index/vectors/fine.ts';
import { embedDocuments, indexedText } from '../index/prepare.ts';
import { docAt, liveSegment, makeView, type DocEntry, type IndexView, type LiveSegment } from '../index/view.ts';
import type { EarlyVectors } from './early-vectors.ts';
import type { ChunkRef, EmbedOrder } from './embed-order.ts';
import { tableOf } from '../index/doc-table.ts';

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
 * Plans replacing segment `s` of `view` by a new segment (a fresh id: records stay immutable) with
 * the same chunks and lexical data and the given vectors, at the next version. Tombstones and
 * documents are unchanged; `chunks` are chunk records rewritten in the same commit (with their
 * fine codes, see `refinedChunks`).
 */
export function planReembed(
  view: IndexView,
  manifest: Manifest,
  s: number,
  dense: NonNullable<SegmentRecord['dense']>,
  chunks: StoredChunk[] = [],
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
    putChunks: chunks,
    deleteChunkKeys: [],
    putSegments: [record],
    deleteSegmentIds: [old.id],
    manifest: next,
  };
  return { change, view: makeView(next.version, segments, [...view.dead]) };
}

/**
 * The fine codes of a segment's rows (vectors/fine.ts: the rounding residual dense search rescores
 * its head with), from the floats the pass embedded and their int8 codes; undefined for dead rows.
 */
function fineRows(floats: Float32Array, q: QuantizedVectors, dead: Uint8Array): (FineCodes | undefined)[] {
  const f = { identity: q.identity, dimension: q.dimension, vectors: floats };
  return Array.from(dead, (d, r) => (d ? undefined : fineCodes(f, q, r)));
}

/**
 * The stored records of segment `s`'s live chunks, each with its row's fine codes: `add` writes
 * them with the chunk when it embeds at once, a re-embedding pass with its segment's vectors.
 */
export async function refinedChunks(store: IndexStore, view: IndexView, s: number, fine: readonly (FineCodes | undefined)[]): Promise<StoredChunk[]> {
  const keys = view.segments[s].record.chunkKeys;
  const rows = [...fine.keys()].filter((r) => fine[r] !== undefined && !view.dead[s][r]);
  const records = await store.getChunks(rows.map((r) => keys[r]));
  return rows.flatMap((r, i) => (records[i] ? [{ ...records[i], fine: fine[r]! }] : []));
}

/** What a re-embedding pass needs from the engine. */
export interface ReembedHost {
  readonly embedder: Embedder;
  readonly store: IndexStore;
  /** Texts per embedder call. */
  readonly batch: number;
  /** Aborted when the engine closes. */
  readonly signal: AbortSignal;
  /** Chunks embedded ahead of their segment's commit (kept across passes, shared with dense search). */
  readonly early: EarlyVectors;
  /** Which waiting chunks go first (what the person searches for, then document order). */
  readonly order: EmbedOrder;
  /** The current version of a document (for the order's documents), or undefined. */
  doc(id: string): DocEntry | undefined;
  /** Awaited before each embedder call: foreground requests go first (foreground.ts). */
  beforeBatch?(): Promise<void>;
  /** Catches up with the store (other engines' commits) and returns the current view. */
  sync(): Promise<IndexView>;
  /**
   * Under the write lock, on up-to-date state: replaces segment `id` by a copy with `dense` when it
   * is still current and still needs vectors; false otherwise (merged away, re-embedded elsewhere).
   * `fine`, per row, is written into the live chunks' records in the same commit (`refinedChunks`).
   */
  replace(id: number, dense: NonNullable<SegmentRecord['dense']>, fine?: readonly (FineCodes | undefined)[]): Promise<boolean>;
}

/** Attempts per segment commit, and batches in a row whose documents changed under the pass. */
const ATTEMPTS = 3;
/** Documents whose text the pass keeps between batches (a long one is read once, not per batch). */
const TEXTS_KEPT = 8;

/**
 * The segment's vectors (size × dimension) from the early vectors of its live chunks, or
 * undefined while one is missing. Dead chunks keep zero vectors (dense search never reads them).
 */
function vectorsOf(view: IndexView, s: number, early: EarlyVectors, dim: number): Float32Array | undefined {
  const seg = view.segments[s];
  const dead = view.dead[s];
  const keys = seg.record.chunkKeys;
  // From the end: in document order the missing chunks are the last ones, so this stops at once.
  for (let c = seg.size - 1; c >= 0; c--) if (!dead[c] && !early.has(keys[c]) && docAt(seg, c)) return undefined;
  const out = new Float32Array(seg.size * dim);
  for (let c = 0; c < seg.size; c++) {
    const v = dead[c] || !docAt(seg, c) ? undefined : early.get(keys[c]);
    if (v) out.set(v, c * dim);
  }
  return out;
}

/**
 * The texts `add` embedded for these chunks, i.e. `indexedText(context, text.slice(start, end))`
 * of each chunk's document at the version the view holds, documents read through `kept`.
 * Throws ViewOutdated when a document's stored version is not the view's.
 */
async function chunkTexts(store: IndexStore, view: IndexView, picks: readonly ChunkRef[], kept: Map<string, StoredDocument | undefined>): Promise<string[]> {
  const entries = picks.map((p) => docAt(view.segments[p.s], p.local)!);
  const missing = [...new Set(entries.map((e) => e.id))].filter((id) => !kept.has(id));
  const docs = missing.length > 0 ? await store.getDocuments(missing) : [];
  missing.forEach((id, j) => kept.set(id, docs[j]));
  const texts = picks.map((p, i) => {
    const doc = kept.get(entries[i].id);
    if (!doc || doc.version !== entries[i].version) throw new ViewOutdated(entries[i].id);
    const lex = view.segments[p.s].lex;
    return indexedText(lex.contexts[p.local], doc.text.slice(lex.starts[p.local], lex.ends[p.local]));
  });
  // Keep the most recently used documents (a Map iterates oldest first).
  for (const e of entries) {
    const d = kept.get(e.id);
    kept.delete(e.id);
    kept.set(e.id, d);
  }
  const room = Math.max(TEXTS_KEPT, missing.length);
  for (const id of kept.keys()) if (kept.size > room) kept.delete(id);
  return texts;
}

/**
 * Embeds every chunk of the current view that the embedder cannot search, a batch at a time in
 * the host's order (embed-order.ts), until none is left. A batch's vectors go to the early
 * vectors, where dense search finds them at once; a segment whose live chunks all have one is
 * committed with them (one atomic commit per segment: queries keep working, dense search skips
 * what is not embedded yet, and writes interleave between batches). Returns the number of
 * segments rewritten.
 */
export async function runReembedPass(host: ReembedHost): Promise<number> {
  const e = host.embedder;
  const dim = e.dimension;
  const model: DenseModel = { identity: e.identity, dimension: dim, normalized: e.normalized };
  const { early, order } = host;
  const tries = new Map<number, number>();
  const kept = new Map<string, StoredDocument | undefined>();
  /** Segments the last batch added to: checked for completeness (and committed) before the next one. */
  let touched = new Set<number>();
  let outdated = 0;
  let done = 0;
  const commit = async (view: IndexView, s: number, dense: NonNullable<SegmentRecord['dense']>, fine?: (FineCodes | undefined)[]): Promise<void> => {
    const seg = view.segments[s];
    tries.set(seg.id, (tries.get(seg.id) ?? 0) + 1);
    if (await host.replace(seg.id, dense, fine)) {
      done++;
      early.delete(seg.record.chunkKeys);
    }
  };
  /** Commits embedded floats as int8 codes, with their fine codes. */
  const commitFloats = (view: IndexView, s: number, vectors: Float32Array) => {
    const q = quantize({ identity: e.identity, dimension: dim, vectors });
    return commit(view, s, q, fineRows(vectors, q, view.dead[s]));
  };
  for (;;) {
    const view = await host.sync();
    const retry = (seg: LiveSegment) => (tries.get(seg.id) ?? 0) < ATTEMPTS && needsVectors(seg, model);
    // Current-model vectors stored as floats or in the layout before document tables: rewrite as int8, with a table.
    const upgrade = view.segments.findIndex((seg) => retry(seg) && segmentVectors(seg, model));
    if (upgrade >= 0) {
      await commit(view, upgrade, storedVectors(view.segments[upgrade])!);
      continue;
    }
    const waiting = (seg: LiveSegment) => retry(seg) && !segmentVectors(seg, model);
    // A segment whose last chunks the previous batch embedded is committed before more embedding.
    const checked = touched;
    touched = new Set();
    let ready: { s: number; vectors: Float32Array } | undefined;
    view.segments.forEach((seg, s) => {
      const vectors = !ready && checked.has(seg.id) && waiting(seg) ? vectorsOf(view, s, early, dim) : undefined;
      if (vectors) ready = { s, vectors };
      else if (ready && checked.has(seg.id)) touched.add(seg.id); // checked on the next round
    });
    if (ready) {
      await commitFloats(view, ready.s, ready.vectors);
      continue;
    }
    const picks = order.next({ view, waiting, embedded: (key) => early.has(key), doc: (id) => host.doc(id), n: host.batch });
    if (picks.length === 0) {
      // Nothing left to embed: a waiting segment left is complete (a write tombstoned the chunks it
      // still missed, or it was merged), or none is left.
      let last: { s: number; vectors: Float32Array } | undefined;
      view.segments.forEach((seg, s) => {
        const vectors = !last && waiting(seg) ? vectorsOf(view, s, early, dim) : undefined;
        if (vectors) last = { s, vectors };
      });
      if (!last) {
        // Nothing waits that this pass can finish: what is left ahead belongs to segments another
        // engine committed, or that failed to commit (the next pass embeds those again).
        early.clear();
        return done;
      }
      await commitFloats(view, last.s, last.vectors);
      continue;
    }
    let texts: string[];
    try {
      texts = await chunkTexts(host.store, view, picks, kept);
    } catch (err) {
      if (!(err instanceof ViewOutdated) || ++outdated > ATTEMPTS) throw err;
      kept.clear(); // another engine rewrote a document: sync, then read again
      continue;
    }
    outdated = 0;
    const vectors = await embedDocuments(e, texts, host.batch, host.signal, undefined, host.beforeBatch?.bind(host));
    picks.forEach((p, j) => {
      early.put(p.key, vectors.slice(j * dim, (j + 1) * dim));
      touched.add(view.segments[p.s].id);
    });
  }
}

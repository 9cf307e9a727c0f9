/**
 * Dense search over the int8 vectors of the live segments (src/engine/index/vectors), in two
 * stages: a scan picks a shortlist, then each shortlisted chunk is scored exactly (float query ·
 * int8 codes, i.e. the exact cosine of the vector as stored) and the best k are returned.
 *
 * - Small indexes (< `denseTuning.exactBelow` vectors): the scan scores every vector (int8 dot
 *   products), so the shortlist is the exact top k plus a margin for the scan's rounding.
 * - Large indexes: a Hamming scan over one sign bit per dimension ranks every vector; every chunk
 *   within the distance that holds the closest `max(minShortlist, oversample × k)` live, accepted
 *   chunks (ties included) is scored exactly.
 *
 * Vectors of another identity are stale (§15.7) and are skipped, as are chunks indexed while no
 * embedder was configured. A zero vector (a text the model could not represent) matches nothing,
 * and a chunk scoring below the model's similarity floor is no match: dense search may return
 * fewer than k hits, or none. Segments written before int8 storage (float vectors) are quantized in
 * memory on first use and rewritten in the background (`needsUpgrade`).
 */
import type { Embedder, FineCodes, QuantizedVectors, SegmentRecord } from '../contracts.ts';
import { accepts, selectTop, type SelectOptions } from './select-top.ts';
import { compareCandidates, docAt, keyOf, type Candidate, type IndexView, type LiveSegment } from './view.ts';
import { fineCosine } from './vectors/fine.ts';
import { VectorBlock } from './vectors/block.ts';
import { mergeQuantized, quantize } from './vectors/quantize.ts';
import { denseTuning, type DenseTuning } from './vectors/tuning.ts';

export interface DenseModel {
  identity: string;
  dimension: number;
  normalized: boolean;
  /** Cosine below which a chunk is not a match (measured per model); undefined = no floor. */
  minSimilarity?: number;
}

/** What dense search needs to know of an embedder. */
export const denseModel = (e: Embedder): DenseModel => ({ identity: e.identity, dimension: e.dimension, normalized: e.normalized, minSimilarity: e.minSimilarity });

/** Records whose float vectors were quantized in memory only: the store still holds floats. */
const upgradedInMemory = new WeakSet<SegmentRecord>();

const current = (d: SegmentRecord['dense'], model: DenseModel): boolean =>
  d !== undefined && d.identity === model.identity && d.dimension === model.dimension;

/** The current-model vectors of a segment (built on first use), or undefined. */
export function segmentVectors(seg: LiveSegment, model: DenseModel): VectorBlock | undefined {
  const d = seg.record.dense;
  if (!d || !current(d, model)) return undefined;
  if (seg.vectors) return seg.vectors;
  const legacy = !('format' in d);
  const block = new VectorBlock(legacy ? quantize(d) : d, denseTuning.kernel === 'wasm');
  // The record now refers to the block's arrays, so the loaded copies can be collected.
  seg.record.dense = block.q;
  if (legacy) upgradedInMemory.add(seg.record);
  seg.vectors = block;
  return block;
}

/** True when the store holds this segment's current-model vectors as floats (rewrite them as int8). */
export function needsUpgrade(seg: LiveSegment, model: DenseModel): boolean {
  const d = seg.record.dense;
  return d !== undefined && current(d, model) && (!('format' in d) || upgradedInMemory.has(seg.record));
}

/** The stored (int8) form of a segment's vectors, whatever model wrote them. */
export function storedVectors(seg: LiveSegment): QuantizedVectors | undefined {
  const d = seg.record.dense;
  return d && ('format' in d ? d : quantize(d));
}

/**
 * The vectors of merged segments (all with vectors of one model, or none): `parts[p].remap[c]`
 * is the merged row of chunk c of part p, −1 when it is dropped.
 */
export function mergeDense(parts: { seg: LiveSegment; remap: Int32Array }[], n: number): QuantizedVectors | undefined {
  const qs = parts.map((p) => storedVectors(p.seg));
  if (qs.some((q) => q === undefined)) return undefined;
  return mergeQuantized(qs.map((q, i) => ({ q: q!, remap: parts[i].remap })), n);
}

/** Cosine of two vectors (0 when either is all zeros). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** Vectors embedded ahead of their segment's commit, by chunk key (src/engine/state/early-vectors.ts). */
export interface EarlyLookup {
  readonly size: number;
  get(key: number): Float32Array | undefined;
  has(key: number): boolean;
}

/** Live chunks of the view that have no current vector, stored or embedded ahead (for `usage.notes`). */
export function missingVectors(view: IndexView, model: DenseModel, early?: EarlyLookup): number {
  let n = 0;
  const ahead = early && early.size > 0 ? early : undefined;
  view.segments.forEach((seg, si) => {
    if (current(seg.record.dense, model)) return;
    const keys = seg.record.chunkKeys;
    for (let c = 0; c < seg.size; c++) if (!view.dead[si][c] && !ahead?.has(keys[c])) n++;
  });
  return n;
}

/** True when this chunk has a current vector, stored or embedded ahead. */
export function hasVector(c: { seg: LiveSegment; local: number }, model: DenseModel, early?: EarlyLookup): boolean {
  return current(c.seg.record.dense, model) || early?.has(c.seg.record.chunkKeys[c.local]) === true;
}

/**
 * Top-k by exact cosine over the chunks embedded ahead of their segment (segments without current
 * vectors): floats scored one by one, as few as the person's recent searches and the embedding
 * done since the segment was written. A document's chunks share one segment, so these never
 * compete with {@link denseSearch}'s hits for the same document.
 */
export function earlySearch(view: IndexView, query: Float32Array, model: DenseModel, early: EarlyLookup, o: SelectOptions): Candidate[] {
  if (early.size === 0 || o.k <= 0 || !(query.some((x) => x !== 0))) return [];
  const at: number[] = [];
  view.segments.forEach((seg, si) => {
    if (current(seg.record.dense, model)) return;
    const keys = seg.record.chunkKeys;
    for (let c = 0; c < seg.size; c++) if (early.has(keys[c])) at.push(view.bases[si] + c);
  });
  if (at.length === 0) return [];
  const floor = model.minSimilarity ?? -Infinity;
  let qq = 0;
  for (let i = 0; i < query.length; i++) qq += query[i] * query[i];
  const qNorm = Math.sqrt(qq);
  const score = (si: number, c: number): number => {
    const v = early.get(view.segments[si].record.chunkKeys[c])!;
    let dot = 0;
    let vv = 0;
    for (let i = 0; i < v.length; i++) (dot += query[i] * v[i]), (vv += v[i] * v[i]);
    const s = dot / (qNorm * Math.sqrt(vv));
    return vv > 0 && s >= floor ? s : NaN; // a zero vector has no direction: never a hit
  };
  return selectTop(view, o, score, 'dense', false, { at: Int32Array.from(at), length: at.length });
}

/** Top-k by cosine similarity (scores in [-1, 1]). */
export function denseSearch(view: IndexView, query: Float32Array, model: DenseModel, o: SelectOptions, t: DenseTuning = denseTuning): Candidate[] {
  let qNorm = 0;
  for (let i = 0; i < model.dimension; i++) qNorm += query[i] * query[i];
  qNorm = Math.sqrt(qNorm);
  if (!(qNorm > 0)) return []; // a zero (or non-finite) query vector has no direction: nothing is similar
  const blocks = view.segments.map((s) => segmentVectors(s, model));
  const stored = blocks.reduce((n, b) => n + (b?.n ?? 0), 0);
  if (stored === 0 || o.k <= 0) return [];
  const floor = model.minSimilarity ?? -Infinity;
  const shortlist = stored < t.exactBelow ? scanAll(view, blocks, query, o, t) : scanBits(view, blocks, query, qNorm, o, t, stored);
  const hits: Candidate[] = [];
  for (const c of shortlist) {
    // A zero chunk vector (invNorm 0) has no direction: no score, never a hit.
    if (!(c.seg.vectors!.q.invNorms[c.local] > 0)) continue;
    const s = c.seg.vectors!.cosine(query, qNorm, c.local);
    if (!(s >= floor)) continue;
    c.score = s;
    c.scores.dense = s;
    hits.push(c);
  }
  return hits.sort(compareCandidates).slice(0, o.k);
}

/** Every vector scored by the scan kernel; the best k plus a margin for its rounding. */
function scanAll(view: IndexView, blocks: (VectorBlock | undefined)[], query: Float32Array, o: SelectOptions, t: DenseTuning): Candidate[] {
  const dots = blocks.map((b) => b?.scanDots(query, t.kernel));
  const inv = blocks.map((b) => b?.q.invNorms);
  // Cosine up to the query's norm, which is the same for every chunk.
  const score = (si: number, c: number): number => {
    const d = dots[si];
    return d && inv[si]![c] > 0 ? d[c] * inv[si]![c] : NaN; // a zero vector is never a candidate
  };
  return selectTop(view, { ...o, k: o.k + Math.max(8, o.k) }, score, 'dense', false);
}

/**
 * Shortlist by Hamming distance of sign bits, widened until it holds enough live, accepted chunks;
 * every chunk of the shortlist is scored exactly (int8 codes) and only the best k plus a margin
 * become candidates. Ranking the shortlist by distance first would build `want` candidates (a
 * thousand at 1M) only to score them after: at 300k that selection was a third of a dense query.
 */
function scanBits(
  view: IndexView,
  blocks: (VectorBlock | undefined)[],
  query: Float32Array,
  qNorm: number,
  o: SelectOptions,
  t: DenseTuning,
  stored: number,
): Candidate[] {
  const unit = query.map((x) => (qNorm > 0 ? x / qNorm : 0));
  const maxD = Math.max(...blocks.map((b) => (b ? b.q.bitStride * 8 : 0)));
  const hist = new Uint32Array(maxD + 1); // rows per distance, counted by each block's scan
  const dists = blocks.map((b) => b?.scanHamming(unit, t.kernel, hist));
  const want = Math.max(t.minShortlist, t.oversample * o.k, Math.ceil((t.perMillion * stored) / 1e6));
  let target = want;
  for (;;) {
    // The smallest distance whose cumulative count reaches `target` (ties included).
    let cut = 0;
    for (let cum = hist[0]; cum < target && cut < maxD; ) cum += hist[++cut];
    const positions = collect(view, blocks, dists, cut, t);
    // Enough live, accepted chunks within the cut, or nothing left to widen to (tombstones and
    // filters can leave fewer): score them all exactly.
    if (cut >= maxD || eligible(view, positions, o, want) >= want) {
      const inv = blocks.map((b) => b?.q.invNorms);
      // Cosine up to the query's norm (the same for every chunk); a zero vector is never a candidate.
      const score = (si: number, c: number): number => (inv[si]![c] > 0 ? blocks[si]!.dot(query, c) * inv[si]![c] : NaN);
      return selectTop(view, { ...o, k: o.k + Math.max(8, o.k) }, score, 'dense', false, positions);
    }
    target *= 4;
  }
}

/** How many of `positions` are live chunks of accepted documents (counting stops at `enough`). */
function eligible(view: IndexView, positions: { at: Int32Array; length: number }, o: SelectOptions, enough: number): number {
  const { bases } = view;
  let n = 0;
  let si = 0;
  for (let i = 0; i < positions.length && n < enough; i++) {
    const g = positions.at[i];
    while (si + 1 < bases.length && bases[si + 1] <= g) si++; // positions ascend
    const c = g - bases[si];
    if (view.dead[si][c]) continue;
    if (o.accept) {
      const doc = docAt(view.segments[si], c);
      if (doc === undefined || !accepts(doc, o)) continue;
    }
    n++;
  }
  return n;
}

/** Global positions of the chunks with a vector at distance ≤ cut, ascending (listed by the blocks' kernels). */
function collect(view: IndexView, blocks: (VectorBlock | undefined)[], dists: (Uint16Array | undefined)[], cut: number, t: DenseTuning): { at: Int32Array; length: number } {
  const rows = blocks.map((b, si) => (b && dists[si] ? b.rowsWithin(dists[si]!, cut, t.kernel) : undefined));
  const at = new Int32Array(rows.reduce((n, r) => n + (r?.length ?? 0), 0));
  let k = 0;
  rows.forEach((r, si) => {
    if (!r) return;
    const base = view.bases[si];
    for (let i = 0; i < r.length; i++) at[k++] = base + r[i];
  });
  return { at, length: k };
}

/** How many of an int8-ranked dense list may be rescored with fine codes: the top `depth` plus a margin for int8 rounding. */
export const refinePool = (depth: number): number => Math.max(64, 2 * depth);

/**
 * How far below the `depth`-th int8 cosine a chunk may lie and still reach the top `depth` once
 * rescored: twice the largest int8 rounding error measured (2.0·10⁻³ over 400k cosines of
 * bench/vectors.ts's 384-d clustered vectors; p50 2.5·10⁻⁴, p99 1.0·10⁻³), since both it and the
 * chunk it would pass can be off by that much. Chunks below it keep their int8 cosines and are not read.
 */
export const FINE_MARGIN = 4e-3;

/**
 * Rescores `hits` (best first, from {@link denseSearch}) with each chunk's fine codes, read through
 * `read` (the store's chunk records), and returns them best first. Only the top `depth` and the
 * chunks within {@link FINE_MARGIN} of the `depth`-th are read (about `depth` records instead of
 * twice as many); the others cannot reach the top `depth` and keep their int8 cosines. A chunk
 * without usable fine codes keeps its int8 cosine; one that falls below the model's floor is dropped.
 */
export async function refineDense(
  hits: Candidate[],
  query: Float32Array,
  model: DenseModel,
  read: (keys: number[]) => Promise<({ fine?: FineCodes } | undefined)[]>,
  depth: number,
): Promise<Candidate[]> {
  if (hits.length === 0) return hits;
  let qNorm = 0;
  for (let i = 0; i < model.dimension; i++) qNorm += query[i] * query[i];
  qNorm = Math.sqrt(qNorm);
  // `hits` is best first: the chunks to read are a prefix.
  let m = Math.min(depth, hits.length);
  const edge = hits[m - 1].score - FINE_MARGIN;
  while (m < hits.length && hits[m].score >= edge) m++;
  const pool = hits.slice(0, m);
  const records = await read(pool.map(keyOf));
  const floor = model.minSimilarity ?? -Infinity;
  const out: Candidate[] = [];
  pool.forEach((c, i) => {
    const s = fineCosine(c.seg.vectors!.q, c.local, records[i]?.fine, query, qNorm);
    if (s !== undefined) c.score = c.scores.dense = s;
    if (c.score >= floor) out.push(c);
  });
  for (let i = m; i < hits.length; i++) if (hits[i].score >= floor) out.push(hits[i]);
  return out.sort(compareCandidates);
}

/** A candidate's current-model vector (as stored: code · scale), or undefined. */
export function candidateVector(c: Candidate, model: DenseModel): Float32Array | undefined {
  return segmentVectors(c.seg, model)?.vector(c.local);
}

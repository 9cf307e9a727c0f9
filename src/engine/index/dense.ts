/**
 * Exact dense search: cosine similarity between the query vector and every live chunk vector
 * written by the current embedder (same identity and dimension). Vectors of another identity are
 * stale (§15.7) and are skipped, as are chunks indexed while no embedder was configured. A zero
 * vector (a text the model could not represent) matches nothing, and a chunk scoring below the
 * model's similarity floor is no match: dense search may return fewer than k hits, or none.
 */
import { selectTop, type SelectOptions } from './select-top.ts';
import type { Candidate, IndexView, LiveSegment } from './view.ts';

export interface DenseModel {
  identity: string;
  dimension: number;
  normalized: boolean;
  /** Cosine below which a chunk is not a match (measured per model); undefined = no floor. */
  minSimilarity?: number;
}

/** The current-model vectors of a segment, or undefined. */
export function segmentVectors(seg: LiveSegment, model: DenseModel): Float32Array | undefined {
  const d = seg.record.dense;
  return d && d.identity === model.identity && d.dimension === model.dimension ? d.vectors : undefined;
}

function norms(seg: LiveSegment, vectors: Float32Array, dim: number): Float32Array {
  if (seg.norms) return seg.norms;
  const out = new Float32Array(seg.size);
  for (let c = 0; c < seg.size; c++) {
    let s = 0;
    for (let i = c * dim, e = i + dim; i < e; i++) s += vectors[i] * vectors[i];
    out[c] = Math.sqrt(s);
  }
  return (seg.norms = out);
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

/** Live chunks of the view that have no current vector (for `usage.notes`). */
export function missingVectors(view: IndexView, model: DenseModel): number {
  let n = 0;
  view.segments.forEach((seg, si) => {
    if (segmentVectors(seg, model)) return;
    for (let c = 0; c < seg.size; c++) if (!view.dead[si][c]) n++;
  });
  return n;
}

/** Top-k by cosine similarity (scores in [-1, 1]). */
export function denseSearch(view: IndexView, query: Float32Array, model: DenseModel, o: SelectOptions): Candidate[] {
  const dim = model.dimension;
  let qn = 0;
  for (let i = 0; i < dim; i++) qn += query[i] * query[i];
  qn = Math.sqrt(qn);
  if (!(qn > 0)) return []; // a zero (or non-finite) query vector has no direction: nothing is similar
  const floor = model.minSimilarity ?? -Infinity;
  const vecs = view.segments.map((s) => segmentVectors(s, model));
  const ns = view.segments.map((s, i) => (vecs[i] ? norms(s, vecs[i]!, dim) : undefined));
  return selectTop(
    view,
    o,
    (si, c) => {
      const v = vecs[si];
      if (!v) return NaN;
      const n = ns[si]![c] * qn;
      if (n === 0) return NaN; // a zero chunk vector: no score, never a hit
      let dot = 0;
      for (let i = 0, j = c * dim; i < dim; i++, j++) dot += query[i] * v[j];
      const cos = dot / n;
      return cos >= floor ? cos : NaN;
    },
    'dense',
    false,
  );
}

/** A candidate's current-model vector (a view into the segment), or undefined. */
export function candidateVector(c: Candidate, model: DenseModel): Float32Array | undefined {
  const v = segmentVectors(c.seg, model);
  return v && v.subarray(c.local * model.dimension, (c.local + 1) * model.dimension);
}

/**
 * Per-token matrices from a `last_hidden_state` tensor, and the MaxSim late-interaction score
 * (§7.5) over them.
 */
import type { Tensor } from '@huggingface/transformers';

/** One text's token vectors: `rows` × `dimension`, row-major, each row L2-normalised. */
export interface TokenMatrix {
  rows: number;
  dimension: number;
  data: Float32Array;
}

/**
 * Splits a [batch, seq, dim] hidden state into one matrix per text, keeping rows whose
 * attention-mask entry is 1 and whose vector is not all zero; rows are L2-normalised.
 */
export function toTokenMatrices(hidden: Tensor, mask: Tensor): TokenMatrix[] {
  const [batch, seq, dim] = hidden.dims;
  const h = hidden.data as Float32Array;
  const m = mask.data as BigInt64Array | Int32Array | Float32Array;
  const out: TokenMatrix[] = [];
  for (let b = 0; b < batch; b++) {
    const rows: Float32Array[] = [];
    for (let s = 0; s < seq; s++) {
      if (Number(m[b * seq + s]) === 0) continue;
      const row = h.slice((b * seq + s) * dim, (b * seq + s + 1) * dim);
      if (normalize(row)) rows.push(row);
    }
    const data = new Float32Array(rows.length * dim);
    rows.forEach((r, i) => data.set(r, i * dim));
    out.push({ rows: rows.length, dimension: dim, data });
  }
  return out;
}

/**
 * MaxSim(Q, D) = Σ_q max_d q·d (§7.5); with normalised rows this is the cosine variant.
 * An empty query or document scores 0.
 */
export function maxSim(query: TokenMatrix, doc: TokenMatrix): number {
  const d = query.dimension;
  if (doc.dimension !== d) throw new RangeError(`dimension mismatch ${d} vs ${doc.dimension}`);
  let total = 0;
  for (let q = 0; q < query.rows; q++) {
    let best = -Infinity;
    for (let r = 0; r < doc.rows; r++) {
      let dot = 0;
      for (let j = 0; j < d; j++) dot += query.data[q * d + j] * doc.data[r * d + j];
      if (dot > best) best = dot;
    }
    if (doc.rows) total += best;
  }
  return total;
}

/**
 * One vector per text: the attention-masked mean of a [batch, seq, dim] hidden state, L2-normalised
 * (the sentence-transformers recipe, what transformers.js computes for `pooling: 'mean',
 * normalize: true`, in one pass over typed arrays instead of its generic tensor ops, which took
 * half of each embedding call). A text without a non-zero token gives the zero vector.
 */
export function meanPooled(hidden: Tensor, mask: Tensor): Float32Array[] {
  const [batch, seq, dim] = hidden.dims;
  const h = hidden.data as Float32Array;
  const m = mask.data as BigInt64Array | Int32Array | Float32Array;
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const v = new Float32Array(dim);
    for (let s = 0; s < seq; s++) {
      if (Number(m[b * seq + s]) === 0) continue;
      const at = (b * seq + s) * dim;
      for (let j = 0; j < dim; j++) v[j] += h[at + j];
    }
    normalize(v); // the mean's divisor cancels in the normalisation
    out.push(zeroNonFinite(v));
  }
  return out;
}

/** One vector per text: the first ([CLS]) row of a [batch, seq, dim] hidden state, L2-normalised (bge's pooling). */
export function clsPooled(hidden: Tensor): Float32Array[] {
  const [batch, seq, dim] = hidden.dims;
  const h = hidden.data as Float32Array;
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const v = h.slice(b * seq * dim, b * seq * dim + dim);
    normalize(v);
    out.push(zeroNonFinite(v));
  }
  return out;
}

/** Scales `v` to unit length in place; false (and `v` unchanged) when its norm is 0 or not finite. */
function normalize(v: Float32Array): boolean {
  let norm = 0;
  for (let j = 0; j < v.length; j++) norm += v[j] * v[j];
  if (!(norm > 0) || !Number.isFinite(norm)) return false;
  norm = Math.sqrt(norm);
  for (let j = 0; j < v.length; j++) v[j] /= norm;
  return true;
}

/** Replaces NaN/±Infinity (e.g. 0/0 from normalising an all-zero mean) with 0, in place. */
export function zeroNonFinite(v: Float32Array): Float32Array {
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) v[i] = 0;
  return v;
}

/** Nested arrays for the JSON wire form of `embed/multi` (§7.5 `matrices`). */
export function toNestedArrays(m: TokenMatrix): number[][] {
  return Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.dimension, (r + 1) * m.dimension)));
}

/**
 * A static (lookup-table) model distilled from a sentence encoder, after the Model2Vec recipe
 * (Tulkens & van Dongen 2024), so the existing static runtime path (one Gather, mean pooling,
 * L2 normalisation) can serve it:
 *   1. every vocabulary token t is encoded alone as "[CLS] t [SEP]" by the fp32 encoder graph and
 *      mean-pooled over those 3 positions: the encoder's own sentence vector of the one-token text;
 *   2. PCA to `dimension` dims: rows are centred by their mean and projected on an orthonormal basis
 *      of the top principal subspace (subspace iteration from a seeded start; any rotation of that
 *      basis gives the same cosines);
 *   3. SIF weighting a/(a + p(t)), a = 1e-4 as in Model2Vec, with p(t) either the token's measured
 *      frequency in a text sample (add-one smoothed; token-frequencies.ts) or, without a sample, a
 *      Zipf prior on the token id (BERT's WordPiece ids are roughly frequency-ordered from id 1996,
 *      "the", on);
 *   4. [PAD]/[UNK]/[CLS]/[SEP]/[MASK] and [unusedN] rows are zero, so they never move a vector.
 * Runs at build time on onnxruntime-node.
 */
import * as ort from 'onnxruntime-node';
import { rng } from '../../src/util/prng.ts';
import type { StaticModel } from './static-model.ts';
import { zipfProbability } from './static-model.ts';
import type { TokenCounts } from './token-frequencies.ts';

export interface DistillOptions {
  dimension: number;
  sifA: number;
  batch: number;
}
export const DISTILL_DEFAULTS: DistillOptions = { dimension: 256, sifA: 1e-4, batch: 512 };

/**
 * `frequencies`: token counts over a text sample (token-frequencies.ts) for the SIF weights; without
 * them a Zipf prior on the token id stands in.
 */
export async function distillStatic(
  onnxBytes: Uint8Array,
  vocab: string[],
  ids: { cls: number; sep: number },
  o: DistillOptions = DISTILL_DEFAULTS,
  frequencies?: TokenCounts,
): Promise<StaticModel> {
  const session = await ort.InferenceSession.create(onnxBytes, { intraOpNumThreads: 2 });
  const V = vocab.length;
  let H = 0;
  let raw = new Float32Array(0);
  for (let at = 0; at < V; at += o.batch) {
    const n = Math.min(o.batch, V - at);
    const input = new BigInt64Array(n * 3);
    for (let i = 0; i < n; i++) input.set([BigInt(ids.cls), BigInt(at + i), BigInt(ids.sep)], i * 3);
    const out = await session.run({
      input_ids: new ort.Tensor('int64', input, [n, 3]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(n * 3).fill(1n), [n, 3]),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(n * 3), [n, 3]),
    });
    const h = out.last_hidden_state;
    if (!H) (H = h.dims[2] as number), (raw = new Float32Array(V * H));
    const d = h.data as Float32Array;
    for (let i = 0; i < n; i++) for (let j = 0; j < H; j++) raw[(at + i) * H + j] = (d[(i * 3) * H + j] + d[(i * 3 + 1) * H + j] + d[(i * 3 + 2) * H + j]) / 3;
  }
  await session.release();

  const live = vocab.map((t) => !/^\[(PAD|UNK|CLS|SEP|MASK|unused\d+)\]$/.test(t));
  const rows = live.reduce((n, l) => n + (l ? 1 : 0), 0);
  // Centre and form the covariance (float64).
  const mean = new Float64Array(H);
  for (let r = 0; r < V; r++) if (live[r]) for (let j = 0; j < H; j++) mean[j] += raw[r * H + j] / rows;
  const cov = new Float64Array(H * H);
  const x = new Float64Array(H);
  for (let r = 0; r < V; r++) {
    if (!live[r]) continue;
    for (let j = 0; j < H; j++) x[j] = raw[r * H + j] - mean[j];
    for (let a = 0; a < H; a++) {
      const xa = x[a];
      if (xa === 0) continue;
      const row = a * H;
      for (let b = a; b < H; b++) cov[row + b] += xa * x[b];
    }
  }
  for (let a = 0; a < H; a++) for (let b = 0; b < a; b++) cov[a * H + b] = cov[b * H + a];
  const basis = topSubspace(cov, H, Math.min(o.dimension, H));
  const D = basis.length;

  const matrix = new Float32Array(V * D);
  const n = V;
  for (let r = 0; r < V; r++) {
    if (!live[r]) continue;
    for (let j = 0; j < H; j++) x[j] = raw[r * H + j] - mean[j];
    const p = frequencies ? (frequencies.counts[r] + 1) / (frequencies.total + V) : zipfProbability(r, n);
    const w = o.sifA / (o.sifA + p);
    for (let k = 0; k < D; k++) {
      const u = basis[k];
      let s = 0;
      for (let j = 0; j < H; j++) s += x[j] * u[j];
      matrix[r * D + k] = w * s;
    }
  }
  return { dimension: D, tokens: vocab, matrix };
}

/** Orthonormal basis of the top-k eigen-subspace of a symmetric H×H matrix (subspace iteration, seeded). */
function topSubspace(c: Float64Array, H: number, k: number, iterations = 60): Float64Array[] {
  const next = rng(7);
  let q = Array.from({ length: k }, () => Float64Array.from({ length: H }, () => next() - 0.5));
  orthonormalize(q);
  for (let it = 0; it < iterations; it++) {
    q = q.map((v) => {
      const y = new Float64Array(H);
      for (let a = 0; a < H; a++) {
        let s = 0;
        const row = a * H;
        for (let b = 0; b < H; b++) s += c[row + b] * v[b];
        y[a] = s;
      }
      return y;
    });
    orthonormalize(q);
  }
  return q;
}

function orthonormalize(q: Float64Array[]): void {
  for (let i = 0; i < q.length; i++) {
    const v = q[i];
    for (let p = 0; p < i; p++) {
      const u = q[p];
      let dot = 0;
      for (let j = 0; j < v.length; j++) dot += v[j] * u[j];
      for (let j = 0; j < v.length; j++) v[j] -= dot * u[j];
    }
    let n = 0;
    for (let j = 0; j < v.length; j++) n += v[j] * v[j];
    n = Math.sqrt(n) || 1;
    for (let j = 0; j < v.length; j++) v[j] /= n;
  }
}

/**
 * Writes the semantic part of a bundle built with a static model (static-format.ts): the
 * vocabulary in shards by first two characters, the embedding rows in shards of ≈ 2 KB (ROW_SHARD_BYTES), and
 * the chunks' vectors as sign bits of their residual against a k-means centroid, one shard per
 * cluster. Deterministic: the same vectors and model give the same bytes.
 */
import type { QuantizedVectors } from '../engine/contracts.ts';
import { dequantize } from '../engine/index/vectors/quantize.ts';
import { shardsOf, STATIC_SHARD_HASH, type BundleFile } from './format.ts';
import {
  bitBytes, keyShard, pieceKey, ROW_SHARD_BYTES, type BundleStatic, type ClusterShardValue, type RowShardValue, type StaticCoreValue,
  type StaticTokenizer, type VocabShardValue,
} from './static-format.ts';

/** A static model as the writer needs it: the tokenizer's vocabulary and the model file's rows. */
export interface StaticModelInput {
  tokenizer: StaticTokenizer;
  /** Piece of each token id. */
  vocab: string[];
  dimension: number;
  rows: { kind: 'q8'; codes: Int8Array; scales: Float32Array } | { kind: 'fp32'; floats: Float32Array };
}

/** One segment's vectors and which of its chunks are live. */
export interface StaticSegmentInput {
  vectors: QuantizedVectors | undefined;
  live: Uint8Array;
}

/** Writes one gzip file named by `digits` hex digits of its hash (default: the manifest's SHARD_HASH). */
export type AddFile = (name: string, value: unknown, digits?: number) => Promise<BundleFile>;

/** Vocabulary shards: a query reads about one per word and word piece (≈ 60 pieces, under 1 KB, each). */
const VOCAB_SHARDS = 512;
/** About this many chunks per cluster: a probed cluster costs ≈ 11 KB (256-d). */
const CLUSTER_SIZE = 256;
const MAX_CLUSTERS = 1024;
const KMEANS_ROUNDS = 8;
/** Clusters a query probes. */
export const DEFAULT_PROBE = 4;

export async function writeStatic(add: AddFile, model: StaticModelInput, segments: readonly StaticSegmentInput[]): Promise<BundleStatic> {
  const d = model.dimension;
  const vocabParts: { pieces: string[]; ids: number[] }[] = Array.from({ length: VOCAB_SHARDS }, () => ({ pieces: [], ids: [] }));
  model.vocab.forEach((piece, id) => {
    if (piece === undefined) return;
    const s = vocabParts[keyShard(pieceKey(piece, model.tokenizer.kind === 'wordpiece' ? model.tokenizer.prefix : ''), VOCAB_SHARDS)];
    s.pieces.push(piece);
    s.ids.push(id);
  });
  const vocab: BundleFile[] = [];
  for (const [i, s] of vocabParts.entries()) vocab.push(await add(`static/vocab/${i}`, { pieces: s.pieces, ids: Uint32Array.from(s.ids) } satisfies VocabShardValue, STATIC_SHARD_HASH));

  const rowFiles: BundleFile[] = [];
  const n = model.vocab.length;
  const per = Math.max(1, Math.round(ROW_SHARD_BYTES / (model.rows.kind === 'q8' ? d + 4 : 4 * d)));
  for (let i = 0; i * per < n; i++) {
    const a = i * per;
    const b = Math.min(n, a + per);
    const r = model.rows;
    const value: RowShardValue = r.kind === 'q8' ? { codes: r.codes.slice(a * d, b * d), scales: r.scales.slice(a, b) } : { floats: r.floats.slice(a * d, b * d) };
    rowFiles.push(await add(`static/rows/${i}`, value, STATIC_SHARD_HASH));
  }

  const { vectors, seg, local } = liveVectors(segments, d);
  const count = vectors.length === 0 ? 0 : Math.min(MAX_CLUSTERS, Math.max(1, Math.round(vectors.length / CLUSTER_SIZE)));
  const { codes, scales, assign } = kmeans(vectors, d, count);
  const clusterFiles: BundleFile[] = [];
  const sizes = new Uint32Array(count);
  for (const a of assign) sizes[a]++;
  const members: number[][] = Array.from({ length: count }, () => []);
  assign.forEach((a, i) => members[a].push(i));
  const bytes = bitBytes(d);
  // The narrowest arrays that hold every position: a probed cluster's bytes are mostly its bits.
  const Seg = segments.length <= 256 ? Uint8Array : Uint16Array;
  const Local = segments.every((s) => s.live.length <= 65_536) ? Uint16Array : Uint32Array;
  for (let k = 0; k < count; k++) {
    const c = centroid(codes, scales, k, d);
    const m = members[k];
    const value: ClusterShardValue = { seg: new Seg(m.length), local: new Local(m.length), bits: new Uint8Array(m.length * bytes), alpha: new Float32Array(m.length) };
    m.forEach((i, j) => {
      value.seg[j] = seg[i];
      value.local[j] = local[i];
      const v = vectors[i];
      let abs = 0;
      for (let x = 0; x < d; x++) {
        const r = v[x] - c[x];
        abs += Math.abs(r);
        if (r >= 0) value.bits[j * bytes + (x >> 3)] |= 1 << (x & 7);
      }
      value.alpha[j] = abs / d;
    });
    clusterFiles.push(await add(`static/cluster/${k}`, value, STATIC_SHARD_HASH));
  }
  const core: StaticCoreValue = {
    tokenizer: model.tokenizer,
    dimension: d,
    vocabSize: n,
    rows: model.rows.kind,
    rowsPerShard: per,
    vocabShards: shardsOf(vocab, STATIC_SHARD_HASH),
    rowShards: shardsOf(rowFiles, STATIC_SHARD_HASH),
    clusterShards: shardsOf(clusterFiles, STATIC_SHARD_HASH),
    centroids: codes,
    centroidScales: scales,
    clusterSizes: sizes,
    probe: Math.min(DEFAULT_PROBE, count),
  };
  return { core: await add('static/core', core) };
}

/** A centroid as readers see it (its int8 codes times its scale): residuals are taken against this. */
export function centroid(codes: Int8Array, scales: Float32Array, k: number, d: number): Float32Array {
  const c = new Float32Array(d);
  for (let x = 0; x < d; x++) c[x] = codes[k * d + x] * scales[k];
  return c;
}

/** Every live chunk's unit vector (as stored: int8 codes · scale, normalised), with where it is. */
function liveVectors(segments: readonly StaticSegmentInput[], d: number): { vectors: Float32Array[]; seg: number[]; local: number[] } {
  const vectors: Float32Array[] = [];
  const seg: number[] = [];
  const local: number[] = [];
  segments.forEach((s, si) => {
    const q = s.vectors;
    if (!q || q.dimension !== d) return;
    for (let c = 0; c < s.live.length; c++) {
      if (!s.live[c] || !(q.invNorms[c] > 0)) continue; // dead, or a zero vector: never a dense hit
      const v = dequantize(q, c);
      let nn = 0;
      for (let x = 0; x < d; x++) nn += v[x] * v[x];
      const inv = 1 / Math.sqrt(nn);
      for (let x = 0; x < d; x++) v[x] *= inv;
      vectors.push(v);
      seg.push(si);
      local.push(c);
    }
  });
  return { vectors, seg, local };
}

/**
 * Spherical k-means (assign by largest dot product, centroid = mean), started from evenly spaced
 * vectors, a fixed number of rounds; the centroids are then stored as int8 and the vectors
 * assigned to the nearest stored centroid, which is what a reader probes with.
 */
function kmeans(vectors: readonly Float32Array[], d: number, k: number): { codes: Int8Array; scales: Float32Array; assign: Int32Array } {
  const n = vectors.length;
  const cents = Array.from({ length: k }, (_, i) => Float32Array.from(vectors[Math.floor((i * n) / k)]));
  const assign = new Int32Array(n);
  const nearest = (cs: Float32Array[]): void => {
    for (let i = 0; i < n; i++) {
      const v = vectors[i];
      let best = 0;
      let bestDot = -Infinity;
      for (let j = 0; j < cs.length; j++) {
        const c = cs[j];
        let dot = 0;
        for (let x = 0; x < d; x++) dot += v[x] * c[x];
        if (dot > bestDot) (bestDot = dot), (best = j);
      }
      assign[i] = best;
    }
  };
  for (let round = 0; round < KMEANS_ROUNDS; round++) {
    nearest(cents);
    const sums = Array.from({ length: k }, () => new Float64Array(d));
    const counts = new Uint32Array(k);
    for (let i = 0; i < n; i++) {
      const s = sums[assign[i]];
      counts[assign[i]]++;
      const v = vectors[i];
      for (let x = 0; x < d; x++) s[x] += v[x];
    }
    for (let j = 0; j < k; j++) if (counts[j] > 0) for (let x = 0; x < d; x++) cents[j][x] = sums[j][x] / counts[j];
  }
  const codes = new Int8Array(k * d);
  const scales = new Float32Array(k);
  cents.forEach((c, j) => {
    let max = 0;
    for (let x = 0; x < d; x++) max = Math.max(max, Math.abs(c[x]));
    scales[j] = max > 0 ? Math.fround(max / 127) : 0;
    for (let x = 0; x < d; x++) codes[j * d + x] = max > 0 ? Math.round(c[x] / scales[j]) : 0;
  });
  nearest(cents.map((_, j) => centroid(codes, scales, j, d)));
  return { codes, scales, assign };
}

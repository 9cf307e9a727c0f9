/**
 * Reads the semantic part of a bundle built with a static model (static-format.ts) on demand:
 * a query's vector from its tokens' rows (the vocabulary shards its characters name, then the row
 * shards of its token ids), and the approximate dense scores of the chunks in the clusters
 * nearest it. No model runtime: a lookup, a sum and a few thousand dot products.
 */
import type { Embedder, LazyDenseHits } from '../engine/contracts.ts';
import { catalogEntry } from '../models/catalog.ts';
import type { BundleFiles } from './bundle-files.ts';
import { shardFile as fileOf, type BundleFile, type BundleManifest } from './format.ts';
import {
  bitBytes, keyShard, type BundleStatic, type ClusterShardValue, type RowShardValue, type StaticCoreValue,
  type VocabShardValue,
} from './static-format.ts';
import { tokenizeStep } from './static-tokenizer.ts';

export class StaticDense {
  private core: Promise<StaticCoreValue> | undefined;
  private markSeen!: () => void;
  private readonly seen = new Promise<void>((resolve) => (this.markSeen = resolve));

  constructor(
    private readonly files: BundleFiles,
    private readonly entry: BundleStatic,
    /** Segment ids in manifest order (cluster shards name segments by position). */
    private readonly segmentIds: readonly number[],
  ) {}

  private readCore(): Promise<StaticCoreValue> {
    if (!this.core) {
      this.core = this.files.get<StaticCoreValue>(this.entry.core);
      this.core.then(() => this.markSeen(), () => (this.core = undefined));
    }
    return this.core;
  }

  /** Settles once a query has read the static core (never, if none does: the cache prune waits for it). */
  coreRead(): Promise<void> {
    return this.seen;
  }

  /** The row and cluster shards the static core lists. */
  async listedFiles(): Promise<BundleFile[]> {
    const core = await this.readCore();
    return [
      ...core.vocabShards.bytes.map((_, i) => fileOf('static/vocab', core.vocabShards, i)),
      ...core.rowShards.bytes.map((_, i) => fileOf('static/rows', core.rowShards, i)),
      ...core.clusterShards.bytes.map((_, i) => fileOf('static/cluster', core.clusterShards, i)),
    ];
  }

  /** Token ids of `text`, after reading the vocabulary shards its greedy match reaches (in rounds: tokenizeStep). */
  async tokenIds(text: string): Promise<number[]> {
    const core = await this.readCore();
    const t = core.tokenizer;
    const count = core.vocabShards.bytes.length;
    const vocab = new Map<string, number>();
    const read = new Set<number>();
    for (;;) {
      const step = tokenizeStep(t, text, (key) => read.has(keyShard(key, count)), vocab);
      if (step.ids) return step.ids;
      const shards = [...new Set([...step.missing].map((k) => keyShard(k, count)))];
      const values = await Promise.all(shards.map((i) => this.files.get<VocabShardValue>(fileOf('static/vocab', core.vocabShards, i))));
      for (const v of values) v.pieces.forEach((p, j) => vocab.set(p, v.ids[j]));
      for (const i of shards) read.add(i);
    }
  }

  /** The query's unit vector (normalised sum of its tokens' rows, as the model computes it); all zeros when no token has a row. */
  async embed(text: string): Promise<Float32Array> {
    const core = await this.readCore();
    const d = core.dimension;
    const ids = (await this.tokenIds(text)).filter((id) => id >= 0 && id < core.vocabSize);
    const per = core.rowsPerShard;
    const shards = [...new Set(ids.map((id) => Math.floor(id / per)))];
    const rows = new Map(await Promise.all(shards.map(async (i) => [i, await this.files.get<RowShardValue>(fileOf('static/rows', core.rowShards, i))] as const)));
    const sum = new Float64Array(d);
    for (const id of ids) {
      const r = rows.get(Math.floor(id / per))!;
      const at = id % per;
      if (r.codes && r.scales) {
        // The model's int8 graph: Cast then Mul by the row's scale, in float32.
        const s = r.scales[at];
        for (let x = 0; x < d; x++) sum[x] += Math.fround(r.codes[at * d + x] * s);
      } else if (r.floats) {
        for (let x = 0; x < d; x++) sum[x] += r.floats[at * d + x];
      }
    }
    let nn = 0;
    for (let x = 0; x < d; x++) nn += sum[x] * sum[x];
    const out = new Float32Array(d);
    if (!(nn > 0) || !Number.isFinite(nn)) return out; // nothing the model knows: no direction
    const inv = 1 / Math.sqrt(nn);
    for (let x = 0; x < d; x++) out[x] = sum[x] * inv;
    return out;
  }

  /**
   * Every chunk of the `probe` clusters whose centroids are nearest `query` (by dot product), with
   * its approximate cosine q·c + α·(q·s) (static-format.ts).
   */
  async nearest(query: Float32Array, probe?: number): Promise<LazyDenseHits> {
    const core = await this.readCore();
    const d = core.dimension;
    const k = core.clusterSizes.length;
    const p = Math.max(1, Math.min(k, probe ?? core.probe));
    const byCentroid = Array.from({ length: k }, (_, j) => {
      let dot = 0;
      for (let x = 0; x < d; x++) dot += query[x] * core.centroids[j * d + x];
      return { j, dot: dot * core.centroidScales[j] };
    }).sort((a, b) => b.dot - a.dot || a.j - b.j);
    const picked = byCentroid.slice(0, p);
    const shards = await Promise.all(picked.map((c) => this.files.get<ClusterShardValue>(fileOf('static/cluster', core.clusterShards, c.j))));
    const n = shards.reduce((s, v) => s + v.alpha.length, 0);
    const out: LazyDenseHits = { segment: new Int32Array(n), local: new Uint32Array(n), score: new Float32Array(n), probed: p, clusters: k };
    const bytes = bitBytes(d);
    // q·s = 2·(sum of q over set bits) − sum of q: one pass over the bits.
    let total = 0;
    for (let x = 0; x < d; x++) total += query[x];
    let at = 0;
    picked.forEach((c, ci) => {
      const v = shards[ci];
      for (let i = 0; i < v.alpha.length; i++, at++) {
        let pos = 0;
        for (let x = 0; x < d; x++) if (v.bits[i * bytes + (x >> 3)] & (1 << (x & 7))) pos += query[x];
        out.segment[at] = this.segmentIds[v.seg[i]];
        out.local[at] = v.local[i];
        out.score[at] = c.dot + v.alpha[i] * (2 * pos - total);
      }
    });
    return out;
  }
}

/**
 * The query embedder of a static-model bundle: the model's identity and fusion weights, vectors
 * from the bundle's rows (never a document: a bundle is read-only).
 */
export function staticEmbedder(dense: StaticDense, manifest: BundleManifest): Embedder {
  const model = manifest.model!;
  const entry = catalogEntry(model.name);
  return {
    identity: model.identity,
    dimension: model.dimension,
    normalized: true,
    ...(entry?.minSimilarity !== undefined ? { minSimilarity: entry.minSimilarity } : {}),
    ...(entry?.fusionWeights ? { fusionWeights: entry.fusionWeights } : {}),
    embed: async (texts, kind, signal) => {
      if (kind === 'document') throw new Error('a bundle is read-only: its documents were embedded when it was built');
      const out: Float32Array[] = [];
      for (const t of texts) {
        signal?.throwIfAborted();
        out.push(await dense.embed(t));
      }
      return out;
    },
  };
}

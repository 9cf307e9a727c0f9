/**
 * SPLADE as a retrieval lane for `npm run eval` (a measurement, not the product's pipeline): every
 * document of a collection encoded by the learned-sparse model (src/models/sparse-encoder.ts on
 * public/models/splade-tiny), an inverted index over the vocabulary ids, and queries scored by the
 * dot product of their sparse vector with each document's — SPLADE's own scoring.
 *
 * A document longer than the model's 256 word pieces is encoded in windows of WINDOW_WORDS words,
 * and its vector is the element-wise max of theirs (SPLADE max-pools over tokens anyway, so this
 * is the same pooling over more tokens). Document vectors are cached per model identity and text
 * in .cache/eval-splade/ (queries are encoded fresh).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RankedItem } from '../../src/protocol/fusion.ts';
import { resolveModelFolder } from '../../src/models/model-folder.ts';
import { SparseEncoder, type SparseWeights } from '../../src/models/sparse-encoder.ts';

/** ≈ 1.3 word pieces per English word: windows stay under 256 pieces. */
const WINDOW_WORDS = 160;

export class SpladeLane {
  /** term id → [document index, weight] pairs. */
  private readonly postings = new Map<number, { docs: number[]; weights: number[] }>();

  private constructor(
    private readonly encoder: SparseEncoder,
    private readonly ids: readonly string[],
    vectors: readonly SparseWeights[],
  ) {
    vectors.forEach((v, d) =>
      v.indices.forEach((t, j) => {
        let p = this.postings.get(t);
        if (!p) this.postings.set(t, (p = { docs: [], weights: [] }));
        p.docs.push(d);
        p.weights.push(v.values[j]);
      }),
    );
  }

  /** Loads the encoder from `modelBase` (a filesystem path ending in '/'). */
  static async encoder(modelBase: string, name = 'splade-tiny'): Promise<SparseEncoder> {
    return SparseEncoder.load({ modelBase }, await resolveModelFolder(modelBase, name, 'fp32', true));
  }

  /** Encodes (or reads from the cache) every document and indexes them. */
  static async index(encoder: SparseEncoder, docs: readonly { id: string; text: string }[], cacheDir: string): Promise<SpladeLane> {
    const cache = new VectorCache(join(cacheDir, `${encoder.identity.replace(/[^A-Za-z0-9_.-]+/g, '_')}.json`));
    const vectors: SparseWeights[] = [];
    const t0 = performance.now();
    let encoded = 0;
    for (const [i, d] of docs.entries()) {
      const key = createHash('sha1').update(d.text).digest('hex');
      let v = cache.get(key);
      if (!v) {
        v = maxPool(await encoder.encode(windows(d.text), 'document'));
        cache.set(key, v);
        encoded++;
        if (encoded % 500 === 0) {
          cache.save();
          console.error(`# splade: ${i + 1}/${docs.length} documents (${(encoded / ((performance.now() - t0) / 1000)).toFixed(1)} docs/s)`);
        }
      }
      vectors.push(v);
    }
    cache.save();
    if (encoded) console.error(`# splade: encoded ${encoded} documents in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return new SpladeLane(encoder, docs.map((d) => d.id), vectors);
  }

  /** The `k` best documents for `query`, by dot product of the sparse vectors. */
  async search(query: string, k: number): Promise<RankedItem[]> {
    const [q] = await this.encoder.encode([query], 'query');
    const scores = new Float64Array(this.ids.length);
    q.indices.forEach((t, j) => {
      const p = this.postings.get(t);
      if (p) for (let n = 0; n < p.docs.length; n++) scores[p.docs[n]] += q.values[j] * p.weights[n];
    });
    const hits: RankedItem[] = [];
    scores.forEach((s, d) => s > 0 && hits.push({ id: this.ids[d], score: s }));
    return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, k);
  }
}

/** The text in windows of WINDOW_WORDS words (one window when it is short). */
function windows(text: string): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length <= WINDOW_WORDS) return [text];
  const out: string[] = [];
  for (let at = 0; at < words.length; at += WINDOW_WORDS) out.push(words.slice(at, at + WINDOW_WORDS).join(' '));
  return out;
}

/** Element-wise max of sparse vectors. */
function maxPool(vs: readonly SparseWeights[]): SparseWeights {
  if (vs.length === 1) return vs[0];
  const m = new Map<number, number>();
  for (const v of vs) v.indices.forEach((t, j) => m.set(t, Math.max(m.get(t) ?? 0, v.values[j])));
  const indices = [...m.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((t) => m.get(t)!) };
}

/** Sparse document vectors by text hash, as one JSON file. */
class VectorCache {
  private readonly map = new Map<string, SparseWeights>();
  private dirty = false;

  constructor(private readonly path: string) {
    if (existsSync(path)) for (const [k, v] of Object.entries(JSON.parse(readFileSync(path, 'utf8')) as Record<string, SparseWeights>)) this.map.set(k, v);
  }
  get(key: string): SparseWeights | undefined {
    return this.map.get(key);
  }
  set(key: string, v: SparseWeights): void {
    this.map.set(key, v);
    this.dirty = true;
  }
  save(): void {
    if (!this.dirty) return;
    mkdirSync(join(this.path, '..'), { recursive: true });
    writeFileSync(`${this.path}.tmp`, JSON.stringify(Object.fromEntries(this.map)));
    renameSync(`${this.path}.tmp`, this.path);
    this.dirty = false;
  }
}

/**
 * Synthetic 384-d passage and query vectors for the bench, standing in for a sentence encoder
 * until one ships with the app (the default model is 100-d GloVe). Clustered like real sentence
 * embeddings, so approximate search is not flattered by uniform noise:
 *
 *   v = normalize(0.5·m + 0.6·topic(doc) + 0.5·subtopic + 0.6·noise)
 *
 * m is one direction every vector shares (sentence encoders are anisotropic: unrelated passages
 * still have cosine ≈ 0.2), the topic is the passage's document (title: passages of one document
 * are related), the subtopic one of 32 per topic drawn per passage, and the noise has a different
 * spread per dimension. Cosines: unrelated ≈ 0.2, same topic ≈ 0.5, same subtopic ≈ 0.7. A query
 * is its source passage's vector plus noise (cosine ≈ 0.85 to it), so its neighbours are the
 * passage's subtopic, whose members differ only by noise: a hard case for ANN.
 *
 * Deterministic: a passage's vector depends only on (seed, its text, its title), so equal texts
 * (duplicated mails, say) get equal vectors, as from a real encoder.
 */
import { rng } from '../src/util/prng.ts';

export const SYNTHETIC_DIMENSION = 384;
const TOPICS = 512;
const SUBTOPICS = 32;

/** A fast N(0, 1) approximation (sum of 4 uniforms, rescaled): the shape matters little here. */
function gauss(rand: () => number): number {
  return (rand() + rand() + rand() + rand() - 2) * 1.7320508;
}

function direction(seed: number, dim: number): Float32Array {
  const r = rng(seed);
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) v[i] = gauss(r);
  return normalizeInPlace(v);
}

export function normalizeInPlace(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let i = 0; i < v.length; i++) v[i] *= inv;
  return v;
}

export function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export class SyntheticVectors {
  readonly dim = SYNTHETIC_DIMENSION;
  private readonly mean: Float32Array;
  private readonly spread: Float32Array;
  private readonly topics = new Map<number, Float32Array>();

  constructor(private readonly seed = 384) {
    this.mean = direction(seed, this.dim);
    this.spread = Float32Array.from({ length: this.dim }, (_, i) => 0.4 + 1.2 * (((i * 7919) % this.dim) / this.dim));
  }

  private dir(key: number): Float32Array {
    let v = this.topics.get(key);
    if (!v) this.topics.set(key, (v = direction(this.seed * 1_000_003 + key, this.dim)));
    return v;
  }

  /** Vector of the passage with seed `key` (e.g. `hash(text)`) in document `title` into `out` at `at`. */
  passage(key: number, title: string, out: Float32Array, at = 0): void {
    const r = rng(this.seed ^ Math.imul(key + 1, 0x9e3779b1));
    const topic = hash(title) % TOPICS;
    const sub = Math.floor(r() * SUBTOPICS);
    const t = this.dir(topic);
    const s = this.dir(TOPICS + topic * SUBTOPICS + sub);
    const m = this.mean;
    const sp = this.spread;
    let ss = 0;
    // Noise of unit expected norm: each dimension N(0, spread²/dim · 1/mean(spread²)) ≈ N(0, spread²/dim).
    const k = 0.85 / Math.sqrt(this.dim);
    for (let i = 0; i < this.dim; i++) {
      const x = 0.5 * m[i] + 0.6 * t[i] + 0.5 * s[i] + k * sp[i] * gauss(r);
      out[at + i] = x;
      ss += x * x;
    }
    const inv = 1 / Math.sqrt(ss);
    for (let i = 0; i < this.dim; i++) out[at + i] *= inv;
  }

  /** A query near the passage with seed `key`: its vector plus noise, normalized. */
  query(key: number, title: string, salt: number): Float32Array {
    const v = new Float32Array(this.dim);
    this.passage(key, title, v);
    const r = rng(this.seed * 31 + salt);
    const k = 0.7 / Math.sqrt(this.dim);
    for (let i = 0; i < this.dim; i++) v[i] += k * gauss(r);
    return normalizeInPlace(v);
  }
}

/**
 * Exact top-k by cosine (dot product of unit vectors) of each query over `n` rows of `vectors`,
 * as row indices, best first: the ground truth for recall@k.
 */
export function exactTopK(vectors: Float32Array, n: number, dim: number, queries: Float32Array[], k: number): Int32Array[] {
  const out: Int32Array[] = [];
  const scores = new Float32Array(n);
  for (const q of queries) {
    for (let r = 0, at = 0; r < n; r++, at += dim) {
      let s = 0;
      for (let i = 0; i < dim; i++) s += q[i] * vectors[at + i];
      scores[r] = s;
    }
    // Partial selection: keep the k best in a small sorted array.
    const best: number[] = [];
    for (let r = 0; r < n; r++) {
      const s = scores[r];
      if (best.length === k && s <= scores[best[k - 1]]) continue;
      let p = best.length < k ? best.length : k - 1;
      if (best.length < k) best.push(r);
      while (p > 0 && scores[best[p - 1]] < s) {
        best[p] = best[p - 1];
        p--;
      }
      best[p] = r;
    }
    out.push(Int32Array.from(best));
  }
  return out;
}

/**
 * Derives a static (lookup-table) sentence-embedding model from frequency-sorted word vectors:
 * vocabulary selection, optional centring + common-component removal, SIF weights. Everything the
 * encoder does at run time is `normalize(sum_i row(token_i))`, so every transformation here is
 * baked into the rows. Pure functions of their inputs: the same table and options give the same
 * bytes.
 */
import type { GloveTable } from './read-glove.ts';

/** Special tokens at the head of the vocabulary; their rows are zero so they never move a vector. */
export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

export interface StaticModelOptions {
  /** Keep the N most frequent words that the tokenizer can produce as a single token. */
  vocabSize: number;
  /** SIF smoothing `a` in `a / (a + p(w))`; 0 disables weighting (plain mean). */
  sifA: number;
  /**
   * Alternative to SIF: weight = ln(1 + (rank + 1) / logRankOffset), an IDF under the Zipf prior
   * floored at the head of the vocabulary. Used when > 0 (then sifA is ignored).
   */
  logRankOffset?: number;
  /** Subtract the frequency-weighted mean word vector before weighting. */
  centre: boolean;
  /** Project out this many top principal directions of the (centred) word vectors. */
  removeComponents: number;
}

export interface StaticModel {
  dimension: number;
  /** Token strings; index = token id = matrix row. */
  tokens: string[];
  /** tokens.length × dimension, row-major. */
  matrix: Float32Array;
}

/**
 * True when the WordLevel tokenizer (BertNormalizer lowercase + strip accents, BertPreTokenizer)
 * can emit `word` as one token: lowercase, no accents, no punctuation, no whitespace. Words with
 * punctuation ("u.s.", "e-mail") would be split before lookup and are dead rows.
 */
export function isTokenizable(word: string): boolean {
  if (!word || word !== word.toLowerCase()) return false;
  if (word.normalize('NFD').replace(/\p{Mn}/gu, '') !== word) return false;
  return /^[\p{L}\p{N}]+$/u.test(word) && !/[\u4e00-\u9fff\u3400-\u4dbf]/u.test(word.length > 1 ? word : '');
}

/**
 * Zipf prior for the relative frequency of the word with 0-based rank `r` in a vocabulary of
 * `n` words: p(r) = 1 / ((r + 1) * H_n). GloVe does not ship counts, only their order.
 */
export function zipfProbability(rank: number, n: number): number {
  const harmonic = Math.log(n) + 0.5772156649;
  return 1 / ((rank + 1) * harmonic);
}

/** Builds the model; see StaticModelOptions. */
export function deriveStaticModel(table: GloveTable, options: StaticModelOptions): StaticModel {
  const d = table.dimension;
  const ranks: number[] = [];
  for (let r = 0; r < table.words.length && ranks.length < options.vocabSize; r++) {
    if (isTokenizable(table.words[r])) ranks.push(r);
  }
  if (ranks.length < options.vocabSize && table.words.length < table.size) {
    throw new Error(`only ${ranks.length} tokenizable words among the ${table.words.length} ranks read; read more`);
  }
  const n = table.size;
  const prob = ranks.map((r) => zipfProbability(r, n));

  // Rows in float64 while transforming; float32 only at the end.
  const rows = ranks.map((r) => Float64Array.from(table.vectors.subarray(r * d, (r + 1) * d)));

  if (options.centre || options.removeComponents > 0) {
    const mean = new Float64Array(d);
    const total = prob.reduce((s, p) => s + p, 0);
    rows.forEach((v, i) => v.forEach((x, j) => (mean[j] += (prob[i] / total) * x)));
    if (options.centre) for (const v of rows) for (let j = 0; j < d; j++) v[j] -= mean[j];
    if (options.removeComponents > 0) {
      const comps = topComponents(rows, prob, options.removeComponents);
      for (const v of rows) {
        for (const u of comps) {
          let dot = 0;
          for (let j = 0; j < d; j++) dot += v[j] * u[j];
          for (let j = 0; j < d; j++) v[j] -= dot * u[j];
        }
      }
    }
  }

  const tokens: string[] = [...SPECIAL_TOKENS, ...ranks.map((r) => table.words[r])];
  const matrix = new Float32Array(tokens.length * d);
  rows.forEach((v, i) => {
    const w = weightOf(options, prob[i], ranks[i]);
    const base = (SPECIAL_TOKENS.length + i) * d;
    for (let j = 0; j < d; j++) matrix[base + j] = w * v[j];
  });
  return { dimension: d, tokens, matrix };
}

/** The scalar baked into a word's row. */
function weightOf(options: StaticModelOptions, p: number, rank: number): number {
  if (options.logRankOffset && options.logRankOffset > 0) return Math.log1p((rank + 1) / options.logRankOffset);
  return options.sifA > 0 ? options.sifA / (options.sifA + p) : 1;
}

/**
 * Top-k eigenvectors of the frequency-weighted second-moment matrix sum_i p_i v_i v_i^T, by power
 * iteration with deflation from a fixed start vector (deterministic).
 */
function topComponents(rows: Float64Array[], weights: number[], k: number): Float64Array[] {
  const d = rows[0]?.length ?? 0;
  const c = new Float64Array(d * d);
  rows.forEach((v, i) => {
    const w = weights[i];
    for (let a = 0; a < d; a++) {
      const wa = w * v[a];
      for (let b = 0; b < d; b++) c[a * d + b] += wa * v[b];
    }
  });
  const out: Float64Array[] = [];
  for (let t = 0; t < k; t++) {
    let u = new Float64Array(d).fill(1 / Math.sqrt(d));
    for (let it = 0; it < 500; it++) {
      const next = new Float64Array(d);
      for (let a = 0; a < d; a++) {
        let s = 0;
        for (let b = 0; b < d; b++) s += c[a * d + b] * u[b];
        next[a] = s;
      }
      for (const p of out) {
        let dot = 0;
        for (let a = 0; a < d; a++) dot += next[a] * p[a];
        for (let a = 0; a < d; a++) next[a] -= dot * p[a];
      }
      const norm = Math.hypot(...next);
      for (let a = 0; a < d; a++) next[a] /= norm;
      u = next;
    }
    out.push(u);
  }
  return out;
}

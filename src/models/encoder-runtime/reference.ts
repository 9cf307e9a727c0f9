/**
 * The encoder's forward pass in plain JavaScript: the reference the WASM kernels are tested
 * against, and the runtime's last resort where WebAssembly SIMD is unavailable. Straightforward
 * loops with float64 accumulation; int8 layers compute exactly the integer sums the kernels do
 * (activations quantised per row to 7 bits, numerics.ts).
 *
 * One sequence at a time, unpadded: attention over a sequence's own tokens is what the padding
 * mask of a padded batch computes, so a text's hidden states do not depend on its batch.
 */
import { addWordRow, type BertWeights, type Linear, type Norm } from './bert-weights.ts';
import { gelu, quantizeRow, roundEven, type RowQuantization } from './numerics.ts';

/** A tokenised text: word-piece ids (special tokens included) and, optionally, token types (default 0). */
export interface EncoderInput {
  ids: ArrayLike<number>;
  types?: ArrayLike<number>;
}

/** y[n × out] = x[n × in]·W + b. */
export function linearForward(layer: Linear, x: Float32Array, n: number): Float32Array {
  const { inDim: K, outDim: N, bias } = layer;
  const y = new Float32Array(n * N);
  const acc = new Float64Array(N);
  if (layer.kind === 'f32') {
    for (let m = 0; m < n; m++) {
      acc.fill(0);
      for (let k = 0; k < K; k++) {
        const a = x[m * K + k];
        if (a === 0) continue;
        const row = k * N;
        for (let j = 0; j < N; j++) acc[j] += a * layer.weight[row + j];
      }
      for (let j = 0; j < N; j++) y[m * N + j] = acc[j] + bias[j];
    }
    return y;
  }
  const { weight, scale, smoothing } = layer;
  const columnSums = new Int32Array(N);
  for (let k = 0; k < K; k++) for (let j = 0; j < N; j++) columnSums[j] += weight[k * N + j];
  const row = new Float32Array(K);
  const codes = new Uint8Array(K);
  const iacc = new Int32Array(N);
  for (let m = 0; m < n; m++) {
    for (let k = 0; k < K; k++) row[k] = smoothing ? Math.fround(x[m * K + k] * smoothing[k]) : x[m * K + k];
    const q = quantizeRow(row, codes);
    iacc.fill(0);
    for (let k = 0; k < K; k++) {
      const c = codes[k];
      if (c === 0) continue;
      const w = k * N;
      for (let j = 0; j < N; j++) iacc[j] += c * weight[w + j];
    }
    for (let j = 0; j < N; j++) y[m * N + j] = q.scale * scale[j] * (iacc[j] - q.zero * columnSums[j]) + bias[j];
  }
  return y;
}

/** x ← LayerNorm(x + residual) per row, in place in `x`. */
export function addLayerNorm(x: Float32Array, residual: Float32Array | undefined, norm: Norm, n: number, eps: number): void {
  const H = norm.gamma.length;
  for (let m = 0; m < n; m++) {
    const at = m * H;
    let mean = 0;
    for (let j = 0; j < H; j++) {
      if (residual) x[at + j] += residual[at + j];
      mean += x[at + j];
    }
    mean /= H;
    let variance = 0;
    for (let j = 0; j < H; j++) variance += (x[at + j] - mean) ** 2;
    const inv = 1 / Math.sqrt(variance / H + eps);
    for (let j = 0; j < H; j++) x[at + j] = (x[at + j] - mean) * inv * norm.gamma[j] + norm.beta[j];
  }
}

/**
 * softmax(QKᵀ/√d)·V per head, over all n tokens of one sequence; q, k, v and the result are [n × H].
 * `int8Scores` computes QKᵀ as the WASM kernels do for int8 models (kernels/attention.ts): each
 * head's query row quantised to 7 bits with a zero point (quantizeRow), each key row to int8 with
 * one scale (maxabs/127), integer dot products.
 */
export function attention(q: Float32Array, k: Float32Array, v: Float32Array, n: number, H: number, heads: number, int8Scores = false): Float32Array {
  const d = H / heads;
  const scale = 1 / Math.sqrt(d);
  const out = new Float32Array(n * H);
  const p = new Float64Array(n);
  const score = int8Scores ? quantizedScores(q, k, n, H, heads) : floatScores(q, k, H, heads);
  for (let h = 0; h < heads; h++) {
    const o = h * d;
    for (let i = 0; i < n; i++) {
      let max = -Infinity;
      for (let j = 0; j < n; j++) {
        p[j] = score(h, i, j) * scale;
        if (p[j] > max) max = p[j];
      }
      let sum = 0;
      for (let j = 0; j < n; j++) sum += (p[j] = Math.exp(p[j] - max));
      for (let c = 0; c < d; c++) {
        let acc = 0;
        for (let j = 0; j < n; j++) acc += p[j] * v[j * H + o + c];
        out[i * H + o + c] = acc / sum;
      }
    }
  }
  return out;
}

/** The float score of query i and key j in head h (before the 1/√d scale). */
function floatScores(q: Float32Array, k: Float32Array, H: number, heads: number): (h: number, i: number, j: number) => number {
  const d = H / heads;
  return (h, i, j) => {
    let dot = 0;
    for (let c = 0, a = i * H + h * d, b = j * H + h * d; c < d; c++) dot += q[a + c] * k[b + c];
    return dot;
  };
}

/** The int8 score of query i and key j in head h (before the 1/√d scale), per `attention`'s comment. */
function quantizedScores(q: Float32Array, k: Float32Array, n: number, H: number, heads: number): (h: number, i: number, j: number) => number {
  const d = H / heads;
  const qCodes = new Uint8Array(n * H);
  const qRows: RowQuantization[] = [];
  const kCodes = new Int8Array(n * H);
  const kScale = new Float32Array(n * heads);
  const kSum = new Int32Array(n * heads);
  for (let h = 0; h < heads; h++) {
    for (let t = 0; t < n; t++) {
      const at = t * H + h * d;
      qRows[t * heads + h] = quantizeRow(q.subarray(at, at + d), qCodes.subarray(at, at + d));
      let max = 0;
      for (let c = 0; c < d; c++) max = Math.max(max, Math.abs(k[at + c]));
      const s = Math.fround(max / 127);
      const inv = s > 0 ? Math.fround(1 / s) : 0;
      kScale[t * heads + h] = s;
      for (let c = 0; c < d; c++) kSum[t * heads + h] += kCodes[at + c] = roundEven(Math.fround(k[at + c] * inv));
    }
  }
  return (h, i, j) => {
    const a = i * H + h * d;
    const b = j * H + h * d;
    let dot = 0;
    for (let c = 0; c < d; c++) dot += qCodes[a + c] * kCodes[b + c];
    const r = qRows[i * heads + h];
    return (dot - r.zero * kSum[j * heads + h]) * r.scale * kScale[j * heads + h];
  };
}

/** Word + position + type embeddings, then LayerNorm: [n × H]. */
export function embed(w: BertWeights, input: EncoderInput): Float32Array {
  const { hidden: H, vocab, maxPositions, typeVocab } = w.shape;
  const n = input.ids.length;
  if (n > maxPositions) throw new RangeError(`${n} tokens exceed the model's ${maxPositions} positions`);
  const x = new Float32Array(n * H);
  for (let t = 0; t < n; t++) {
    const id = input.ids[t];
    const type = input.types?.[t] ?? 0;
    if (!(id >= 0 && id < vocab)) throw new RangeError(`token id ${id} outside the vocabulary (${vocab})`);
    if (!(type >= 0 && type < typeVocab)) throw new RangeError(`token type ${type} outside 0..${typeVocab - 1}`);
    for (let j = 0; j < H; j++) x[t * H + j] = w.position[t * H + j] + w.tokenType[type * H + j];
    addWordRow(w.word, id, H, x, t * H);
  }
  addLayerNorm(x, undefined, w.embeddingNorm, n, w.shape.layerNormEps);
  return x;
}

/** The last hidden state of one sequence, [n × hidden]. */
export function referenceHidden(w: BertWeights, input: EncoderInput): Float32Array {
  const { hidden: H, heads, layerNormEps: eps } = w.shape;
  const n = input.ids.length;
  let x = embed(w, input);
  for (const layer of w.layers) {
    const context = attention(linearForward(layer.query, x, n), linearForward(layer.key, x, n), linearForward(layer.value, x, n), n, H, heads, w.dtype === 'q8');
    const a = linearForward(layer.attentionOutput, context, n);
    addLayerNorm(a, x, layer.attentionNorm, n, eps);
    const h = linearForward(layer.intermediate, a, n);
    for (let i = 0; i < h.length; i++) h[i] = gelu(h[i]);
    x = linearForward(layer.output, h, n);
    addLayerNorm(x, a, layer.outputNorm, n, eps);
  }
  return x;
}

/** The sentence vector of a hidden state [n × H]: mean over the tokens or the first ([CLS]) row, L2-normalised (zero stays zero). */
export function poolHidden(hidden: Float32Array, n: number, H: number, pooling: 'mean' | 'cls'): Float32Array {
  const v = new Float64Array(H);
  for (let t = 0; t < (pooling === 'cls' ? Math.min(1, n) : n); t++) for (let j = 0; j < H; j++) v[j] += hidden[t * H + j];
  let norm = 0;
  for (let j = 0; j < H; j++) norm += v[j] * v[j];
  norm = Math.sqrt(norm);
  return Float32Array.from(v, (x) => (norm > 0 && Number.isFinite(norm) ? x / norm : 0));
}

/** Sentence vectors of tokenised texts by the reference forward pass. */
export function referenceEmbed(w: BertWeights, inputs: readonly EncoderInput[], pooling: 'mean' | 'cls'): Float32Array[] {
  return inputs.map((input) => poolHidden(referenceHidden(w, input), input.ids.length, w.shape.hidden, pooling));
}

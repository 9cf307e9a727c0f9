/**
 * The encoder forward pass on the generated WebAssembly kernels (kernel-module.ts), for int8
 * weights: one memory per instance holding the packed weights and the activations of one batch.
 * A batch is its sequences concatenated without padding (M tokens in all): the linear layers run
 * over all M rows at once, attention per sequence over its own tokens. Per layer:
 *
 *   quantize(x) → GEMM [Q|K|V] → attention per sequence → quantize → GEMM → LN(· + x) = a
 *   quantize(a) → GEMM → GELU → quantize → GEMM → LN(· + a) = x
 *
 * The word, position and type embeddings are summed in JavaScript (a gather, no arithmetic to
 * speak of), then LayerNorm'd by the kernel.
 */
import { instantiate } from '../../util/wasm-compile.ts';
import { addWordRow, type BertWeights, type Int8Linear, type Linear } from './bert-weights.ts';
import type { EncoderKernels } from './kernel-module.ts';
import { attend, placeAttentionScratch, type AttentionScratch } from './kernels/attention.ts';
import { columnSums, gemmName, packWeights } from './kernels/gemm.ts';
import { GELU, layerNormName, quantizeName } from './kernels/rows.ts';
import type { EncoderInput } from './reference.ts';
import { yieldToEventLoop } from '../../util/abort.ts';
import { noteStep } from '../../util/heartbeat.ts';
import { runToEnd } from '../../util/slices.ts';

/** Tokens per batch the memory is sized for (8 passages of 256 word pieces). */
export const DEFAULT_MAX_TOKENS = 2048;
/** Rows past a batch's end the kernels may touch (attention's 4-row query blocks, 8-key steps). */
const SLACK_ROWS = 8;
const PAGE = 65536;

type Kernel = (...args: number[]) => void;

/** A linear layer placed in memory: byte offsets of its parts. */
interface PlacedLinear {
  K: number;
  N: number;
  weights: number;
  colSum: number;
  colScale: number;
  bias: number;
  smoothing: number;
}

interface PlacedLayer {
  qkv: PlacedLinear;
  attentionOutput: PlacedLinear;
  intermediate: PlacedLinear;
  output: PlacedLinear;
  attentionNorm: [gamma: number, beta: number];
  outputNorm: [gamma: number, beta: number];
}

/** A bump allocator over byte offsets, 64-byte aligned. */
class Layout {
  size = 64; // offset 0 stays unused
  take(bytes: number): number {
    const at = this.size;
    this.size = Math.ceil((at + bytes) / 64) * 64;
    return at;
  }
}

export class WasmBertEncoder {
  readonly maxTokens: number;
  private readonly memory: WebAssembly.Memory;
  private k: Record<string, Kernel>;
  private readonly layers: PlacedLayer[];
  private readonly embeddingNorm: [number, number];
  private readonly buf: { x: number; a: number; ctx: number; qkv: number; h: number; codes: number; rowScale: number; rowZero: number };
  private readonly scratch: AttentionScratch;

  /**
   * Lays the weights out and writes them into a fresh memory at once (holding the thread some
   * 100 ms for MiniLM); `create` does the same in slices.
   */
  constructor(
    readonly weights: BertWeights,
    readonly kernels: EncoderKernels,
    maxTokens = DEFAULT_MAX_TOKENS,
    placement: Placement = runToEnd(layOut(weights, maxTokens)),
  ) {
    this.maxTokens = maxTokens;
    this.buf = placement.buf;
    this.scratch = placement.scratch;
    this.embeddingNorm = placement.embeddingNorm;
    this.layers = placement.layers;
    this.memory = new WebAssembly.Memory({ initial: Math.ceil(placement.size / PAGE) });
    for (const [at, data] of placement.writes) new Uint8Array(this.memory.buffer, at, data.byteLength).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    this.k = instantiate<Record<string, Kernel>>(kernels.module, this.memory);
  }

  /**
   * The same encoder, its weights packed one linear layer per task: on the engine worker, which
   * must keep answering (a ping within 1 s, issue 44) while the model loads.
   */
  static async create(weights: BertWeights, kernels: EncoderKernels, maxTokens = DEFAULT_MAX_TOKENS): Promise<WasmBertEncoder> {
    const steps = layOut(weights, maxTokens);
    for (;;) {
      await yieldToEventLoop();
      const t0 = performance.now();
      const r = steps.next();
      noteStep('encoder: packing a layer', performance.now() - t0);
      if (r.done) return new WasmBertEncoder(weights, kernels, maxTokens, r.value);
    }
  }

  /** Bytes of WebAssembly memory this instance holds. */
  get memoryBytes(): number {
    return this.memory.buffer.byteLength;
  }

  /**
   * The last hidden state of each sequence ([n × hidden], a copy), for sequences of at most
   * `maxPositions` tokens and `maxTokens` tokens in all.
   */
  hidden(inputs: readonly EncoderInput[]): Float32Array[] {
    const { hidden: H, intermediate: I } = this.weights.shape;
    const total = inputs.reduce((n, s) => n + s.ids.length, 0);
    if (total > this.maxTokens) throw new RangeError(`${total} tokens exceed the batch capacity ${this.maxTokens}`);
    const M = Math.ceil(total / 4) * 4;
    const { x, a, ctx, qkv, h, codes, rowScale, rowZero } = this.buf;
    const eps = this.weights.shape.layerNormEps;
    this.writeEmbeddings(inputs, M);
    const k = this.k;
    k[layerNormName(H)](x, 0, this.embeddingNorm[0], this.embeddingNorm[1], M, eps);
    const linear = (l: PlacedLinear, input: number, out: number) => {
      k[quantizeName(l.K)](input, M, l.smoothing, codes, rowScale, rowZero);
      k[gemmName(l.K)](codes, M, l.weights, l.N, out, rowScale, rowZero, l.colSum, l.colScale, l.bias);
    };
    const heads = this.weights.shape.heads;
    for (const layer of this.layers) {
      linear(layer.qkv, x, qkv);
      let row = 0;
      for (const s of inputs) {
        attend(k, H, heads, qkv + row * 3 * H * 4, s.ids.length, ctx + row * H * 4, this.scratch);
        row += s.ids.length;
      }
      linear(layer.attentionOutput, ctx, a);
      k[layerNormName(H)](a, x, layer.attentionNorm[0], layer.attentionNorm[1], M, eps);
      linear(layer.intermediate, a, h);
      k[GELU](h, M * I);
      linear(layer.output, h, x);
      k[layerNormName(H)](x, a, layer.outputNorm[0], layer.outputNorm[1], M, eps);
    }
    const out: Float32Array[] = [];
    let row = 0;
    for (const s of inputs) {
      out.push(new Float32Array(this.memory.buffer, x + row * H * 4, s.ids.length * H).slice());
      row += s.ids.length;
    }
    return out;
  }

  /** x[t] = word[id] + position[t within its sequence] + type[type]; rows past the batch zeroed. */
  private writeEmbeddings(inputs: readonly EncoderInput[], M: number): void {
    const w = this.weights;
    const { hidden: H, vocab, typeVocab, maxPositions } = w.shape;
    const x = new Float32Array(this.memory.buffer, this.buf.x, (M + SLACK_ROWS) * H);
    let row = 0;
    for (const s of inputs) {
      const n = s.ids.length;
      if (n > maxPositions) throw new RangeError(`${n} tokens exceed the model's ${maxPositions} positions`);
      for (let t = 0; t < n; t++, row++) {
        const id = s.ids[t];
        const type = s.types?.[t] ?? 0;
        if (!(id >= 0 && id < vocab)) throw new RangeError(`token id ${id} outside the vocabulary (${vocab})`);
        if (!(type >= 0 && type < typeVocab)) throw new RangeError(`token type ${type} outside 0..${typeVocab - 1}`);
        const o = row * H;
        const pos = t * H;
        const ty = type * H;
        for (let j = 0; j < H; j++) x[o + j] = w.position[pos + j] + w.tokenType[ty + j];
        addWordRow(w.word, id, H, x, o);
      }
    }
    x.fill(0, row * H);
  }
}

/** Where everything lies in an encoder's memory, and what to write there. */
interface Placement {
  size: number;
  writes: [number, Int8Array | Int32Array | Float32Array][];
  buf: { x: number; a: number; ctx: number; qkv: number; h: number; codes: number; rowScale: number; rowZero: number };
  scratch: AttentionScratch;
  embeddingNorm: [number, number];
  layers: PlacedLayer[];
}

/** Lays out the memory and packs the weights, pausing (yielding) after each linear layer. */
function* layOut(weights: BertWeights, maxTokens: number): Generator<void, Placement> {
  const { hidden: H, intermediate: I, heads, layers, maxPositions } = weights.shape;
  if (weights.dtype !== 'q8') throw new Error('the WASM encoder runs int8 weights only');
  if (H % 16 || I % 16 || (H / heads) % 8) throw new Error(`the WASM encoder needs hidden and intermediate widths that are multiples of 16 and a head size that is a multiple of 8 (got ${H}, ${I}, ${H / heads})`);
  const layout = new Layout();
  const rows = maxTokens + SLACK_ROWS;
  const seq = maxPositions + SLACK_ROWS;
  const buf = {
    x: layout.take(rows * H * 4),
    a: layout.take(rows * H * 4),
    ctx: layout.take(rows * H * 4),
    qkv: layout.take(rows * 3 * H * 4),
    h: layout.take(rows * I * 4),
    codes: layout.take(rows * Math.max(H, I)),
    rowScale: layout.take(rows * 4),
    rowZero: layout.take(rows * 4),
  };
  const scratch = placeAttentionScratch(H, heads, seq, (bytes) => layout.take(bytes)); // fresh memory: `zeros` is zeros
  // Weights: placed now, written once the memory exists.
  const writes: [number, Int8Array | Int32Array | Float32Array][] = [];
  const ones = new Map<number, number>();
  const onesOf = (K: number) => {
    if (!ones.has(K)) {
      const at = layout.take(K * 4);
      writes.push([at, new Float32Array(K).fill(1)]);
      ones.set(K, at);
    }
    return ones.get(K)!;
  };
  const place = (parts: Int8Linear[], scaleFirst = 1): PlacedLinear => {
    const K = parts[0].inDim;
    const N = parts.reduce((n, l) => n + l.outDim, 0);
    // Concatenate the parts' columns ([Q | K | V] for the fused projection).
    const w = new Int8Array(K * N);
    const colScale = new Float32Array(N);
    const bias = new Float32Array(N);
    let col = 0;
    parts.forEach((l, i) => {
      const f = i === 0 ? scaleFirst : 1;
      for (let k = 0; k < K; k++) w.set(l.weight.subarray(k * l.outDim, (k + 1) * l.outDim), k * N + col);
      for (let n = 0; n < l.outDim; n++) {
        colScale[col + n] = l.scale[n] * f;
        bias[col + n] = l.bias[n] * f;
      }
      col += l.outDim;
    });
    const placed: PlacedLinear = {
      K,
      N,
      weights: layout.take(K * N),
      colSum: layout.take(N * 4),
      colScale: layout.take(N * 4),
      bias: layout.take(N * 4),
      smoothing: parts[0].smoothing ? layout.take(K * 4) : onesOf(K),
    };
    writes.push([placed.weights, packWeights(w, K, N)], [placed.colSum, columnSums(w, K, N)], [placed.colScale, colScale], [placed.bias, bias]);
    if (parts[0].smoothing) writes.push([placed.smoothing, parts[0].smoothing]);
    return placed;
  };
  const int8 = (l: Linear): Int8Linear => {
    if (l.kind !== 'i8') throw new Error('the WASM encoder runs int8 weights only');
    return l;
  };
  const norm = (n: { gamma: Float32Array; beta: Float32Array }): [number, number] => {
    const g = layout.take(H * 4);
    const b = layout.take(H * 4);
    writes.push([g, n.gamma], [b, n.beta]);
    return [g, b];
  };
  const embeddingNorm = norm(weights.embeddingNorm);
  const placed: PlacedLayer[] = [];
  for (const l of weights.layers) {
    const [q, k, v] = [int8(l.query), int8(l.key), int8(l.value)];
    if (!sameSmoothing(q, k) || !sameSmoothing(q, v)) throw new Error('query, key and value are smoothed differently: cannot fuse them');
    const qkv = place([q, k, v], 1 / Math.sqrt(H / heads));
    yield;
    const attentionOutput = place([int8(l.attentionOutput)]);
    yield;
    const intermediate = place([int8(l.intermediate)]);
    yield;
    const output = place([int8(l.output)]);
    yield;
    placed.push({ qkv, attentionOutput, intermediate, output, attentionNorm: norm(l.attentionNorm), outputNorm: norm(l.outputNorm) });
  }
  if (placed.length !== layers) throw new Error('layer count mismatch');
  return { size: layout.size, writes, buf, scratch, embeddingNorm, layers: placed };
}

function sameSmoothing(a: Int8Linear, b: Int8Linear): boolean {
  if (!a.smoothing || !b.smoothing) return !a.smoothing && !b.smoothing;
  return a.smoothing.every((v, i) => v === b.smoothing![i]);
}

/**
 * Writes a BERT encoder (BertModel, post-LN, absolute positions, erf GELU) as an ONNX graph
 * straight from its safetensors weights, in the shape of the Xenova/Optimum exports that
 * transformers.js runs for `feature-extraction`: inputs `input_ids`, `attention_mask`,
 * `token_type_ids` (int64 [batch, seq]), output `last_hidden_state` (float32 [batch, seq, hidden]).
 * No pooler: sentence encoders pool outside the graph. `opts.head` replaces that output with a head
 * built on the last hidden state (splade-head.ts: the MLM head and SPLADE's pooling).
 *
 * Opset 17 (LayerNormalization). The int8 variant ("dynamic quantisation", as onnxruntime's
 * quantize_dynamic does it, but with per-output-channel weight scales):
 *   - every weight MatMul (Q, K, V, attention output, FFN in/out): the activation is quantised at
 *     run time by DynamicQuantizeLinear (uint8, per tensor), the weight is int8 symmetric per
 *     output column, MatMulInteger accumulates in int32, and Cast·(a_scale·w_scale[col]) + bias
 *     rebuilds float32 (onnxruntime fuses this into DynamicQuantizeMatMul / MatMulIntegerToFloat);
 *   - the word-embedding table is int8 per row (Gather int8 rows and their scales, Cast, Mul);
 *   - LayerNorm, softmax attention (QKᵀ, ·V), GELU, biases and position/type tables stay float32;
 *   - `opts.linear` may keep chosen MatMuls float32 (`none`) or make them weight-only int8
 *     (DequantizeLinear + MatMul: accurate, but onnxruntime dequantises on every run, so slower);
 *   - `opts.smoothing` shrinks measured outlier channels of a MatMul's input by a power of two
 *     before its activation is quantised, and grows the weight rows by the same factor.
 */
import { valueInfo } from './onnx-graph.ts';
import { GraphBuilder, T } from './onnx-builder.ts';
import { quantizeQ4 } from './q4.ts';
import { int8Columns, q4Matrix, q4Rows } from './q4-graph.ts';
import type { SafeTensor } from './safetensors.ts';

export interface BertConfig {
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  intermediate_size: number;
  max_position_embeddings: number;
  type_vocab_size: number;
  vocab_size: number;
  layer_norm_eps: number;
  hidden_act: string;
  position_embedding_type?: string;
}

/** Checks the config is one this writer implements. */
export function checkBertConfig(config: Record<string, unknown>): BertConfig {
  const c = config as unknown as BertConfig & { model_type?: string };
  if (c.model_type !== 'bert') throw new Error(`model_type ${c.model_type}: only bert is supported`);
  if (c.hidden_act !== 'gelu') throw new Error(`hidden_act ${c.hidden_act}: only erf gelu is supported`);
  if ((c.position_embedding_type ?? 'absolute') !== 'absolute') throw new Error(`position_embedding_type ${c.position_embedding_type} unsupported`);
  if (c.hidden_size % c.num_attention_heads) throw new Error('hidden_size is not a multiple of num_attention_heads');
  return c;
}

/** Reads one weight tensor by its Hugging Face name and checks its shape. */
export type TensorGetter = (name: string, shape: number[]) => SafeTensor;

/** A LayerNorm's parameters under the TF-era names older BERT checkpoints use (transformers renames them on load too). */
const legacyName = (name: string): string => name.replace(/LayerNorm\.weight$/, 'LayerNorm.gamma').replace(/LayerNorm\.bias$/, 'LayerNorm.beta');

/** Looks up a tensor by name, with the `bert.` prefix and the legacy LayerNorm names some checkpoints carry, and checks its shape. */
export function tensorGetter(tensors: Map<string, SafeTensor>): TensorGetter {
  return (name: string, shape: number[]): SafeTensor => {
    const t = [name, legacyName(name)].map((n) => tensors.get(n) ?? tensors.get(`bert.${n}`)).find((x) => x !== undefined);
    if (!t) throw new Error(`weights: no tensor ${name}`);
    if (t.shape.join(',') !== shape.join(',')) throw new Error(`weights: ${name} is [${t.shape}], expected [${shape}]`);
    return t;
  };
}

/** `tensorGetter` for the fp32 data alone. */
export function getter(tensors: Map<string, SafeTensor>) {
  const tensor = tensorGetter(tensors);
  return (name: string, shape: number[]): Float32Array => tensor(name, shape).data;
}

/** PyTorch Linear weight [out, in] → MatMul's [in, out]. */
export function transpose(w: Float32Array, out: number, inp: number): Float32Array {
  const t = new Float32Array(w.length);
  for (let o = 0; o < out; o++) for (let i = 0; i < inp; i++) t[i * out + o] = w[o * inp + i];
  return t;
}

/** Symmetric int8 per column of a [rows, cols] matrix: scale_c = max|col|/127. */
export function quantizeColumns(w: Float32Array, rows: number, cols: number): { q: Int8Array; scales: Float32Array } {
  const scales = new Float32Array(cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) scales[c] = Math.max(scales[c], Math.abs(w[r * cols + c]));
  for (let c = 0; c < cols; c++) scales[c] = Math.fround(scales[c] / 127) || 1;
  const q = new Int8Array(w.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) q[r * cols + c] = Math.max(-127, Math.min(127, Math.round(w[r * cols + c] / scales[c])));
  return { q, scales };
}

/** Symmetric int8 per row of a [rows, cols] matrix. */
export function quantizeRowsOf(w: Float32Array, rows: number, cols: number): { q: Int8Array; scales: Float32Array } {
  const scales = new Float32Array(rows);
  const q = new Int8Array(w.length);
  for (let r = 0; r < rows; r++) {
    let m = 0;
    for (let c = 0; c < cols; c++) m = Math.max(m, Math.abs(w[r * cols + c]));
    const s = Math.fround(m / 127) || 1;
    scales[r] = s;
    for (let c = 0; c < cols; c++) q[r * cols + c] = Math.max(-127, Math.min(127, Math.round(w[r * cols + c] / s)));
  }
  return { q, scales };
}

/** Symmetric int8 values as uint8 with zero point 128 (q + 128), the same numbers. */
export function offsetBinary(q: Int8Array): Uint8Array {
  const u = new Uint8Array(q.length);
  for (let i = 0; i < q.length; i++) u[i] = q[i] + 128;
  return u;
}

/** How a weight MatMul is quantised in the int8 graph. */
export type LinearQuantization = 'dynamic' | 'weight-only' | 'none';

export interface BertOnnxOptions {
  quantized: boolean;
  /**
   * int8 graph only: the quantisation of each weight MatMul, by its role (`query`, `key`, `value`,
   * `attention.output`, `intermediate`, `output`). Default: `dynamic` for all.
   */
  linear?: (role: string, layer: number) => LinearQuantization;
  /**
   * How the word-embedding table is stored: `float`, `int8` (one scale per row, dequantised after
   * the Gather) or `q4` (Q4_0 blocks, the tensor's own `q4` when it has them, unpacked after the
   * Gather: scripts/models/q4-graph.ts). Default: `int8` in the int8 graph, `float` otherwise.
   */
  wordEmbeddings?: 'float' | 'int8' | 'q4';
  /**
   * How the weight matrices of the MatMuls are stored in the file: `float` (default; int8 in the
   * int8 graph), or `q4`: their Q4_0 blocks, rebuilt by a constant subgraph that onnxruntime folds
   * when the session is created — into float32 for the float graph, into int8 per output column
   * (the same quantisation as `float` storage, applied to the 4-bit values) for the int8 graph.
   * So a 4-bit source ships at 4.5 bits per weight and computes as it would from a float file.
   */
  weights?: 'float' | 'q4';
  /**
   * int8 graph only: for a dynamically quantised MatMul (by role and layer), input channels to
   * shrink before the activation is quantised (channel → power-of-two factor s). The activation
   * channel is multiplied by 1/s and the weight row by s, both exact in float32, so the float
   * product is unchanged while an outlier channel no longer sets the per-tensor uint8 scale
   * alone (SmoothQuant's migration of outliers into the weights, limited to measured channels).
   */
  smoothing?: (role: string, layer: number) => ReadonlyMap<number, number> | undefined;
  /**
   * A head on the encoder's last hidden state ([batch, seq, hidden]) that adds its nodes and
   * returns the graph's one output (e.g. splade-head.ts). Default: output `last_hidden_state`.
   */
  head?: (h: BertHeadInputs) => ReturnType<typeof valueInfo>;
  /** Graph doc string (provenance). */
  doc: string;
}

/** What a head is given to build on. */
export interface BertHeadInputs {
  g: GraphBuilder;
  /** The encoder's last hidden state. */
  hidden: string;
  tensor: TensorGetter;
  /** The float32 word-embedding initializer, when the table is stored as float (for a tied decoder). */
  wordEmbeddings?: string;
}

/** Multiplies rows of the [inDim, outDim] weight by their factors (see `smoothing`); returns the input's per-channel 1/s. */
export function smoothWeights(w: Float32Array, inDim: number, outDim: number, factors: ReadonlyMap<number, number>, name: string): Float32Array {
  const inverse = new Float32Array(inDim).fill(1);
  for (const [row, s] of factors) {
    if (!(Number.isInteger(row) && row >= 0 && row < inDim && s >= 1 && Number.isInteger(Math.log2(s)))) throw new Error(`${name}: smoothing ${row} → ${s} is not an input channel and a power of two ≥ 1`);
    inverse[row] = 1 / s;
    for (let c = 0; c < outDim; c++) w[row * outDim + c] *= s;
  }
  return inverse;
}

export function buildBertOnnx(tensors: Map<string, SafeTensor>, config: BertConfig, opts: BertOnnxOptions): Uint8Array {
  const { hidden_size: H, num_attention_heads: NH, intermediate_size: I, max_position_embeddings: P, type_vocab_size: TV, vocab_size: V, layer_norm_eps: eps } = config;
  const HD = H / NH;
  const tensor = tensorGetter(tensors);
  const get = (name: string, shape: number[]) => tensor(name, shape).data;
  const g = new GraphBuilder();
  const q8 = opts.quantized;

  const layerNorm = (x: string, prefix: string): string =>
    g.op('LayerNormalization', [x, g.float(`${prefix}.weight`, [H], get(`${prefix}.weight`, [H])), g.float(`${prefix}.bias`, [H], get(`${prefix}.bias`, [H]))], { axis: -1, epsilon: { f: eps } });

  let zeroPoint: string | undefined;
  const weightZeroPoint = (): string => (zeroPoint ??= g.uint8('const.weight_zero_point', [], Uint8Array.of(128)));

  // Q, K and V read one input with the same factors: one smoothing Mul serves the three.
  const smoothed = new Map<string, string>();
  const smoothInput = (input: string, prefix: string, inDim: number, factors: ReadonlyMap<number, number>, inverse: Float32Array): string => {
    const key = `${input}|${[...factors].join(';')}`;
    const x = smoothed.get(key) ?? g.op('Mul', [input, g.float(`${prefix}.input_smoothing`, [inDim], inverse)]);
    smoothed.set(key, x);
    return x;
  };
  /** `weights: 'q4'`: the weight comes from its Q4_0 blocks through a constant subgraph (see the option). */
  const linearQ4 = (input: string, prefix: string, inDim: number, outDim: number, mode: LinearQuantization, factors: ReadonlyMap<number, number> | undefined, b: string): string => {
    const t = tensor(`${prefix}.weight`, [outDim, inDim]);
    let w = g.op('Transpose', [q4Matrix(g, `${prefix}.weight`, t.q4 ?? quantizeQ4(t.data), outDim, inDim)], { perm: [1, 0] });
    if (mode === 'none') return g.op('Add', [g.op('MatMul', [input, w]), b]);
    if (mode === 'weight-only') throw new Error(`${prefix}: weight-only quantisation is not offered with q4 weight storage`);
    let x = input;
    if (factors?.size) {
      const grow = new Float32Array(inDim).fill(1);
      for (const [row, s] of factors) grow[row] = s;
      const inverse = smoothWeights(new Float32Array(inDim), inDim, 1, factors, prefix);
      w = g.op('Mul', [w, g.float(`${prefix}.weight_smoothing`, [inDim, 1], grow)]);
      x = smoothInput(input, prefix, inDim, factors, inverse);
    }
    const { q, scale: wScale } = int8Columns(g, w);
    const [xq, xScale, xZero] = g.ops('DynamicQuantizeLinear', [x], 3);
    const acc = g.op('MatMulInteger', [xq, q, xZero, weightZeroPoint()]);
    return g.op('Add', [g.op('Mul', [g.op('Cast', [acc], { to: T.FLOAT }), g.op('Mul', [xScale, wScale])]), b]);
  };
  const linear = (input: string, prefix: string, inDim: number, outDim: number, role: string, layer: number): string => {
    let x = input;
    const b = g.float(`${prefix}.bias`, [outDim], get(`${prefix}.bias`, [outDim]));
    const mode = q8 ? (opts.linear?.(role, layer) ?? 'dynamic') : 'none';
    if (opts.weights === 'q4') return linearQ4(input, prefix, inDim, outDim, mode, opts.smoothing?.(role, layer), b);
    const w = transpose(get(`${prefix}.weight`, [outDim, inDim]), outDim, inDim);
    if (mode === 'none') return g.op('Add', [g.op('MatMul', [x, g.float(`${prefix}.weight`, [inDim, outDim], w)]), b]);
    if (mode === 'weight-only') {
      const { q, scales } = quantizeColumns(w, inDim, outDim);
      const deq = g.op('DequantizeLinear', [g.int8(`${prefix}.weight_quantized`, [inDim, outDim], q), g.float(`${prefix}.weight_scale`, [outDim], scales)], { axis: 1 });
      return g.op('Add', [g.op('MatMul', [x, deq]), b]);
    }
    const factors = opts.smoothing?.(role, layer);
    if (factors?.size) x = smoothInput(input, prefix, inDim, factors, smoothWeights(w, inDim, outDim, factors, prefix));
    const { q, scales } = quantizeColumns(w, inDim, outDim);
    const [xq, xScale, xZero] = g.ops('DynamicQuantizeLinear', [x], 3);
    // The symmetric int8 weights travel as uint8 with zero point 128 (the same values): onnxruntime's
    // uint8 × int8 kernel on x86 without VNNI (AVX2) adds pairs of products in saturating int16
    // (vpmaddubsw), which broke q8 parity on such CPUs (min cosine 0.62); uint8 × uint8 is exact everywhere.
    const acc = g.op('MatMulInteger', [xq, g.uint8(`${prefix}.weight_quantized`, [inDim, outDim], offsetBinary(q)), xZero, weightZeroPoint()]);
    const scale = g.op('Mul', [xScale, g.float(`${prefix}.weight_scale`, [outDim], scales)]);
    return g.op('Add', [g.op('Mul', [g.op('Cast', [acc], { to: T.FLOAT }), scale]), b]);
  };

  // Embeddings: word[input_ids] + position[0..seq) + type[token_type_ids], then LayerNorm.
  let words: string;
  const wordTensor = tensor('embeddings.word_embeddings.weight', [V, H]);
  const wordTable = wordTensor.data;
  const wordStorage = opts.wordEmbeddings ?? (q8 ? 'int8' : 'float');
  if (wordStorage === 'q4') {
    words = q4Rows(g, 'embeddings.word_embeddings.weight', wordTensor.q4 ?? quantizeQ4(wordTable), V, H, 'input_ids');
  } else if (wordStorage === 'int8') {
    const { q, scales } = quantizeRowsOf(wordTable, V, H);
    const rows = g.op('Gather', [g.int8('embeddings.word_embeddings.weight_quantized', [V, H], q), 'input_ids'], { axis: 0 });
    const rowScales = g.op('Gather', [g.float('embeddings.word_embeddings.weight_scale', [V, 1], scales), 'input_ids'], { axis: 0 });
    words = g.op('Mul', [g.op('Cast', [rows], { to: T.FLOAT }), rowScales]);
  } else {
    words = g.op('Gather', [g.float('embeddings.word_embeddings.weight', [V, H], wordTable), 'input_ids'], { axis: 0 });
  }
  const floatWords = wordStorage === 'float' ? 'embeddings.word_embeddings.weight' : undefined;
  const seqLen = g.op('Slice', [g.op('Shape', ['input_ids']), g.int64('const.one', [1]), g.int64('const.two', [2])]);
  const positions = g.op('Slice', [g.float('embeddings.position_embeddings.weight', [P, H], get('embeddings.position_embeddings.weight', [P, H])), g.int64('const.zero', [0]), seqLen, 'const.zero']);
  const types = g.op('Gather', [g.float('embeddings.token_type_embeddings.weight', [TV, H], get('embeddings.token_type_embeddings.weight', [TV, H])), 'token_type_ids'], { axis: 0 });
  let x = layerNorm(g.op('Add', [g.op('Add', [words, positions]), types]), 'embeddings.LayerNorm');

  // Additive attention mask [batch, 1, 1, seq]: 0 where attended, float32 min where padded (as transformers does).
  const mask = g.op('Unsqueeze', [g.op('Cast', ['attention_mask'], { to: T.FLOAT }), g.int64('const.mask_axes', [1, 2])]);
  const maskBias = g.op('Mul', [g.op('Sub', [g.scalar('const.onef', 1), mask]), g.scalar('const.float_min', -3.4028234663852886e38)]);
  const splitHeads = g.int64('const.split_heads', [0, 0, NH, HD]);
  const mergeHeads = g.int64('const.merge_heads', [0, 0, H]);
  const scale = g.scalar('const.attention_scale', Math.sqrt(HD));
  const sqrt2 = g.scalar('const.sqrt2', Math.SQRT2);
  const half = g.scalar('const.half', 0.5);

  for (let l = 0; l < config.num_hidden_layers; l++) {
    const p = `encoder.layer.${l}`;
    const heads = (t: string, perm: number[]) => g.op('Transpose', [g.op('Reshape', [t, splitHeads])], { perm });
    const q = heads(linear(x, `${p}.attention.self.query`, H, H, 'query', l), [0, 2, 1, 3]);
    const kT = heads(linear(x, `${p}.attention.self.key`, H, H, 'key', l), [0, 2, 3, 1]);
    const v = heads(linear(x, `${p}.attention.self.value`, H, H, 'value', l), [0, 2, 1, 3]);
    const scores = g.op('Add', [g.op('Div', [g.op('MatMul', [q, kT]), scale]), maskBias]);
    const probs = g.op('Softmax', [scores], { axis: -1 });
    const context = g.op('Reshape', [g.op('Transpose', [g.op('MatMul', [probs, v])], { perm: [0, 2, 1, 3] }), mergeHeads]);
    x = layerNorm(g.op('Add', [linear(context, `${p}.attention.output.dense`, H, H, 'attention.output', l), x]), `${p}.attention.output.LayerNorm`);
    const h = linear(x, `${p}.intermediate.dense`, H, I, 'intermediate', l);
    const gelu = g.op('Mul', [g.op('Mul', [h, g.op('Add', [g.op('Erf', [g.op('Div', [h, sqrt2])]), 'const.onef'])]), half]);
    x = layerNorm(g.op('Add', [linear(gelu, `${p}.output.dense`, I, H, 'output', l), x]), `${p}.output.LayerNorm`);
  }
  let output: ReturnType<typeof valueInfo>;
  if (opts.head) {
    output = opts.head({ g, hidden: x, tensor, wordEmbeddings: floatWords });
  } else {
    g.op('Identity', [x], {}, ['last_hidden_state']);
    output = valueInfo('last_hidden_state', T.FLOAT, ['batch_size', 'sequence_length', H]);
  }

  return g.encode({
    name: 'bert_encoder',
    doc: opts.doc,
    inputs: ['input_ids', 'attention_mask', 'token_type_ids'].map((n) => valueInfo(n, T.INT64, ['batch_size', 'sequence_length'])),
    outputs: [output],
    opset: 17,
    producer: 'rcp-in-page/scripts/models/bert-onnx.ts',
  });
}

/**
 * The BERT encoder's weights as typed structures, taken from a weight file (weights-file.ts) and
 * checked against its shape: what both the plain-JS reference and the WASM runtime read.
 */
import { addQ4Row, checkQ4, q4ToInt8Columns, type Q4Matrix } from './q4.ts';
import type { EncoderShape, EncoderWeights } from './weights-file.ts';

/** A float32 linear layer: y = x·W + b, W stored [in, out]. */
export interface FloatLinear {
  kind: 'f32';
  inDim: number;
  outDim: number;
  weight: Float32Array;
  bias: Float32Array;
}

/**
 * An int8 linear layer: W ≈ q·scale[out] (symmetric per output column), stored [in, out]; the input
 * is first multiplied by `smoothing` (1/s per input channel) when the build smoothed outliers.
 */
export interface Int8Linear {
  kind: 'i8';
  inDim: number;
  outDim: number;
  weight: Int8Array;
  scale: Float32Array;
  bias: Float32Array;
  smoothing?: Float32Array;
}

export type Linear = FloatLinear | Int8Linear;

export interface Norm {
  gamma: Float32Array;
  beta: Float32Array;
}

export interface BertLayer {
  query: Linear;
  key: Linear;
  value: Linear;
  attentionOutput: Linear;
  attentionNorm: Norm;
  intermediate: Linear;
  output: Linear;
  outputNorm: Norm;
}

/** The word table: float32 rows, int8 rows with one scale per row, or Q4_0 rows (q4.ts). */
export type WordTable = { kind: 'f32'; rows: Float32Array } | { kind: 'i8'; rows: Int8Array; scale: Float32Array } | { kind: 'q4'; rows: Q4Matrix };

/** Adds word `id`'s row of `table` ([·, H]) to `out[at .. at + H)`. */
export function addWordRow(table: WordTable, id: number, H: number, out: Float32Array, at: number): void {
  if (table.kind === 'q4') return addQ4Row(table.rows, id, out, at);
  const base = id * H;
  if (table.kind === 'i8') {
    const s = table.scale[id];
    for (let j = 0; j < H; j++) out[at + j] += table.rows[base + j] * s;
  } else {
    for (let j = 0; j < H; j++) out[at + j] += table.rows[base + j];
  }
}

/** The 4-bit form of tensor `name` ([rows, cols]) when the file stores it so. */
function q4Of(file: EncoderWeights, name: string, rows: number, cols: number): Q4Matrix | undefined {
  if (!file.find(`${name}_q4codes`)) return undefined;
  return checkQ4(name, { rows, cols, codes: file.uint8(`${name}_q4codes`, [rows, cols / 2]), scales: file.uint16(`${name}_q4scales`, [rows, cols / 32]) });
}

export interface BertWeights {
  shape: EncoderShape;
  dtype: 'fp32' | 'q8';
  word: WordTable;
  /** [maxPositions, hidden] */
  position: Float32Array;
  /** [typeVocab, hidden] */
  tokenType: Float32Array;
  embeddingNorm: Norm;
  layers: BertLayer[];
}

/** Reads and checks every tensor the encoder needs (throws naming the first that is missing or misshapen). */
export function bertWeights(file: EncoderWeights): BertWeights {
  const { shape, dtype } = file.header;
  const { hidden: H, intermediate: I, vocab: V, maxPositions: P, typeVocab: TV, heads } = shape;
  if (!(H > 0 && heads > 0 && H % heads === 0 && I > 0 && shape.layers > 0)) throw new Error(`encoder weight file: unsupported shape ${JSON.stringify(shape)}`);
  const norm = (p: string): Norm => ({ gamma: file.float(`${p}.weight`, [H]), beta: file.float(`${p}.bias`, [H]) });
  const linear = (p: string, inDim: number, outDim: number): Linear => {
    const bias = file.float(`${p}.bias`, [outDim]);
    if (dtype === 'fp32') return { kind: 'f32', inDim, outDim, weight: file.float(`${p}.weight`, [inDim, outDim]), bias };
    const q4 = q4Of(file, `${p}.weight`, outDim, inDim);
    if (q4) return { kind: 'i8', inDim, outDim, ...q4ToInt8Columns(q4), bias };
    const smoothing = file.find(`${p}.input_smoothing`) ? file.float(`${p}.input_smoothing`, [inDim]) : undefined;
    return { kind: 'i8', inDim, outDim, weight: file.int8(`${p}.weight`, [inDim, outDim]), scale: file.float(`${p}.weight_scale`, [outDim]), bias, smoothing };
  };
  const wordName = 'embeddings.word_embeddings.weight';
  const wordQ4 = q4Of(file, wordName, V, H);
  const word: WordTable = wordQ4
    ? { kind: 'q4', rows: wordQ4 }
    : file.header.tensors.find((t) => t.name === wordName)?.dtype === 'int8'
      ? { kind: 'i8', rows: file.int8(wordName, [V, H]), scale: file.float(`${wordName}_scale`, [V]) }
      : { kind: 'f32', rows: file.float(wordName, [V, H]) };
  const layers: BertLayer[] = [];
  for (let l = 0; l < shape.layers; l++) {
    const p = `encoder.layer.${l}`;
    layers.push({
      query: linear(`${p}.attention.self.query`, H, H),
      key: linear(`${p}.attention.self.key`, H, H),
      value: linear(`${p}.attention.self.value`, H, H),
      attentionOutput: linear(`${p}.attention.output.dense`, H, H),
      attentionNorm: norm(`${p}.attention.output.LayerNorm`),
      intermediate: linear(`${p}.intermediate.dense`, H, I),
      output: linear(`${p}.output.dense`, I, H),
      outputNorm: norm(`${p}.output.LayerNorm`),
    });
  }
  return {
    shape,
    dtype,
    word,
    position: file.float('embeddings.position_embeddings.weight', [P, H]),
    tokenType: file.float('embeddings.token_type_embeddings.weight', [TV, H]),
    embeddingNorm: norm('embeddings.LayerNorm'),
    layers,
  };
}

/**
 * Writes the weight file of our own encoder runtime (src/models/encoder-runtime/weights-file.ts)
 * from the Hugging Face tensor map that `buildBertOnnx` takes, quantised exactly as the int8 ONNX
 * graph is: the same smoothing factors, the same int8 values and per-output-channel scales (the
 * same functions compute them), the word table int8 per row. So the two runtimes differ only in
 * how they quantise activations at run time, never in the weights.
 */
import { checkBertConfig, getter, quantizeColumns, quantizeRowsOf, smoothWeights, transpose, type BertConfig } from './bert-onnx.ts';
import type { SafeTensor } from './safetensors.ts';
import { encodeWeights, type EncoderShape, type NamedTensor } from '../../src/models/encoder-runtime/weights-file.ts';

export interface EncoderWeightsOptions {
  quantized: boolean;
  /** As `BertOnnxOptions.smoothing`: input channel → power-of-two factor, by role and layer (int8 only). */
  smoothing?: (role: string, layer: number) => ReadonlyMap<number, number> | undefined;
  /** Provenance, for the header. */
  description: string;
}

/** The linear layers of one BERT layer: tensor prefix, role (as the smoothing table names them), in and out widths. */
export function layerLinears(config: BertConfig, l: number): { prefix: string; role: string; inDim: number; outDim: number }[] {
  const { hidden_size: H, intermediate_size: I } = config;
  const p = `encoder.layer.${l}`;
  return [
    { prefix: `${p}.attention.self.query`, role: 'query', inDim: H, outDim: H },
    { prefix: `${p}.attention.self.key`, role: 'key', inDim: H, outDim: H },
    { prefix: `${p}.attention.self.value`, role: 'value', inDim: H, outDim: H },
    { prefix: `${p}.attention.output.dense`, role: 'attention.output', inDim: H, outDim: H },
    { prefix: `${p}.intermediate.dense`, role: 'intermediate', inDim: H, outDim: I },
    { prefix: `${p}.output.dense`, role: 'output', inDim: I, outDim: H },
  ];
}

export function encoderShape(config: BertConfig): EncoderShape {
  return {
    layers: config.num_hidden_layers,
    hidden: config.hidden_size,
    heads: config.num_attention_heads,
    intermediate: config.intermediate_size,
    maxPositions: config.max_position_embeddings,
    typeVocab: config.type_vocab_size,
    vocab: config.vocab_size,
    layerNormEps: config.layer_norm_eps,
  };
}

export function buildEncoderWeights(tensors: Map<string, SafeTensor>, config: BertConfig, opts: EncoderWeightsOptions): Uint8Array {
  checkBertConfig(config as unknown as Record<string, unknown>);
  const { hidden_size: H, vocab_size: V, max_position_embeddings: P, type_vocab_size: TV } = config;
  const get = getter(tensors);
  const out: NamedTensor[] = [];
  const float = (name: string, shape: number[], data = get(name, shape)) => out.push({ name, data: Float32Array.from(data), shape });

  const word = 'embeddings.word_embeddings.weight';
  if (opts.quantized) {
    const { q, scales } = quantizeRowsOf(get(word, [V, H]), V, H);
    out.push({ name: word, data: q, shape: [V, H] }, { name: `${word}_scale`, data: scales, shape: [V] });
  } else {
    float(word, [V, H]);
  }
  float('embeddings.position_embeddings.weight', [P, H]);
  float('embeddings.token_type_embeddings.weight', [TV, H]);
  float('embeddings.LayerNorm.weight', [H]);
  float('embeddings.LayerNorm.bias', [H]);

  for (let l = 0; l < config.num_hidden_layers; l++) {
    for (const { prefix, role, inDim, outDim } of layerLinears(config, l)) {
      const w = transpose(get(`${prefix}.weight`, [outDim, inDim]), outDim, inDim); // [in, out], as the ONNX MatMul
      if (!opts.quantized) {
        out.push({ name: `${prefix}.weight`, data: w, shape: [inDim, outDim] });
      } else {
        const factors = opts.smoothing?.(role, l);
        if (factors?.size) out.push({ name: `${prefix}.input_smoothing`, data: smoothWeights(w, inDim, outDim, factors, prefix), shape: [inDim] });
        const { q, scales } = quantizeColumns(w, inDim, outDim);
        out.push({ name: `${prefix}.weight`, data: q, shape: [inDim, outDim] }, { name: `${prefix}.weight_scale`, data: scales, shape: [outDim] });
      }
      float(`${prefix}.bias`, [outDim]);
    }
    for (const ln of [`encoder.layer.${l}.attention.output.LayerNorm`, `encoder.layer.${l}.output.LayerNorm`]) {
      float(`${ln}.weight`, [H]);
      float(`${ln}.bias`, [H]);
    }
  }
  return encodeWeights({ architecture: 'bert', dtype: opts.quantized ? 'q8' : 'fp32', shape: encoderShape(config), description: opts.description }, out);
}

/**
 * The weight file of a model whose source is 4-bit (E5S1): every tensor that has Q4_0 blocks (the
 * word table and the linear weights) is written as those blocks unchanged, in the PyTorch layout
 * (`<name>_q4codes`, `<name>_q4scales`; weights-file.ts), everything else float32. The runtime
 * requantises the linear weights to int8 at load, so the header says `q8`: the arithmetic it runs.
 */
export function buildQ4EncoderWeights(tensors: Map<string, SafeTensor>, config: BertConfig, description: string): Uint8Array {
  const { hidden_size: H, vocab_size: V, max_position_embeddings: P, type_vocab_size: TV } = config;
  const get = getter(tensors);
  const out: NamedTensor[] = [];
  const float = (name: string, shape: number[]) => out.push({ name, data: Float32Array.from(get(name, shape)), shape });
  const q4 = (name: string, rows: number, cols: number) => {
    const blocks = tensors.get(name)?.q4;
    if (!blocks) throw new Error(`${name}: the source has no Q4_0 blocks for it`);
    get(name, [rows, cols]); // checks the shape
    out.push({ name: `${name}_q4codes`, data: blocks.codes, shape: [rows, cols / 2] }, { name: `${name}_q4scales`, data: blocks.scales, shape: [rows, cols / 32] });
  };
  q4('embeddings.word_embeddings.weight', V, H);
  float('embeddings.position_embeddings.weight', [P, H]);
  float('embeddings.token_type_embeddings.weight', [TV, H]);
  float('embeddings.LayerNorm.weight', [H]);
  float('embeddings.LayerNorm.bias', [H]);
  for (let l = 0; l < config.num_hidden_layers; l++) {
    for (const { prefix, inDim, outDim } of layerLinears(config, l)) {
      q4(`${prefix}.weight`, outDim, inDim);
      float(`${prefix}.bias`, [outDim]);
    }
    for (const ln of [`encoder.layer.${l}.attention.output.LayerNorm`, `encoder.layer.${l}.output.LayerNorm`]) {
      float(`${ln}.weight`, [H]);
      float(`${ln}.bias`, [H]);
    }
  }
  return encodeWeights({ architecture: 'bert', dtype: 'q8', shape: encoderShape(config), description }, out);
}

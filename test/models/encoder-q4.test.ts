/**
 * 4-bit (Q4_0) weights in our encoder runtime (src/models/encoder-runtime/q4.ts), as
 * multilingual-e5's weight file stores its word table and linear weights: fp16 decoding, a looked-up
 * row, the int8 requantisation at load against the build's own per-column rule, the weight file's
 * new dtypes, and an XLM-RoBERTa config's shape (positions from pad_token_id + 1).
 */
import { describe, expect, it } from 'vitest';
import { addQ4Row, halfToFloat, q4ToInt8Columns } from '../../src/models/encoder-runtime/q4.ts';
import { addWordRow, bertWeights } from '../../src/models/encoder-runtime/bert-weights.ts';
import { decodeWeights, encodeWeights, type NamedTensor } from '../../src/models/encoder-runtime/weights-file.ts';
import { shapeFromConfig } from '../../src/models/encoder-runtime/load.ts';
import { dequantizeQ4, quantizeQ4 } from '../../scripts/models/q4.ts';
import { quantizeColumns, transpose } from '../../scripts/models/bert-onnx.ts';
import { f16 } from '../../scripts/models/safetensors.ts';

function values(n: number, s: number, seed = 1): Float32Array {
  const a = new Float32Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) (x = (x * 16807) % 2147483647), (a[i] = ((x / 2147483647) * 2 - 1) * s);
  return a;
}

describe('Q4_0 weights in the encoder runtime', () => {
  it('decodes every fp16 value as the build scripts do', () => {
    for (let h = 0; h < 65536; h++) {
      const want = f16(h);
      if (Number.isNaN(want)) expect(halfToFloat(h)).toBeNaN();
      else expect(halfToFloat(h), `0x${h.toString(16)}`).toBe(want);
    }
  });

  it('adds a looked-up row exactly as the full dequantisation gives it', () => {
    const [rows, cols] = [5, 96];
    const blocks = quantizeQ4(values(rows * cols, 0.7));
    const full = dequantizeQ4(blocks);
    const m = { rows, cols, codes: blocks.codes, scales: blocks.scales };
    const out = new Float32Array(cols).fill(0.25);
    addQ4Row(m, 3, out, 0);
    for (let j = 0; j < cols; j++) expect(out[j]).toBe(Math.fround(0.25 + full[3 * cols + j]));
  });

  it('requantises [out, in] blocks to the int8 [in, out] columns the build computes from the float weights', () => {
    const [outDim, inDim] = [24, 64];
    const source = values(outDim * inDim, 2, 7);
    source[5 * inDim + 9] = 11; // an outlier widens its column's scale only
    const blocks = quantizeQ4(source);
    const got = q4ToInt8Columns({ rows: outDim, cols: inDim, codes: blocks.codes, scales: blocks.scales });
    const want = quantizeColumns(transpose(dequantizeQ4(blocks), outDim, inDim), inDim, outDim);
    expect(Array.from(got.scale)).toEqual(Array.from(want.scales));
    expect(Array.from(got.weight)).toEqual(Array.from(want.q));
    expect(got.scale[5]).toBeGreaterThan(got.scale[4] * 3);
  });

  it('a weight file with a 4-bit word table and 4-bit linears loads as int8 linears over a 4-bit gather', () => {
    const shape = { layers: 1, hidden: 32, heads: 2, intermediate: 64, maxPositions: 8, typeVocab: 1, vocab: 10, layerNormEps: 1e-12 };
    const H = 32;
    const I = 64;
    const tensors: NamedTensor[] = [];
    const q4 = (name: string, rows: number, cols: number, seed: number) => {
      const b = quantizeQ4(values(rows * cols, 0.5, seed));
      tensors.push({ name: `${name}_q4codes`, data: b.codes, shape: [rows, cols / 2] }, { name: `${name}_q4scales`, data: b.scales, shape: [rows, cols / 32] });
      return b;
    };
    const float = (name: string, s: number[], seed: number) => tensors.push({ name, data: values(s.reduce((a, c) => a * c, 1), 0.1, seed), shape: s });
    const word = q4('embeddings.word_embeddings.weight', 10, H, 1);
    float('embeddings.position_embeddings.weight', [8, H], 2);
    float('embeddings.token_type_embeddings.weight', [1, H], 3);
    float('embeddings.LayerNorm.weight', [H], 4);
    float('embeddings.LayerNorm.bias', [H], 5);
    const p = 'encoder.layer.0';
    let seed = 10;
    for (const [name, outDim, inDim] of [['attention.self.query', H, H], ['attention.self.key', H, H], ['attention.self.value', H, H], ['attention.output.dense', H, H], ['intermediate.dense', I, H], ['output.dense', H, I]] as const) {
      q4(`${p}.${name}.weight`, outDim, inDim, seed++);
      float(`${p}.${name}.bias`, [outDim], seed++);
    }
    for (const ln of ['attention.output.LayerNorm', 'output.LayerNorm']) float(`${p}.${ln}.weight`, [H], seed++), float(`${p}.${ln}.bias`, [H], seed++);
    const file = encodeWeights({ architecture: 'bert', dtype: 'q8', shape, description: 'test' }, tensors);
    const decoded = decodeWeights(file.buffer as ArrayBuffer);
    expect(decoded.header.tensors.find((t) => t.name === 'embeddings.word_embeddings.weight_q4scales')?.dtype).toBe('uint16');
    const w = bertWeights(decoded);
    expect(w.word.kind).toBe('q4');
    expect(w.layers[0].intermediate).toMatchObject({ kind: 'i8', inDim: H, outDim: I });
    const row = new Float32Array(H);
    addWordRow(w.word, 7, H, row, 0);
    expect(Array.from(row)).toEqual(Array.from(dequantizeQ4(word).subarray(7 * H, 8 * H)));
  });

  it("reads an XLM-RoBERTa config's positions from pad_token_id + 1 on", () => {
    const config = { model_type: 'xlm-roberta', hidden_act: 'gelu', num_hidden_layers: 12, hidden_size: 384, num_attention_heads: 12, intermediate_size: 1536, max_position_embeddings: 514, type_vocab_size: 1, vocab_size: 250037, layer_norm_eps: 1e-12, pad_token_id: 1 };
    expect(shapeFromConfig(config)).toMatchObject({ maxPositions: 512, layers: 12, vocab: 250037 });
    expect(shapeFromConfig({ ...config, pad_token_id: undefined })).toMatch(/lacks a size/);
  });
});

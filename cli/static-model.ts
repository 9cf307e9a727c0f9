/**
 * Reads a static model folder (scripts/models/static-model.ts: a Gather over an embedding matrix,
 * mean-pooled and normalised by transformers.js) for the bundle's semantic part: its tokenizer's
 * vocabulary and settings, and the very rows the ONNX file holds (int8 + per-row scale for q8,
 * float32 for fp32), so a query embedded from the bundle's rows gets the vector the model gives.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StaticTokenizer } from '../src/bundle/static-format.ts';
import type { StaticModelInput } from '../src/bundle/write-static.ts';

interface TokenizerJson {
  normalizer?: { type?: string; clean_text?: boolean; handle_chinese_chars?: boolean; strip_accents?: boolean | null; lowercase?: boolean } | null;
  pre_tokenizer?: { type?: string } | null;
  post_processor?: unknown;
  model?: { type?: string; vocab?: Record<string, number>; unk_token?: string; continuing_subword_prefix?: string; max_input_chars_per_word?: number };
}

/** Why a model folder cannot give a static bundle part, or its input. */
export type StaticModelRead = { ok: true; model: StaticModelInput } | { ok: false; reason: string };

/** The folder's static model, or why it is not one this bundle format carries. */
export function readStaticModel(folder: string, dtype: 'q8' | 'fp32'): StaticModelRead {
  const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as { format?: string; dimension?: number };
  if (!manifest.format?.includes('static embedding')) return { ok: false, reason: 'not a static (lookup-table) model' };
  const tok = JSON.parse(readFileSync(join(folder, 'tokenizer.json'), 'utf8')) as TokenizerJson;
  const n = tok.normalizer;
  const kind = tok.model?.type === 'WordPiece' ? 'wordpiece' : tok.model?.type === 'WordLevel' ? 'wordlevel' : undefined;
  if (!kind || n?.type !== 'BertNormalizer' || tok.pre_tokenizer?.type !== 'BertPreTokenizer' || tok.post_processor) {
    return { ok: false, reason: 'its tokenizer is not BertNormalizer + BertPreTokenizer + WordPiece/WordLevel without special tokens' };
  }
  const vocabMap = tok.model!.vocab ?? {};
  const vocab: string[] = [];
  for (const [piece, id] of Object.entries(vocabMap)) vocab[id] = piece;
  const unkId = vocabMap[tok.model!.unk_token ?? '[UNK]'];
  if (unkId === undefined) return { ok: false, reason: 'its vocabulary has no unknown token' };
  const lowercase = n.lowercase === true;
  const tokenizer: StaticTokenizer = {
    kind,
    lowercase,
    // transformers.js: with lowercase, accents are stripped unless strip_accents is false.
    stripAccents: lowercase ? n.strip_accents !== false : n.strip_accents === true,
    chineseChars: n.handle_chinese_chars === true,
    cleanText: n.clean_text === true,
    unkId,
    prefix: kind === 'wordpiece' ? (tok.model!.continuing_subword_prefix ?? '##') : '',
    maxChars: kind === 'wordpiece' ? (tok.model!.max_input_chars_per_word ?? 100) : Number.MAX_SAFE_INTEGER,
  };
  const file = join(folder, 'onnx', dtype === 'q8' ? 'model_quantized.onnx' : 'model.onnx');
  if (!existsSync(file)) return { ok: false, reason: `no ${file}` };
  const init = initializers(readFileSync(file));
  const d = manifest.dimension ?? 0;
  if (dtype === 'q8') {
    const q = init.get('embeddings_q');
    const s = init.get('row_scales');
    if (!q || !s || q.type !== INT8 || s.type !== FLOAT) return { ok: false, reason: `${file} has no int8 rows and scales (embeddings_q, row_scales)` };
    const codes = new Int8Array(q.raw.buffer.slice(q.raw.byteOffset, q.raw.byteOffset + q.raw.byteLength));
    const scales = new Float32Array(s.raw.buffer.slice(s.raw.byteOffset, s.raw.byteOffset + s.raw.byteLength));
    if (codes.length !== vocab.length * d || scales.length !== vocab.length) return { ok: false, reason: `${file}'s rows do not match its vocabulary and dimension` };
    return { ok: true, model: { tokenizer, vocab, dimension: d, rows: { kind: 'q8', codes, scales } } };
  }
  const f = init.get('embeddings');
  if (!f || f.type !== FLOAT) return { ok: false, reason: `${file} has no float32 rows (embeddings)` };
  const floats = new Float32Array(f.raw.buffer.slice(f.raw.byteOffset, f.raw.byteOffset + f.raw.byteLength));
  if (floats.length !== vocab.length * d) return { ok: false, reason: `${file}'s rows do not match its vocabulary and dimension` };
  return { ok: true, model: { tokenizer, vocab, dimension: d, rows: { kind: 'fp32', floats } } };
}

const FLOAT = 1;
const INT8 = 3;

/** The graph's initializers with raw data, by name (ModelProto.graph = 7, GraphProto.initializer = 5). */
function initializers(bytes: Uint8Array): Map<string, { type: number; raw: Uint8Array }> {
  const out = new Map<string, { type: number; raw: Uint8Array }>();
  for (const [field, graph] of fields(bytes)) {
    if (field !== 7 || !(graph instanceof Uint8Array)) continue;
    for (const [f, t] of fields(graph)) {
      if (f !== 5 || !(t instanceof Uint8Array)) continue;
      let name = '';
      let type = 0;
      let raw: Uint8Array | undefined;
      for (const [tf, v] of fields(t)) {
        if (tf === 8 && v instanceof Uint8Array) name = new TextDecoder().decode(v);
        else if (tf === 2 && typeof v === 'number') type = v;
        else if (tf === 9 && v instanceof Uint8Array) raw = v;
      }
      if (raw) out.set(name, { type, raw });
    }
  }
  return out;
}

/** Protobuf fields of a message: varints as numbers, length-delimited as bytes (fixed-width skipped). */
function* fields(b: Uint8Array): Generator<[number, number | Uint8Array]> {
  let i = 0;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const x = b[i++];
      v += (x & 0x7f) * mul;
      if (x < 0x80) return v;
      mul *= 128;
    }
  };
  while (i < b.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) yield [field, varint()];
    else if (wire === 2) {
      const len = varint();
      yield [field, b.subarray(i, i + len)];
      i += len;
    } else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
}

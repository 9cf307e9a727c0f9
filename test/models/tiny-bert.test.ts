/**
 * "Any transformers.js model" offline: a tiny random-weight BERT encoder and cross-encoder
 * (scripts/models/fixtures/tiny-bert.ts, no manifest.json) run through the same code paths a
 * Hub download would — TransformersEmbedder, CrossEncoderReranker, ModelRuntime with a models
 * config — on onnxruntime-node (device cpu).
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env, pipeline, type FeatureExtractionPipeline, type Tensor } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_CROSS_ENCODER, TINY_ENCODER, writeTinyBert, writeTinyBertFixtures } from '../../scripts/models/fixtures/tiny-bert.ts';
import { CrossEncoderReranker, loadEmbedder, resolveModelFolder, type TransformersEmbedder } from '../../src/models/index.ts';
import { ModelRuntime } from '../../src/models/runtime.ts';
import { createModelHandlers } from '../../src/server/model-handlers.ts';
import type { HandlerContext } from '../../src/server/backend.ts';

const sha12 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 12);
const norm = (v: Float32Array) => Math.hypot(...v);
const maxAbsDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

const TEXTS = ['The white whale swam beneath the ship', 'state of the union', 'Information retrieval ranks documents for a query', 'cat'];

let base: string;

beforeAll(() => {
  base = `${mkdtempSync(join(tmpdir(), 'tiny-bert-'))}/`;
  writeTinyBertFixtures(base);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('tiny BERT fixture', () => {
  it('is byte-identical across builds (seeded weights)', () => {
    const again = mkdtempSync(join(tmpdir(), 'tiny-bert-again-'));
    try {
      writeTinyBertFixtures(again);
      for (const f of ['onnx/model.onnx', 'tokenizer.json', 'config.json']) {
        expect(readFileSync(join(again, TINY_ENCODER, f))).toEqual(readFileSync(`${base}${TINY_ENCODER}/${f}`));
        expect(readFileSync(join(again, TINY_CROSS_ENCODER, f))).toEqual(readFileSync(`${base}${TINY_CROSS_ENCODER}/${f}`));
      }
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  });
});

describe('TransformersEmbedder on a folder without manifest.json (tiny BERT encoder)', () => {
  let model: TransformersEmbedder;
  beforeAll(async () => {
    model = await loadEmbedder({ modelBase: base, model: TINY_ENCODER, dtype: 'q8' });
  }, 60_000);
  afterAll(() => model?.dispose());

  it('identity = folder@sha256 of the ONNX bytes; q8 falls back to the fp32 file that exists; dimension 32', () => {
    expect(model.identity).toBe(`${TINY_ENCODER}@sha256:${sha12(`${base}${TINY_ENCODER}/onnx/model.onnx`)}`);
    expect(model.folder.dtype).toBe('fp32');
    expect(model.folder.onnxFile).toBe('onnx/model.onnx');
    expect(model.folder.notes.join(' ')).toMatch(/no onnx\/model_quantized\.onnx/);
    expect(model.manifest).toBeUndefined();
    expect(model.dimension).toBe(32);
    expect(model.device).toBe('cpu');
  });

  it('gives deterministic, unit-norm 32-d vectors that differ between texts', async () => {
    const a = await model.embed(TEXTS, 'document');
    const b = await model.embed(TEXTS, 'document');
    expect(a.map((v) => Array.from(v))).toEqual(b.map((v) => Array.from(v)));
    for (const v of a) {
      expect(v.length).toBe(32);
      expect(Math.abs(norm(v) - 1)).toBeLessThan(1e-5);
    }
    expect(maxAbsDiff(a[0], a[1])).toBeGreaterThan(0.05);
    // A second, independent load gives the same vectors.
    const again = await loadEmbedder({ modelBase: base, model: TINY_ENCODER, dtype: 'fp32' });
    try {
      const c = await again.embed(TEXTS, 'document');
      expect(c.map((v) => Array.from(v))).toEqual(a.map((v) => Array.from(v)));
    } finally {
      await again.dispose();
    }
  });

  it('padding does not leak into a vector: alone and in a padded batch agree (mask inside attention and pooling)', async () => {
    const batch = await model.embed(TEXTS, 'document');
    for (const [i, t] of TEXTS.entries()) {
      const [alone] = await model.embed([t], 'query');
      expect(maxAbsDiff(alone, batch[i])).toBeLessThan(1e-5);
    }
  });

  it('is the attention-masked mean of last_hidden_state, L2-normalised', async () => {
    env.localModelPath = base;
    const raw = (await pipeline('feature-extraction', TINY_ENCODER, { device: 'cpu', dtype: 'fp32' })) as FeatureExtractionPipeline;
    try {
      const inputs = raw.tokenizer(TEXTS, { padding: true, truncation: true }) as { attention_mask: Tensor; input_ids: Tensor };
      const { last_hidden_state: h } = (await raw.model(inputs)) as { last_hidden_state: Tensor };
      const [batch, seq, dim] = h.dims;
      const data = h.data as Float32Array;
      const mask = inputs.attention_mask.data as BigInt64Array;
      const mine = await model.embed(TEXTS, 'document');
      expect(Number(mask[3 * seq + seq - 1])).toBe(0); // 'cat' really is padded in this batch
      for (let b = 0; b < batch; b++) {
        const mean = new Float32Array(dim);
        let n = 0;
        for (let s = 0; s < seq; s++) {
          if (mask[b * seq + s] === 0n) continue;
          n++;
          for (let j = 0; j < dim; j++) mean[j] += data[(b * seq + s) * dim + j];
        }
        const l = Math.hypot(...mean.map((x) => x / n));
        const expected = mean.map((x) => x / n / l);
        expect(maxAbsDiff(expected, mine[b])).toBeLessThan(1e-5);
      }
    } finally {
      await raw.dispose();
    }
  });

  it('token vectors: one unit row per token including [CLS] and [SEP]', async () => {
    const [m] = await model.tokenVectors(['white whale']);
    expect(m.dimension).toBe(32);
    expect(m.rows).toBe(4); // [CLS] white whale [SEP]
    for (let r = 0; r < m.rows; r++) expect(Math.abs(norm(m.data.subarray(r * 32, (r + 1) * 32)) - 1)).toBeLessThan(1e-5);
  });
});

describe('model folders: dtype choice and dimension discovery', () => {
  it('fp32 requested, only model_quantized.onnx present → that file (q8)', async () => {
    writeTinyBert(`${base}only-q8`, { seed: 1, onnxFiles: ['onnx/model_quantized.onnx'] });
    const f = await resolveModelFolder(base, 'only-q8', 'fp32', true);
    expect(f).toMatchObject({ dtype: 'q8', onnxFile: 'onnx/model_quantized.onnx', dimension: 32 });
    expect(f.identity).toBe(`only-q8@sha256:${sha12(`${base}only-q8/onnx/model_quantized.onnx`)}`);
    const both = await resolveModelFolder(base, TINY_ENCODER, 'fp32', true);
    expect(both.dtype).toBe('fp32');
  });

  it('no hidden_size in config.json → dimension from the first inference', async () => {
    cpSync(`${base}${TINY_ENCODER}`, `${base}no-width`, { recursive: true });
    const config = JSON.parse(readFileSync(`${base}no-width/config.json`, 'utf8'));
    delete config.hidden_size;
    writeFileSync(`${base}no-width/config.json`, JSON.stringify(config));
    const f = await resolveModelFolder(base, 'no-width', 'q8', true);
    expect(f.dimension).toBeUndefined();
    const m = await loadEmbedder({ modelBase: base, model: 'no-width' });
    try {
      expect(m.dimension).toBe(32);
    } finally {
      await m.dispose();
    }
    // The worker gates the weights on the index having opened, which happens only after `open`
    // returns: with no width to read, `open` must not wait on that gate (it would never settle).
    const never = new Promise<never>(() => undefined);
    const runtime = await ModelRuntime.open({ modelBase: base, config: { embedder: 'no-width', dtype: 'q8', device: 'auto' }, loadAfter: never });
    expect(runtime?.dimension).toBe(32);
  });

  it('a gated load starts at once when something needs the weights (a bundle\'s hybrid request before its first answer)', async () => {
    const never = new Promise<never>(() => undefined);
    const rt = await ModelRuntime.open({ modelBase: base, config: { embedder: TINY_ENCODER, dtype: 'q8', device: 'auto' }, loadAfter: never });
    expect(rt!.embedder.ready?.()).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(rt!.status().state).toBe('loading'); // nothing asked: the gate holds
    const [v] = await rt!.embedder.embed(['white whale'], 'query');
    expect(v.length).toBe(rt!.dimension);
    expect(rt!.embedder.ready?.()).toBe(true);
    await (await rt!.loaded()).dispose();
  });

  it('another seed is another model: another identity', async () => {
    writeTinyBert(`${base}seed-7`, { seed: 7 });
    const [a, b] = await Promise.all([resolveModelFolder(base, TINY_ENCODER, 'fp32', true), resolveModelFolder(base, 'seed-7', 'fp32', true)]);
    expect(a.identity.split('@')[1]).not.toBe(b.identity.split('@')[1]);
  });

  it('refuses folder names that are not plain folder names, and folders that are not models', async () => {
    await expect(resolveModelFolder(base, '../etc', 'q8', true)).rejects.toThrow(/plain folder name/);
    await expect(resolveModelFolder(base, 'https://example.com/x', 'q8', true)).rejects.toThrow(/plain folder name/);
    await expect(resolveModelFolder(base, 'absent', 'q8', true)).rejects.toThrow(/no config\.json/);
  });
});

describe('CrossEncoderReranker (tiny BERT sequence classifier)', () => {
  let ce: CrossEncoderReranker;
  beforeAll(async () => {
    ce = await CrossEncoderReranker.load({ modelBase: base, model: TINY_CROSS_ENCODER, dtype: 'q8' });
  }, 60_000);
  afterAll(() => ce?.dispose());

  const passages = ['the white whale and the sea', 'state of the union address', 'a recipe to cook pasta', 'the captain of the ship', 'stock market election'];

  it('has method cross-encoder and an identity from the ONNX bytes', () => {
    expect(ce.method).toBe('cross-encoder');
    expect(ce.identity).toBe(`${TINY_CROSS_ENCODER}@sha256:${sha12(`${base}${TINY_CROSS_ENCODER}/onnx/model.onnx`)}`);
    expect(ce.device).toBe('cpu');
  });

  it('scores pairs deterministically, independent of batching', async () => {
    const a = await ce.score('white whale', passages);
    const b = await ce.score('white whale', passages);
    expect(a).toEqual(b);
    expect(a.every(Number.isFinite)).toBe(true);
    expect(new Set(a.map((x) => x.toFixed(6))).size).toBe(passages.length);
    for (const [i, p] of passages.entries()) {
      const [alone] = await ce.score('white whale', [p]);
      expect(Math.abs(alone - a[i])).toBeLessThan(1e-5);
    }
    expect(await ce.score('white whale', [])).toEqual([]);
    const other = await ce.score('pasta recipe', passages);
    expect(other).not.toEqual(a);
  });

  it('rerank through the model handlers: method picks the reranker, order follows the scores', async () => {
    const colbert = { method: 'colbert' as const, identity: 'colbert/x', score: async (_q: string, ps: string[]) => ps.map((_, i) => i) };
    const handlers = createModelHandlers(async () => {
      throw new Error('the embedder is not needed for cross-encoder rerank');
    }, [ce, colbert]);
    const ctx = {
      caps: { rerank: { methods: ['cross-encoder', 'colbert'], maxCandidates: 100, models: [ce.identity, 'colbert/x'] } },
      signal: new AbortController().signal,
    } as unknown as HandlerContext;
    const expected = await ce.score('white whale', passages);
    const r = (await handlers.rerank!({ query: 'white whale', passages, method: 'cross-encoder' }, ctx)) as { scores: number[]; order: number[] };
    expect(r.scores).toEqual(expected);
    expect(r.order).toEqual(passages.map((_, i) => i).sort((x, y) => expected[y] - expected[x]));
    const byDefault = (await handlers.rerank!({ query: 'white whale', passages }, ctx)) as { scores: number[] };
    expect(byDefault.scores).toEqual(expected);
    const c = (await handlers.rerank!({ query: 'white whale', passages, method: 'colbert' }, ctx)) as { order: number[] };
    expect(c.order).toEqual([4, 3, 2, 1, 0]);
  });
});

describe('ModelRuntime from a models config (Node)', () => {
  it('runs the configured encoder and cross-encoder; rerankers() lists cross-encoder first', async () => {
    const rt = await ModelRuntime.open({ modelBase: base, config: { embedder: TINY_ENCODER, dtype: 'q8', device: 'auto', crossEncoder: TINY_CROSS_ENCODER } });
    expect(rt).toBeDefined();
    expect(rt!.dimension).toBe(32);
    expect(rt!.identity).toMatch(new RegExp(`^${TINY_ENCODER}@sha256:[0-9a-f]{12}$`));
    expect(rt!.rerankers().map((r) => r.method)).toEqual(['cross-encoder', 'colbert']);
    const [v] = await rt!.embedder.embed(['white whale'], 'query');
    expect(v.length).toBe(32);
    await rt!.crossEncoder!.loaded(); // loads in the background after the embedder
    const s = rt!.status();
    expect(s).toMatchObject({ name: TINY_ENCODER, state: 'ready', device: 'cpu' });
    expect(s.crossEncoder).toMatchObject({ name: TINY_CROSS_ENCODER, device: 'cpu' });
    const lines: string[] = [];
    rt!.subscribe((level, message) => lines.push(`${level}: ${message}`));
    expect(lines.join('\n')).toMatch(/cross-encoder tiny-bert-cross-encoder ready on cpu/); // replayed history
    await (await rt!.loaded()).dispose();
    await rt!.crossEncoder!.dispose();
  });

  it('open waits for no weights (issue 8, seam 4): the cross-encoder is offered by identity, loads on first use', async () => {
    // The worker gates the embedder's weights on the index having opened; nothing here settles it.
    const never = new Promise<never>(() => undefined);
    const rt = await ModelRuntime.open({ modelBase: base, config: { embedder: TINY_ENCODER, dtype: 'q8', device: 'auto', crossEncoder: TINY_CROSS_ENCODER }, loadAfter: never });
    expect(rt!.status()).toMatchObject({ state: 'loading' });
    expect(rt!.status().crossEncoder).toBeUndefined(); // not loaded by open
    const [ce] = rt!.rerankers();
    expect(ce.method).toBe('cross-encoder');
    expect(ce.identity).toBe(`${TINY_CROSS_ENCODER}@sha256:${sha12(`${base}${TINY_CROSS_ENCODER}/onnx/model.onnx`)}`);
    const scores = await ce.score('white whale', ['the white whale', 'stock market']);
    expect(scores).toHaveLength(2);
    expect(rt!.status().crossEncoder).toMatchObject({ name: TINY_CROSS_ENCODER, device: 'cpu' });
    await rt!.crossEncoder!.dispose();
  });

  it('a cross-encoder whose weights fail to load keeps its capability and answers ModelUnavailableError (-32010) per call', async () => {
    const rt = await ModelRuntime.open({ modelBase: base, config: { embedder: TINY_ENCODER, dtype: 'fp32', device: 'auto', crossEncoder: TINY_CROSS_ENCODER, failDevices: ['cpu'] }, loadAfter: new Promise<never>(() => undefined) });
    expect(rt!.rerankers().map((r) => r.method)).toEqual(['cross-encoder', 'colbert']);
    await expect(rt!.rerankers()[0].score('q', ['p'])).rejects.toMatchObject({ name: 'ModelUnavailableError' });
  });

  it('a missing cross-encoder folder is a warning, and only colbert is offered', async () => {
    const rt = await ModelRuntime.open({ modelBase: base, config: { embedder: TINY_ENCODER, dtype: 'fp32', device: 'auto', crossEncoder: 'not-there' } });
    expect(rt!.crossEncoder).toBeUndefined();
    expect(rt!.rerankers().map((r) => r.method)).toEqual(['colbert']);
    const lines: string[] = [];
    rt!.subscribe((level, message) => lines.push(`${level}: ${message}`));
    expect(lines.join('\n')).toMatch(/warning: cross-encoder not-there is not available/);
    await (await rt!.loaded()).dispose();
  });

  it('failDevices makes the load fail on that device; a forced device does not fall back', async () => {
    const rt = await ModelRuntime.open({ modelBase: base, config: { embedder: TINY_ENCODER, dtype: 'fp32', device: 'auto', failDevices: ['cpu'] } });
    await expect(rt!.loaded()).rejects.toMatchObject({ name: 'ModelUnavailableError' }); // the server answers -32010 (test/server/errors.test.ts)
    expect(rt!.status()).toMatchObject({ state: 'failed' });
    expect(rt!.status().error).toMatch(/simulated cpu failure/);
  });

  it('reads <base>config.json; an absent embedder folder gives no runtime', async () => {
    writeFileSync(`${base}config.json`, JSON.stringify({ embedder: TINY_ENCODER, dtype: 'fp32', device: 'auto', bogus: 1 }));
    const rt = await ModelRuntime.open({ modelBase: base });
    expect(rt!.config).toMatchObject({ embedder: TINY_ENCODER, dtype: 'fp32' });
    const lines: string[] = [];
    rt!.subscribe((level, message) => lines.push(`${level}: ${message}`));
    expect(lines.join('\n')).toMatch(/unknown field 'bogus'/);
    await (await rt!.loaded()).dispose();
    writeFileSync(`${base}config.json`, JSON.stringify({ embedder: 'missing-folder' }));
    expect(await ModelRuntime.open({ modelBase: base })).toBeUndefined();
  });
});

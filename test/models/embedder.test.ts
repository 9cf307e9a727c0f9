import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEmbedder, maxSim, type ModelLoadEvent, type TransformersEmbedder } from '../../src/models/index.ts';
import { ensureModel, GLOVE_MODEL, MODEL_BASE } from './ensure-model.ts';

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('TransformersEmbedder (Node, cpu)', () => {
  let q8: TransformersEmbedder;
  let fp32: TransformersEmbedder;
  const events: ModelLoadEvent[] = [];

  beforeAll(async () => {
    await ensureModel();
    q8 = await loadEmbedder({ modelBase: MODEL_BASE, model: GLOVE_MODEL, dtype: 'q8', onProgress: (e) => events.push(e) });
    fp32 = await loadEmbedder({ modelBase: MODEL_BASE, model: GLOVE_MODEL, dtype: 'fp32' });
  }, 120_000);
  afterAll(async () => {
    await q8?.dispose();
    await fp32?.dispose();
  });

  it('reports device, dimension and normalisation', () => {
    expect(q8.device).toBe('cpu');
    expect(q8.dimension).toBe(100);
    expect(q8.normalized).toBe(true);
    const statuses = events.map((e) => e.status);
    expect(statuses).toContain('ready');
    expect(events.at(-1)).toMatchObject({ status: 'device', device: 'cpu' });
  });

  it('identity names the model and the checksum of the ONNX file in use', () => {
    const manifest = JSON.parse(readFileSync(`${MODEL_BASE}glove-static-100d/manifest.json`, 'utf8'));
    expect(q8.identity).toBe(`glove-static-100d@sha256:${manifest.files['onnx/model_quantized.onnx'].slice(0, 12)}`);
    expect(fp32.identity).toBe(`glove-static-100d@sha256:${manifest.files['onnx/model.onnx'].slice(0, 12)}`);
    expect(q8.identity).not.toBe(fp32.identity);
  });

  it('is deterministic, and batching does not change a vector', async () => {
    const texts = ['Retrieval of information from large document collections', 'short', 'Microwave measurement of dielectric constants'];
    const a = await q8.embed(texts, 'document');
    const b = await q8.embed(texts, 'document');
    const single = await q8.embed([texts[1]], 'query');
    expect(a.map((v) => Array.from(v))).toEqual(b.map((v) => Array.from(v)));
    expect(Array.from(single[0])).toEqual(Array.from(a[1]));
  });

  it('pools exactly as the transformers.js feature-extraction pipeline does (mean over the mask, L2 norm)', async () => {
    const texts = ['The whale and the harpoon', 'short', 'a much longer text about the measurement of dielectric constants in microwave cavities'];
    const ours = await q8.embed(texts, 'document');
    const { pipeline } = await import('@huggingface/transformers');
    const extractor = await pipeline('feature-extraction', 'glove-static-100d', { dtype: 'q8', device: 'cpu' });
    const theirs = (await extractor(texts, { pooling: 'mean', normalize: true })).tolist() as number[][];
    await extractor.dispose();
    texts.forEach((_, i) => theirs[i].forEach((x, j) => expect(ours[i][j]).toBeCloseTo(x, 6)));
  });

  it('returns unit vectors, and the zero vector for text without known words', async () => {
    const [v, empty, punct] = await q8.embed(['operating systems and compilers', '', '?!.'], 'document');
    expect(v).toBeInstanceOf(Float32Array);
    expect(v.length).toBe(100);
    expect(Math.abs(Math.hypot(...v) - 1)).toBeLessThan(1e-5);
    expect(empty.every((x) => x === 0)).toBe(true);
    expect(punct.every((x) => x === 0)).toBe(true);
  });

  it('puts paraphrases closer than unrelated texts', async () => {
    const pairs: [string, string, string][] = [
      ['The cat sat on the mat', 'A kitten rested on the rug', 'Stock markets fell sharply on Monday'],
      ['How do I cook pasta?', 'Recipe for boiling spaghetti noodles', 'The election results were announced'],
      ['Computer programs for sorting numbers', 'Algorithms that sort arrays of integers', 'Rainfall in the tropical forest'],
      ['The president met foreign leaders', 'Heads of state held a summit', 'Electrons in a magnetic field'],
    ];
    for (const [a, para, other] of pairs) {
      const [va, vp, vo] = await q8.embed([a, para, other], 'query');
      expect(cos(va, vp), `${a} ~ ${para}`).toBeGreaterThan(cos(va, vo) + 0.1);
    }
  });

  it('int8 weights stay within rounding of fp32', async () => {
    const texts = ['Information retrieval evaluation with test collections', 'the economy of the soviet union'];
    const a = await q8.embed(texts, 'document');
    const b = await fp32.embed(texts, 'document');
    for (let i = 0; i < texts.length; i++) expect(cos(a[i], b[i])).toBeGreaterThan(0.999);
  });

  it('tokenVectors: masked, non-zero, unit rows; MaxSim prefers the related text', async () => {
    const [q, rel, unrel, empty] = await q8.tokenVectors(['sorting algorithms', 'a fast method to sort a list of numbers', 'the weather in paris today', '']);
    expect(q.rows).toBe(2);
    expect(empty.rows).toBe(0);
    for (const m of [q, rel, unrel]) {
      expect(m.dimension).toBe(100);
      expect(m.data.length).toBe(m.rows * 100);
      for (let r = 0; r < m.rows; r++) expect(Math.abs(Math.hypot(...m.data.subarray(r * 100, (r + 1) * 100)) - 1)).toBeLessThan(1e-5);
    }
    expect(maxSim(q, rel)).toBeGreaterThan(maxSim(q, unrel));
    expect(maxSim(q, empty)).toBe(0);
  });

  it('honours an aborted signal', async () => {
    const c = new AbortController();
    c.abort();
    await expect(q8.embed(['x'], 'query', c.signal)).rejects.toThrow();
  });

  it('embeds a query in well under 5 ms', async () => {
    const query = 'measurement of dielectric constant of liquids by the use of microwave techniques';
    await q8.embed([query], 'query');
    const t0 = performance.now();
    for (let i = 0; i < 50; i++) await q8.embed([query], 'query');
    expect((performance.now() - t0) / 50).toBeLessThan(5);
  });
});

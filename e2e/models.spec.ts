import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ORIGIN, watchOrigin } from './support/playground.ts';
import { writeTinyBert } from '../scripts/models/fixtures/tiny-bert.ts';
import { CrossEncoderReranker, loadEmbedder } from '../src/models/index.ts';
import { call, logsOf, openTab, type Reply } from '../tools/lib/rcp-page.ts';

/**
 * Models in the real browser worker, configured by /models/config.json:
 * - any transformers.js folder: a tiny random-weight BERT encoder and cross-encoder (no manifest),
 *   written into the built app (dist/models/) before the tests, give in the worker (WASM) the same
 *   vectors and scores as in Node (onnxruntime-node), through RCP `embed`, `rerank` and `retrieve`;
 * - the default static model gives the same vectors on WASM and on WebGPU (SwiftShader);
 * - a WebGPU failure falls back to WASM with a `warning` log and the device in the control plane;
 * - nothing is requested outside the app's origin, from the page or from its workers.
 * The config is served per test by a route, so the built file (defaults) stays untouched.
 */

const ROOT = join(import.meta.dirname, '..');
const DIST_MODELS = join(ROOT, 'dist', 'models');
const ENCODER = 'e2e-tiny-bert-encoder';
const CROSS = 'e2e-tiny-bert-cross-encoder';

type LogParams = { level: string; message: string; data?: any };

test.use({ serviceWorkers: 'block' }); // a service worker would bypass the config route

test.beforeAll(() => {
  // The built app serves dist/ (vite preview serves files added after start).
  writeTinyBert(join(DIST_MODELS, ENCODER), { seed: 11, head: 'none' });
  writeTinyBert(join(DIST_MODELS, CROSS), { seed: 12, head: 'sequence-classification' });
});
test.afterAll(() => {
  rmSync(join(DIST_MODELS, ENCODER), { recursive: true, force: true });
  rmSync(join(DIST_MODELS, CROSS), { recursive: true, force: true });
});

/** Opens bridge.html, one RCP session with logs on, and initializes it. */
async function openSession(page: Page): Promise<{ init: Reply; call: (method: string, params: unknown) => Promise<Reply>; logs: () => Promise<LogParams[]> }> {
  const init = await openTab(page, 'e2e-models', { capabilities: { log: {} }, _meta: { logLevel: 'debug' } });
  return { init, call: (method, params) => call(page, method, params), logs: () => logsOf<LogParams>(page) };
}

/** Waits for the "ready on <device>" log line of `name` and returns its data. */
async function readyLine(logs: () => Promise<LogParams[]>, name: string): Promise<LogParams> {
  let line: LogParams | undefined;
  await expect
    .poll(async () => (line = (await logs()).find((l) => l.message.startsWith(`model ${name} ready on`))), { timeout: 60_000 })
    .toBeTruthy();
  return line!;
}

const sha12 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 12);
const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

const TEXTS = [
  'The white whale swam beneath the ship',
  'state of the union',
  'Information retrieval ranks documents for a query',
  'Microwave measurement of dielectric constants in the ocean',
  'cat',
];

test('a tiny BERT encoder and cross-encoder without manifest run in the worker: embed, rerank, dense retrieve', async ({ page, context }) => {
  const net = await watchOrigin(context, { modelConfig: { embedder: ENCODER, dtype: 'q8', device: 'wasm', crossEncoder: CROSS } });
  const { init, call, logs } = await openSession(page);

  // Capabilities: identity from the ONNX bytes (q8 asked, only model.onnx exists → fp32 file), 32-d,
  // and cross-encoder offered because it loaded.
  const caps = init.result.capabilities;
  const encoderId = `${ENCODER}@sha256:${sha12(join(DIST_MODELS, ENCODER, 'onnx/model.onnx'))}`;
  const crossId = `${CROSS}@sha256:${sha12(join(DIST_MODELS, CROSS, 'onnx/model.onnx'))}`;
  expect(caps.embed).toMatchObject({ dimension: 32, identity: encoderId, normalized: true });
  expect(caps.rerank.methods).toEqual(['cross-encoder', 'colbert']);
  expect(caps.rerank.models).toEqual([crossId, `colbert-maxsim/${encoderId}`]);

  // Node (onnxruntime-node) reference for the same folders.
  const nodeEmbedder = await loadEmbedder({ modelBase: `${DIST_MODELS}/`, model: ENCODER, dtype: 'q8' });
  const nodeCross = await CrossEncoderReranker.load({ modelBase: `${DIST_MODELS}/`, model: CROSS, dtype: 'q8' });
  const expected = await nodeEmbedder.embed(TEXTS, 'document');
  const passages = TEXTS.slice(0, 4);
  const expectedScores = await nodeCross.score('white whale ship', passages);
  await nodeEmbedder.dispose();
  await nodeCross.dispose();

  const embed = await call('embed', { inputs: TEXTS, encoding: 'json' });
  expect(embed.error).toBeUndefined();
  expect(embed.result.dimension).toBe(32);
  const vectors = embed.result.vectors as number[][];
  let worst = 0;
  vectors.forEach((v, i) => {
    expect(v).toHaveLength(32);
    expect(Math.abs(Math.hypot(...v) - 1)).toBeLessThan(1e-5);
    worst = Math.max(worst, maxAbsDiff(v, expected[i]));
  });
  expect(worst).toBeLessThan(1e-4);
  const again = await call('embed', { inputs: TEXTS, encoding: 'json' });
  expect(again.result.vectors).toEqual(vectors);

  const rr = await call('rerank', { query: 'white whale ship', passages, method: 'cross-encoder' });
  expect(rr.error).toBeUndefined();
  expect(maxAbsDiff(rr.result.scores, expectedScores)).toBeLessThan(1e-4);
  expect(rr.result.order).toEqual(passages.map((_, i) => i).sort((a, b) => expectedScores[b] - expectedScores[a]));
  const colbert = await call('rerank', { query: 'white whale ship', passages, method: 'colbert' });
  expect(colbert.result.scores).not.toEqual(rr.result.scores);

  // Dense retrieve, then the built-in rerank with each method.
  const add = await call('index/add', { documents: TEXTS.map((text, i) => ({ id: `d${i}`, text })) });
  expect(add.error).toBeUndefined();
  const dense = await call('retrieve', { query: 'white whale ship', mode: 'dense', k: 5 });
  expect(dense.error).toBeUndefined();
  expect(dense.result.hits).toHaveLength(5);
  expect(dense.result.hits[0].scores.dense).toBeGreaterThan(dense.result.hits[4].scores.dense);
  const reranked = await call('retrieve', { query: 'white whale ship', mode: 'dense', k: 4, rerank: { method: 'cross-encoder', topN: 5 }, includeText: true });
  expect(reranked.error).toBeUndefined();
  expect(reranked.result.usage.reranked).toBe(5);
  const scoresByText = new Map(reranked.result.hits.map((h: { text: string; scores: { rerank: number } }) => [h.text, h.scores.rerank]));
  const direct = await call('rerank', { query: 'white whale ship', passages: [...scoresByText.keys()], method: 'cross-encoder' });
  expect(maxAbsDiff([...scoresByText.values()] as number[], direct.result.scores)).toBeLessThan(1e-5);
  const byColbert = await call('retrieve', { query: 'white whale ship', mode: 'dense', k: 4, rerank: { method: 'colbert', topN: 5 } });
  expect(byColbert.result.usage.reranked).toBe(5);
  expect(byColbert.result.hits.map((h: { scores: { rerank: number } }) => h.scores.rerank)).not.toEqual([...scoresByText.values()]);

  const ready = await readyLine(logs, ENCODER);
  expect(ready.message).toContain('ready on wasm');
  const crossReady = (await logs()).find((l) => l.message.startsWith(`cross-encoder ${CROSS} ready on wasm`));
  expect(crossReady).toBeTruthy();
  console.log(`[models e2e] tiny encoder: ${ready.message}; ${crossReady!.message}; embed max |Δ| browser wasm vs node cpu = ${worst.toExponential(2)}`);
  // Each ONNX file crosses the network once: the worker hashes it and hands the bytes to transformers.js.
  expect(net.urls.filter((u) => u.endsWith(`/models/${ENCODER}/onnx/model.onnx`))).toHaveLength(1);
  expect(net.urls.filter((u) => u.endsWith(`/models/${CROSS}/onnx/model.onnx`))).toHaveLength(1);
  expect(net.external).toEqual([]);
});

test('the same vectors on WASM and on WebGPU: the default static model and the tiny BERT', async ({ browser }) => {
  test.setTimeout(180_000);
  const texts = [...TEXTS, 'Retrieval of information from large document collections', 'operating systems and compilers'];
  const run = async (embedder: string, device: 'wasm' | 'webgpu') => {
    const context = await browser.newContext({ baseURL: ORIGIN, serviceWorkers: 'block' });
    try {
      const net = await watchOrigin(context, { modelConfig: { embedder, dtype: 'q8', device } });
      const page = await context.newPage();
      const { init, call, logs } = await openSession(page);
      const r = await call('embed', { inputs: texts, encoding: 'json' });
      expect(r.error, JSON.stringify(r.error)).toBeUndefined();
      const ready = await readyLine(logs, embedder);
      expect(ready.message).toContain(`ready on ${device}`);
      // Warm query latency: one short text, after the load.
      const t0 = Date.now();
      for (let i = 0; i < 5; i++) await call('embed', { inputs: ['white whale'], encoding: 'json' });
      const queryMs = (Date.now() - t0) / 5;
      expect(net.external).toEqual([]);
      return { vectors: r.result.vectors as number[][], identity: init.result.capabilities.embed.identity as string, loadMs: ready.data?.loadMs as number, queryMs };
    } finally {
      await context.close();
    }
  };
  for (const embedder of ['glove-static-100d', ENCODER]) {
    const wasm = await run(embedder, 'wasm');
    const webgpu = await run(embedder, 'webgpu');
    expect(webgpu.identity).toBe(wasm.identity);
    const diff = Math.max(...wasm.vectors.map((v, i) => maxAbsDiff(v, webgpu.vectors[i])));
    console.log(
      `[models e2e] ${embedder} q8: max |Δ| wasm vs webgpu = ${diff.toExponential(2)}; load wasm ${wasm.loadMs} ms, webgpu ${webgpu.loadMs} ms; ` +
        `one-query embed round trip wasm ${wasm.queryMs.toFixed(1)} ms, webgpu ${webgpu.queryMs.toFixed(1)} ms`,
    );
    expect(diff).toBeLessThan(1e-4);
  }
});

test('auto ends on WASM and says why: a software WebGPU adapter is passed over, a failing hardware one falls back; no external requests', async ({ page, context }) => {
  const net = await watchOrigin(context, { modelConfig: { embedder: 'glove-static-100d', dtype: 'q8', device: 'auto', failDevices: ['webgpu'] } });
  const { init, call, logs } = await openSession(page);
  expect(init.result.capabilities.embed.dimension).toBe(100);
  const r = await call('embed', { inputs: ['white whale'], encoding: 'json' });
  expect(r.error).toBeUndefined();
  await readyLine(logs, 'glove-static-100d');
  const lines = await logs();
  // Headless Chromium without a GPU (CI) offers SwiftShader, a fallback adapter; with a GPU the simulated failure applies.
  const software = await page.evaluate(async () => {
    const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<{ info?: { isFallbackAdapter?: boolean } } | null> } }).gpu;
    return (await gpu?.requestAdapter())?.info?.isFallbackAdapter === true;
  });
  const why = software
    ? lines.find((l) => l.level === 'info' && /software fallback \(no GPU\), slower than WASM; using/.test(l.message))
    : lines.find((l) => l.level === 'warning' && /webgpu failed/.test(l.message));
  expect(why, JSON.stringify(lines, null, 1)).toBeTruthy();
  expect(why!.message).toMatch(/using wasm/);
  // Feature detection says the same before the load (models/support.ts describeWebGpu).
  if (software) expect(lines.some((l) => /WebGPU: only a software fallback adapter .*the model runs on WASM/.test(l.message))).toBe(true);
  expect(lines.find((l) => l.message.startsWith('model glove-static-100d ready on'))!.message).toContain('ready on wasm');

  // The playground page's own worker reports the device through the control plane (status()).
  const app = await context.newPage();
  await app.goto('/index.html');
  await expect(app.locator('#index-stats')).toContainText('glove-static-100d: ready on wasm', { timeout: 60_000 });
  expect(net.external).toEqual([]);
});

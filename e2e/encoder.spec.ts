import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { guardOrigin, wasmModel } from './support/playground.ts';
import { loadEmbedder } from '../src/models/index.ts';
import { call, logsOf, openTab } from '../tools/lib/rcp-page.ts';

/**
 * The real sentence encoder (all-MiniLM-L6-v2, built by `npm run models`) in the browser worker on
 * WASM through transformers.js: threads when the page is cross-origin isolated, vectors equal to onnxruntime-node's for the
 * same ONNX file, and honest dense results. Prints (does not assert) ingest chunks/s and the
 * query-embedding p50 on WASM next to onnxruntime-node on the same machine. Skipped, saying why,
 * when the model is not built.
 */

const ROOT = join(import.meta.dirname, '..');
const DIST_MODELS = join(ROOT, 'dist', 'models');
const MODEL = 'minilm-l6-v2';
const built = existsSync(join(DIST_MODELS, MODEL, 'onnx', 'model_quantized.onnx'));

test.use({ serviceWorkers: 'block' }); // a service worker would bypass the config route
test.skip(!built, `${MODEL} is not built: run \`npm run models && npm run build\` (dist/models/${MODEL}/onnx/model_quantized.onnx missing)`);
test.setTimeout(300_000);

type LogParams = { level: string; message: string; data?: any };

/** Passages like the sample corpus's chunks (≈ 1,000 characters). */
function passages(n: number): string[] {
  const corpus = JSON.parse(readFileSync(join(ROOT, 'public', 'sample', 'corpus.json'), 'utf8')) as { documents: { text: string }[] };
  const out: string[] = [];
  for (const d of corpus.documents) for (let i = 0; i + 1000 <= d.text.length && out.length < n; i += 850) out.push(d.text.slice(i, i + 1000));
  return out;
}

const QUERY = 'what did the president say about railroads and the economy'; // 10 words
const cos = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, x, i) => s + x * b[i], 0);

for (const dtype of ['q8', 'fp32'] as const) {
  test(`${MODEL} ${dtype} in the worker on WASM: threads, parity with onnxruntime-node, speed`, async ({ page, context }) => {
    // transformers.js on onnxruntime-web's threads (our kernels and their workers: encoder-parity.spec.ts).
    const external = await guardOrigin(context, { modelConfig: { ...wasmModel(MODEL, dtype), runtime: 'transformers.js' } });
    // A longer embed deadline than the server's 30 s: 64 passages on a busy 2-core machine can take
    // longer, and this test is about parity (the speed is printed, not asserted).
    const init = await openTab(page, 'e2e-encoder', { capabilities: { log: {} }, _meta: { logLevel: 'debug' } }, '?deadline.embed=300000');
    expect(init.result.capabilities.embed).toMatchObject({ dimension: 384, normalized: true });
    expect(init.result.capabilities.embed.identity).toMatch(new RegExp(`^${MODEL}@sha256:[0-9a-f]{12}$`));

    let ready: LogParams | undefined;
    await expect.poll(async () => (ready = (await logsOf<LogParams>(page)).find((l) => l.message.startsWith(`model ${MODEL} ready on`))), { timeout: 120_000 }).toBeTruthy();
    const isolated = await page.evaluate(() => crossOriginIsolated);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    expect(isolated).toBe(true);
    expect(ready!.data.device).toBe('wasm');
    expect(ready!.data.threads).toBe(Math.min(4, cores));

    const texts = passages(64);
    const node = await loadEmbedder({ modelBase: `${DIST_MODELS}/`, model: MODEL, dtype });
    const t0 = performance.now();
    const expected = await node.embed(texts, 'document');
    const nodeRate = texts.length / ((performance.now() - t0) / 1000);
    const nodeQ: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await node.embed([QUERY], 'query');
      nodeQ.push(performance.now() - t);
    }
    await node.dispose();

    await call(page, 'embed', { inputs: texts.slice(0, 4), encoding: 'f32-base64' }); // warm
    const t1 = Date.now();
    const res = await call(page, 'embed', { inputs: texts, encoding: 'json' });
    const wasmRate = texts.length / ((Date.now() - t1) / 1000);
    expect(res.error).toBeUndefined();
    const vectors = res.result.vectors as number[][];
    const worst = Math.min(...vectors.map((v, i) => cos(v, expected[i])));
    // Same ONNX file: fp32 agrees to rounding; q8's run-time activation quantisation (DynamicQuantizeLinear
    // + MatMulInteger) rounds differently in onnxruntime-web and -node, so q8 gets the q8 bar.
    expect(worst).toBeGreaterThan(dtype === 'fp32' ? 0.9999 : 0.99);

    const q = (await page.evaluate(async (query) => {
      const w = window as unknown as { rcp(m: string, p: unknown): Promise<unknown> };
      const ms: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        await w.rcp('embed', { inputs: [query], kind: 'query', encoding: 'f32-base64' });
        ms.push(performance.now() - t);
      }
      return ms;
    }, QUERY)) as number[];
    const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const line = `[encoder ${dtype}] ingest WASM ${wasmRate.toFixed(1)} chunks/s (${ready!.data.threads} threads) vs onnxruntime-node ${nodeRate.toFixed(1)} chunks/s (${((wasmRate / nodeRate) * 100).toFixed(0)}%); query embed p50 WASM ${p50(q).toFixed(1)} ms (RCP round trip) vs node ${p50(nodeQ).toFixed(1)} ms; min cosine vs node ${worst.toFixed(5)}; load ${ready!.data.loadMs} ms`;
    console.log(line);
    test.info().annotations.push({ type: 'measurement', description: line });
    expect(external).toEqual([]);
  });
}

test(`${MODEL}: dense and hybrid answer nonsense with no hits, and a real question with relevant ones`, async ({ page, context }) => {
  await guardOrigin(context, { modelConfig: wasmModel(MODEL) });
  await openTab(page, 'e2e-encoder-honesty');
  const docs = [
    { id: 'whale', text: 'The white whale, Moby Dick, rose from the sea and struck the ship.' },
    { id: 'rail', text: 'The President asked Congress to regulate the railroads and their freight rates.' },
    { id: 'tax', text: 'Taxes on imports were lowered to help farmers sell their grain abroad.' },
  ];
  expect((await call(page, 'index/add', { documents: docs })).error).toBeUndefined();
  // The encoder embeds in the background: wait until dense search sees the three documents.
  await expect
    .poll(async () => (await call(page, 'retrieve', { query: 'ship freight grain', mode: 'dense', k: 10 })).result?.hits?.length ?? 0, { timeout: 120_000 })
    .toBe(3);
  for (const mode of ['dense', 'hybrid']) {
    const nonsense = await call(page, 'retrieve', { query: 'qwzx vbnm', mode, k: 10 });
    expect(nonsense.error).toBeUndefined();
    expect(nonsense.result.hits).toEqual([]);
    const typo = await call(page, 'retrieve', { query: 'wite whael', mode, k: 10 });
    expect(typo.result.hits.length).toBeLessThan(docs.length);
    const real = await call(page, 'retrieve', { query: 'what did the president say about railroads', mode, k: 10 });
    expect(real.result.hits[0].id).toMatch(/^rail/);
  }
});

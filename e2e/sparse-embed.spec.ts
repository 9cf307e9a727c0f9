import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { watchOrigin } from './support/playground.ts';
import { call, openTab } from '../tools/lib/rcp-page.ts';

/**
 * `embed/sparse` in the browser worker: SPLADE-tiny (built by `npm run models`) on WASM. The
 * capability is advertised before its weights load; they are fetched on the first `embed/sparse`
 * only (a sparse retrieve before it does not touch them); the vectors match the PyTorch reference
 * (test/models/fixtures/splade-reference.json) on onnxruntime-web; nothing leaves the origin.
 * Skipped, saying why, when the model is not built.
 */
const ROOT = join(import.meta.dirname, '..');
const MODEL = 'splade-tiny';
const ONNX = `/models/${MODEL}/onnx/model.onnx`;
const built = existsSync(join(ROOT, 'dist', 'models', MODEL, 'onnx', 'model.onnx'));

interface Sparse { indices: number[]; values: number[] }
const REFERENCE = JSON.parse(readFileSync(join(ROOT, 'test', 'models', 'fixtures', 'splade-reference.json'), 'utf8')) as { texts: ({ text: string } & Sparse)[] };

function cosine(a: Sparse, b: Sparse): number {
  const bm = new Map(b.indices.map((id, i) => [id, b.values[i]]));
  let dot = 0, na = 0, nb = 0;
  a.indices.forEach((id, i) => ((dot += a.values[i] * (bm.get(id) ?? 0)), (na += a.values[i] ** 2)));
  for (const v of b.values) nb += v * v;
  return dot / Math.sqrt(na * nb);
}

test.use({ serviceWorkers: 'block' }); // a service worker would bypass the config route
test.skip(!built, `${MODEL} is not built: run \`npm run models && npm run build\` (dist/models/${MODEL}/onnx/model.onnx missing)`);
test.setTimeout(180_000);

test(`${MODEL}: sparseEmbed advertised at once, weights fetched on the first embed/sparse, vectors equal to PyTorch's on WASM`, async ({ page, context }) => {
  const net = await watchOrigin(context, { modelConfig: { embedder: 'glove-static-100d', dtype: 'q8', device: 'wasm', sparseEncoder: MODEL } });
  const init = await openTab(page, 'e2e-sparse');
  expect(init.result.capabilities.sparseEmbed).toEqual({ identity: expect.stringMatching(/^splade-tiny@sha256:[0-9a-f]{12}$/), vocabulary: 30522, batchLimit: 256 });

  const added = await call(page, 'index/add', { documents: [{ id: 'w', text: 'the white whale swam beneath the ship' }, { id: 'u', text: 'the state of the union' }] });
  expect(added.error).toBeUndefined();
  const sparse = await call(page, 'retrieve', { query: 'whale', mode: 'sparse', k: 2 });
  expect(sparse.result.hits.map((h: { id: string }) => h.id)).toEqual(['w']);
  expect(net.urls.filter((u) => u.endsWith(ONNX)), 'no SPLADE weights before the first embed/sparse').toEqual([]);

  const res = await call(page, 'embed/sparse', { texts: REFERENCE.texts.map((t) => t.text), kind: 'document' });
  expect(res.error).toBeUndefined();
  // transformers.js probes the file's size before it downloads it: two requests, both after the call.
  expect(net.urls.filter((u) => u.endsWith(ONNX)).length).toBeGreaterThan(0);
  const got = res.result.sparse as Sparse[];
  expect(got).toHaveLength(REFERENCE.texts.length);
  const worst = Math.min(...REFERENCE.texts.map((ref, i) => cosine(ref, got[i])));
  expect(worst).toBeGreaterThanOrEqual(0.9999);

  const bad = await call(page, 'embed/sparse', { texts: ['ok', 3] });
  expect(bad.error).toMatchObject({ code: -32602, data: { field: 'texts[1]' } });
  expect(net.external).toEqual([]);
});

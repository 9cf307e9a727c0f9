import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ORIGIN, guardOrigin } from './support/playground.ts';
import { call, openTab } from '../tools/lib/rcp-page.ts';
import { modelsBuilt } from '../test/support/built-models.ts';

/**
 * The encoder built by `npm run models` (minilm-l6-v2, ONNX written from the wheel's safetensors)
 * in the real browser worker, on WASM and on WebGPU (SwiftShader), fp32 and q8, q8 on WASM both on
 * our own kernels (the fastest SIMD variant here, encoder workers) and on transformers.js, the runtime
 * named by `info`'s `_meta.models.embed.runtime`: RCP `embed` of the
 * reference texts must match upstream sentence-transformers (test/models/fixtures/
 * reference-embeddings.json, made by scripts/models/reference/make-reference.sh): cosine ≥ 0.9999
 * (fp32) / ≥ 0.99 (q8) for every text, the one longer than 256 word pieces included (the runtime
 * truncates before adding [CLS]/[SEP], src/models/truncate.ts). The runtime mean-pools, which is
 * this model's pooling. Skips when the model is not built, outside CI only (in CI it fails).
 */

const ROOT = join(import.meta.dirname, '..');
const MODEL = 'minilm-l6-v2';
const BUILT = modelsBuilt(`dist/models/${MODEL}`, [join(ROOT, 'dist', 'models', MODEL, 'manifest.json')], 'run `npm run models && npm run build`');
const REFERENCE = JSON.parse(readFileSync(join(ROOT, 'test/models/fixtures/reference-embeddings.json'), 'utf8')) as {
  texts: { text: string; input_ids: number[]; embedding: number[] }[];
};

const cosine = (a: number[], b: number[]) => {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) (dot += a[i] * b[i]), (na += a[i] * a[i]), (nb += b[i] * b[i]);
  return dot / Math.sqrt(na * nb);
};

test.skip(!BUILT, `dist/models/${MODEL} is not built (npm run models && npm run build)`);

const CASES = [
  { device: 'wasm', dtype: 'fp32', bound: 0.9999, runtime: 'auto', runs: 'transformers.js' },
  // Our kernels, in whichever variant timed fastest at load (relaxed SIMD or, on a CPU where the int16 form is as fast, plain SIMD).
  { device: 'wasm', dtype: 'q8', bound: 0.99, runtime: 'auto', runs: 'rcp-kernels (WASM' },
  { device: 'wasm', dtype: 'q8', bound: 0.99, runtime: 'transformers.js', runs: 'transformers.js' },
  { device: 'webgpu', dtype: 'fp32', bound: 0.9999, runtime: 'auto', runs: 'transformers.js (webgpu)' },
  { device: 'webgpu', dtype: 'q8', bound: 0.99, runtime: 'auto', runs: 'transformers.js (webgpu)' },
] as const;

for (const { device, dtype, bound, runtime, runs } of CASES) {
  {
    test(`${MODEL} ${dtype} on ${device}${runtime === 'auto' ? '' : ` (${runtime})`} matches sentence-transformers on ${runs}`, async ({ browser }) => {
      // SwiftShader (software WebGPU on shared CPU cores) needs minutes per call for this 6-layer
      // encoder: the worker is configured with a longer `embed` deadline than its 30 s default.
      test.setTimeout(device === 'webgpu' ? 900_000 : 300_000);
      const context = await browser.newContext({ baseURL: ORIGIN, serviceWorkers: 'block' });
      try {
        const external = await guardOrigin(context, { modelConfig: { embedder: MODEL, dtype, device, runtime } });
        const page = await context.newPage();
        const init = await openTab(page, `e2e-encoder-${device}-${dtype}`, {}, device === 'webgpu' ? '?deadline.embed=600000' : '');
        expect(init.result.capabilities.embed).toMatchObject({ dimension: 384, normalized: true });
        // The worker's embed deadline is 30 s: SwiftShader WebGPU is slow, so warm up (the model loads
        // and compiles its shaders on first use; a retryable timeout is retried) and embed a few texts per call.
        for (let attempt = 0; ; attempt++) {
          const w = await call(page, 'embed', { inputs: ['warm up'], encoding: 'json' });
          if (!w.error) break;
          expect(w.error.data?.retryable && attempt < 3, JSON.stringify(w.error)).toBe(true);
        }
        const info = await call(page, 'info', {});
        expect(info.result._meta?.models?.embed?.runtime, JSON.stringify(info.result._meta)).toMatch(new RegExp(`^${runs.replace(/[()]/g, '\\$&')}`));
        const vectors: number[][] = [];
        const per = device === 'webgpu' ? 4 : REFERENCE.texts.length;
        for (let at = 0; at < REFERENCE.texts.length; at += per) {
          const r = await call(page, 'embed', { inputs: REFERENCE.texts.slice(at, at + per).map((t) => t.text), encoding: 'json' });
          expect(r.error, JSON.stringify(r.error)).toBeUndefined();
          vectors.push(...(r.result.vectors as number[][]));
        }
        const cosines = vectors.map((v, i) => cosine(v, REFERENCE.texts[i].embedding));
        console.log(`[encoder e2e] ${MODEL} ${dtype} on ${device}, ${info.result._meta.models.embed.runtime}: min cosine ${Math.min(...cosines).toFixed(7)}`);
        cosines.forEach((c, i) => expect(c, REFERENCE.texts[i].text.slice(0, 60)).toBeGreaterThanOrEqual(bound));
        expect(external).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
}

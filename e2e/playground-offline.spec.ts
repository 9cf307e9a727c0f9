import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { parseModelConfig } from '../src/models/model-config.ts';
import { precomputedFileName } from '../src/models/precomputed.ts';
import { ONNX_FILE } from '../src/models/settings.ts';
import { guardOrigin, openPlayground, search, waitForSeed } from './support/playground.ts';

const DIST = join(import.meta.dirname, '..', 'dist');
/** The model the build precached for (dist/models/config.json), as the worker will read it. */
const readJson = (path: string): unknown => (existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {});
const { config } = parseModelConfig(readJson(join(DIST, 'models', 'config.json')));
const manifest = readJson(join(DIST, 'models', config.embedder, 'manifest.json')) as { files?: Record<string, string> };

test.describe('playground: offline and private', () => {
  test('after the first visit it works with the network off, and nothing ever leaves the origin', async ({ page, context }) => {
    const outside = await guardOrigin(context);
    await openPlayground(page);
    await waitForSeed(page);
    const sw = await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.ready;
      const names = await caches.keys();
      const cache = await caches.open(names.find((n) => n.startsWith('rcp-playground-')) ?? '');
      const keys = (await cache.keys()).map((r) => new URL(r.url).pathname);
      return { active: reg.active?.state, names, keys };
    });
    expect(sw.active).toBe('activated');
    expect(sw.names.filter((n) => n.startsWith('rcp-playground-'))).toHaveLength(1);
    for (const needed of ['/index.html', '/sample/corpus.json']) expect(sw.keys).toContain(needed);
    expect(sw.keys.some((k) => k.startsWith('/ort/'))).toBe(true);
    expect(sw.keys.some((k) => k.startsWith('/models/'))).toBe(true);
    // The configured model's weights (its dtype's file) and its sample vectors, for dense search offline.
    if (manifest.files?.[ONNX_FILE[config.dtype]]) expect(sw.keys).toContain(`/models/${config.embedder}/${ONNX_FILE[config.dtype]}`);
    const vectors = `/sample/${precomputedFileName(config.embedder)}`;
    if (existsSync(join(DIST, vectors))) expect(sw.keys).toContain(vectors);

    await context.setOffline(true);
    await page.reload();
    await expect(page.locator('#status')).toContainText('Connected', { timeout: 60_000 });
    await expect(page.locator('#offline-note')).toBeVisible();
    expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    await search(page, 'white whale');
    await expect(page.locator('#hits li').first()).toContainText(/whale/i);
    // A dense query offline: the model loads from the service worker's cache.
    await expect(page.locator('#model-picker [role=status]')).toContainText(`${config.embedder} ready on`, { timeout: 120_000 });
    await page.locator('#search-options summary').click();
    await page.locator('#mode').selectOption('dense');
    await search(page, 'a whale hunted by a ship');
    await expect(page.locator('#hits li .bar-dense').first()).toBeAttached();
    await expect(page.locator('#hits li').first()).toContainText(/whale|ship|sea/i);
    await page.locator('#hits li .hit-title').first().click();
    await expect(page.locator('#doc-passage')).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('offline.png') });
    await context.setOffline(false);
    expect(outside).toEqual([]);
  });
});

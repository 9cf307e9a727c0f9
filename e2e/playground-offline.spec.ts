import { expect, test } from '@playwright/test';
import { guardOrigin, openPlayground, search, waitForSeed } from './support/playground.ts';

test.describe('playground: offline and private', () => {
  test('after the first visit it works with the network off, and nothing ever leaves the origin', async ({ page, context }) => {
    const outside = await guardOrigin(context, page);
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

    await context.setOffline(true);
    await page.reload();
    await expect(page.locator('#status')).toContainText('Connected', { timeout: 60_000 });
    await expect(page.locator('#offline-note')).toBeVisible();
    expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    await search(page, 'white whale');
    await expect(page.locator('#hits li').first()).toContainText(/whale/i);
    await page.locator('#hits li .hit-title').first().click();
    await expect(page.locator('#doc-passage')).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('offline.png') });
    await context.setOffline(false);
    expect(outside).toEqual([]);
  });
});

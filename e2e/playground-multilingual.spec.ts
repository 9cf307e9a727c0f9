import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { guardOrigin, searched, waitForSeed, wasmModel } from './support/playground.ts';

/**
 * Cross-language search at first open with the multilingual model: the sample corpus holds the
 * Universal Declaration of Human Rights in twelve languages (scripts/build-sample.ts), first in the
 * seeding order, and their multilingual-e5-small vectors ship beside it (vectors-multilingual-e5-
 * small.bin, `--source udhr`), so once the model is ready the page's "Recht auf Bildung" (German:
 * the right to education) finds article 26 in other languages and scripts, while the English
 * books still re-embed in the background. Needs e5: MiniLM maps these texts to noise, and keyword
 * search finds only the German article.
 */

const ROOT = join(import.meta.dirname, '..');
const MODEL = 'multilingual-e5-small';
const VECTORS = join(ROOT, 'dist', 'sample', `vectors-${MODEL}.bin`);

test.use({ serviceWorkers: 'block' }); // a service worker would bypass the config route
test.skip(!existsSync(join(ROOT, 'dist', 'models', MODEL, 'manifest.json')) || !existsSync(VECTORS), `dist/models/${MODEL} or ${VECTORS} is not built (npm run setup, then npm run build)`);

test('with the multilingual model, a German query finds the article in Japanese, Russian, Arabic and Hindi', async ({ page, context }) => {
  test.setTimeout(600_000);
  const external = await guardOrigin(context, { modelConfig: wasmModel(MODEL) });
  await page.goto('/index.html');
  await waitForSeed(page, 300_000);
  await expect(page.locator('#model-picker [role=status]')).toContainText(`${MODEL} ready on`, { timeout: 300_000 });

  await page.getByRole('button', { name: 'Recht auf Bildung' }).click();
  await searched(page, 'Recht auf Bildung');
  const hits = page.locator('#hits li');
  // The article's heading in each declaration: 第26条 (ja), Статья 26 (ru), المادة 26 (ar), अनुच्छेद २६ (hi).
  for (const heading of ['第26条', 'Статья 26', 'المادة 26', 'अनुच्छेद २६']) await expect(hits.filter({ hasText: heading }).first(), heading).toBeVisible({ timeout: 120_000 });
  await expect(hits.first()).toContainText(/Bildung|26/);
  expect(external).toEqual([]);
});

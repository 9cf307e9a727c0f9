import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { guardOrigin, search, showArea, skipSample, wasmModel } from './support/playground.ts';

/**
 * The model picker: starting on the static model (/models/config.json, served by a route), the
 * person picks the transformer encoder; the page reloads, shows the index re-embedding in the
 * background, then the encoder ready, and dense search answers from the new model (its identity in
 * the capabilities). The config file keeps working underneath: the choice is stored per browser.
 */

const ROOT = join(import.meta.dirname, '..');
const FROM = 'glove-static-100d';
const TO = 'minilm-l6-v2';

test.use({ serviceWorkers: 'block' }); // a service worker would bypass the config route
test.skip(!existsSync(join(ROOT, 'dist', 'models', TO, 'manifest.json')), `dist/models/${TO} is not built`);

test('switching the model re-embeds the index in the background, then dense search uses the new model', async ({ page, context }) => {
  test.setTimeout(420_000);
  const external = await guardOrigin(context, { modelConfig: wasmModel(FROM) });
  await skipSample(page);
  await page.goto('/index.html');
  const state = page.locator('#model-picker [role=status]');
  await expect(state).toContainText(`${FROM} ready`, { timeout: 120_000 });
  // Enough passages that re-embedding them on WASM takes a while (the status is polled every 3 s).
  const paragraphs = Array.from({ length: 400 }, (_, i) => `Paragraph ${i}: the white whale swam past the ship while the crew of the Pequod watched the sea, and the captain spoke of the hunt.`);
  await showArea(page, 'import');
  await page.locator('#paste-text').fill(paragraphs.join('\n\n'));
  await page.getByRole('button', { name: 'Add pasted text' }).click();
  await expect(page.locator('#progress-done')).toContainText(/Imported/, { timeout: 120_000 });
  await expect(page.locator('#capabilities')).toContainText(`${FROM}@sha256:`);

  await showArea(page, 'models');
  const reloaded = page.waitForEvent('load');
  await page.locator(`input[name=dense-model][value="${TO}"]`).check();
  await reloaded;
  await expect(state).toContainText(/Embedding in the background: [\d,]+ of [\d,]+ passages/, { timeout: 120_000 });
  await expect(state).toContainText(`${TO} ready on`, { timeout: 300_000 });
  await expect(state).not.toContainText('Embedding in the background', { timeout: 300_000 });
  await expect(page.locator(`input[name=dense-model][value="${TO}"]`)).toBeChecked();
  await expect(page.locator('#capabilities')).toContainText(`${TO}@sha256:`);

  await showArea(page, 'search');
  await page.locator('#search-options summary').click();
  await page.locator('#mode').selectOption('dense');
  await search(page, 'a whale near a boat');
  await expect(page.locator('#hits li').first()).toContainText(/whale/i);
  await expect(page.locator('#hits li .bar-dense').first()).toBeAttached();
  expect(external).toEqual([]);
});

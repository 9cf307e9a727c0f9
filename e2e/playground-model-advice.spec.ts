import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { buildSample } from '../scripts/build-sample.ts';
import { guardOrigin, openPlayground, waitForSeed, wasmModel } from './support/playground.ts';
import { call, openTab } from '../tools/lib/rcp-page.ts';

/**
 * The model advice below the search results. The built-in sample holds the Declaration of Human
 * Rights in eleven languages besides English, but it is ours: its first open on the default model
 * shows no advice against that model (issue 45). Once the person adds documents in other languages
 * (here: declarations without the sample's `sample:` URI, from a second tab), a note on the English
 * model says how many of their documents are in other languages and offers the multilingual model;
 * "Not now" hides it for good in this browser, and "Use" switches (the page reloads on the new
 * model, as the model picker does).
 */

const ROOT = join(import.meta.dirname, '..');
const TO = 'multilingual-e5-small';

test.use({ serviceWorkers: 'block' }); // a service worker would bypass the config route
test.skip(!existsSync(join(ROOT, 'dist', 'models', TO, 'manifest.json')), `dist/models/${TO} is not built`);

test('on the English model, a multilingual index gets advice to switch, which "Not now" dismisses and "Use" follows', async ({ page, context }) => {
  test.setTimeout(300_000);
  const external = await guardOrigin(context, { modelConfig: wasmModel('minilm-l6-v2') });
  await openPlayground(page);
  await waitForSeed(page);
  const advice = page.locator('#model-advice');
  // The sample alone: no advice against the model in use.
  await expect(page.locator('#model-picker [role=status]')).toContainText('minilm-l6-v2 ready', { timeout: 120_000 });
  await page.waitForTimeout(12_000); // past the advice's 10 s refresh throttle: it would be drawn by now
  await expect(advice).toBeHidden();

  // The person's own documents in other languages (no sample URI), added from another tab.
  const tab = await context.newPage();
  await openTab(tab, 'e2e-advice');
  const own = buildSample().documents
    .filter((d) => d.meta.source === 'udhr' && d.meta.lang !== 'en' && (d.meta.article ?? 99) <= 3)
    .map((d) => ({ id: `mine-${d.id}`, text: d.text, meta: { title: d.meta.title, lang: d.meta.lang } }));
  expect(own.length).toBeGreaterThanOrEqual(30);
  expect((await call(tab, 'index/add', { documents: own })).error).toBeUndefined();
  await tab.close();
  await expect(advice).toBeVisible({ timeout: 60_000 });
  await expect(advice).toContainText(new RegExp(`${own.length} of your ${own.length} documents are not in English \\(.*German \\d+`));
  await expect(advice).toContainText('minilm-l6-v2 compares meanings in English only');
  await expect(advice.getByRole('button', { name: `Use ${TO}` })).toBeVisible();

  // "Not now" hides it, also after a reload.
  await advice.getByRole('button', { name: 'Not now' }).click();
  await expect(advice).toBeHidden();
  await page.reload();
  await expect(page.locator('#status')).toContainText('Connected', { timeout: 60_000 });
  await expect(page.locator('#model-picker [role=status]')).toContainText('minilm-l6-v2 ready', { timeout: 120_000 });
  await page.waitForTimeout(4_000); // two status polls: the advice would be drawn by now
  await expect(advice).toBeHidden();

  // Asked again (the dismissal forgotten), "Use" switches to the multilingual model.
  await page.evaluate(() => localStorage.removeItem('rcp-playground:model-advice-dismissed'));
  await page.reload();
  await expect(advice).toBeVisible({ timeout: 60_000 });
  const reloaded = page.waitForEvent('load');
  await advice.getByRole('button', { name: `Use ${TO}` }).click();
  await reloaded;
  await expect(page.locator(`input[name=dense-model][value="${TO}"]`)).toBeChecked({ timeout: 60_000 });
  await expect(page.locator('#model-picker [role=status]')).toContainText(TO, { timeout: 120_000 });
  expect(external).toEqual([]);
});

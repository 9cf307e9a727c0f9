import { expect, test } from '@playwright/test';
import { openPlayground, search, searched, showArea, skipSample } from './support/playground.ts';

async function addPasted(page: import('@playwright/test').Page, title: string, text: string) {
  await showArea(page, 'import');
  await page.locator('#paste-title').fill(title);
  await page.locator('#paste-text').fill(text);
  await page.getByRole('button', { name: 'Add pasted text' }).click();
  await expect(page.locator('#progress-done')).toContainText('Imported 1 document', { timeout: 60_000 });
  await showArea(page, 'search');
}

test.describe('playground: for everyone', () => {
  test('keyboard only: skip link, search, open a hit, Escape returns focus; every control is labelled', async ({ page }) => {
    await skipSample(page);
    await openPlayground(page);
    await addPasted(page, 'Keyboard note', 'The cooper mends the barrels of the whaler before the voyage.');
    await page.reload(); // start from the top of the page, as a keyboard user arriving would
    await expect(page.locator('#status')).toContainText('Connected', { timeout: 60_000 });
    await page.keyboard.press('Tab');
    await expect(page.locator('a.skip')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.locator('#q')).toBeFocused();
    await page.keyboard.type('cooper barrels');
    await searched(page, 'cooper barrels');
    let onHit = false;
    for (let i = 0; i < 40 && !onHit; i++) {
      await page.keyboard.press('Tab');
      onHit = await page.evaluate(() => document.activeElement?.classList.contains('hit-title') ?? false);
    }
    expect(onHit).toBe(true);
    await page.keyboard.press('Enter');
    await expect(page.locator('#doc-title')).toBeFocused();
    await expect(page.locator('#doc-passage')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.locator('#doc-panel')).toBeHidden();
    await expect(page.locator('#hits li .hit-title').first()).toBeFocused();

    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('input, select, textarea')]
        .filter((c) => !(c.labels?.length || c.getAttribute('aria-label') || c.getAttribute('aria-labelledby')))
        .map((c) => c.id || c.outerHTML),
    );
    expect(unlabelled).toEqual([]);
  });

  test('errors in plain words, the RCP code on demand', async ({ page }) => {
    await skipSample(page);
    await openPlayground(page);
    await addPasted(page, 'Dated note', 'A dated note about almanacs.');
    await page.locator('#search-options summary').click();
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 field').selectOption('date');
    await page.getByLabel('Filter 1 operator').selectOption('in');
    await page.getByLabel('Filter 1 value').fill('not a date');
    await page.locator('#q').fill('almanacs');
    const err = page.locator('#search-status .error');
    await expect(err).toContainText('Something in the request is not allowed', { timeout: 10_000 });
    await expect(err.locator('details')).not.toHaveAttribute('open', '');
    await err.locator('summary').click();
    await expect(err.locator('summary')).toContainText('RCP code -32602');
    await expect(err.locator('pre')).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('error.png') });
  });

  test('usable at 360 px wide', async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    await skipSample(page);
    await openPlayground(page);
    await expect(page.locator('#empty-state')).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('mobile-360-empty.png'), fullPage: true });
    await addPasted(page, 'Mobile note', 'Scrimshaw is carved whalebone, a sailor’s pastime on long voyages.');
    await search(page, 'scrimshaw');
    await page.locator('#hits li .hit-title').first().click();
    await expect(page.locator('#doc-passage')).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: test.info().outputPath('mobile-360.png'), fullPage: true });
  });

  test('the document list follows changes made in another tab', async ({ context }) => {
    const a = await context.newPage();
    const b = await context.newPage();
    for (const p of [a, b]) {
      await skipSample(p);
      await openPlayground(p);
    }
    await showArea(b, 'documents');
    await addPasted(a, 'From tab A', 'Tab A wrote this note about sea shanties.');
    await expect(b.locator('#doc-list')).toContainText('From tab A', { timeout: 20_000 });
  });
});

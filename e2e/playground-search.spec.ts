import { expect, test } from '@playwright/test';
import { guardOrigin, openPlayground, search, showArea, waitForSeed } from './support/playground.ts';

test.describe('playground: sample corpus and search', () => {
  test('first run seeds the sample corpus; search works within seconds; results, scores and the document panel', async ({ page, context }) => {
    const outside = await guardOrigin(context);
    const t0 = Date.now();
    await openPlayground(page);
    // Search while seeding is still under way: the declarations (small) and Moby-Dick go first.
    await page.locator('#q').fill('white whale');
    await expect(page.locator('#hits li').first()).toBeVisible({ timeout: 30_000 });
    const firstResultMs = Date.now() - t0;
    test.info().annotations.push({ type: 'time to first search result (ms)', description: String(firstResultMs) });
    console.log(`time to first search result: ${firstResultMs} ms`);
    await expect(page.locator('#hits li').first()).toContainText(/whale/i);
    await page.screenshot({ path: test.info().outputPath('search-while-seeding.png') });

    await waitForSeed(page);
    const seededMs = Date.now() - t0;
    console.log(`sample corpus seeded after: ${seededMs} ms`);
    await expect(page.locator('#index-stats')).toContainText('743 documents');

    // Highlighted terms and score bars.
    await search(page, 'railroads');
    const first = page.locator('#hits li').first();
    await expect(first.locator('mark.term').first()).toBeVisible();
    await expect(first.locator('.score-bars dt').first()).toBeVisible();

    // Filters from the advertised fields: only speeches from 1900 on.
    await page.locator('#search-options summary').click();
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 field').selectOption('year');
    await page.getByLabel('Filter 1 operator').selectOption('gte');
    await page.getByLabel('Filter 1 value').fill('1950');
    await expect(page.locator('#hits[data-request*="gte"]')).toBeAttached({ timeout: 10_000 });
    const years = await page.locator('#hits li .hit-pos').allTextContents();
    for (const y of years) expect(Number(/(\d{4})$/.exec(y)?.[1])).toBeGreaterThanOrEqual(1950);
    await page.screenshot({ path: test.info().outputPath('search-filtered.png'), fullPage: true });

    // Open the document at the passage.
    await page.locator('#hits li .hit-title').first().click();
    await expect(page.locator('#doc-panel')).toBeVisible();
    await expect(page.locator('#doc-passage')).toBeVisible();
    await expect(page.locator('#doc-passage mark.term').first()).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('document-panel.png') });
    await page.keyboard.press('Escape');
    await expect(page.locator('#doc-panel')).toBeHidden();

    // A reload never duplicates the sample.
    await page.reload();
    await expect(page.locator('#index-stats')).toContainText('743 documents', { timeout: 30_000 });
    expect(outside).toEqual([]);
  });

  test('a newer query cancels the one in flight with notifications/cancel', async ({ page }) => {
    await openPlayground(page);
    await page.locator('#q').fill('whale');
    await expect(page.locator('#hits li').first()).toBeVisible({ timeout: 30_000 });
    // A large pasted import holds the session's write barrier for a while; a search sent after it
    // waits behind it (read-your-writes), so it is surely still in flight when the next query
    // replaces it.
    await showArea(page, 'import');
    await page.locator('#paste-text').fill('Long pasted text about rigging and sails. '.repeat(40_000));
    await page.getByRole('button', { name: 'Add pasted text' }).click();
    const retrieves = page.locator('#frames li summary', { hasText: 'request retrieve' });
    const before = await retrieves.count(); // the whale query's
    await page.locator('#q').fill('harpoon');
    // The harpoon retrieve has been sent (after the debounce): it waits behind the import's write.
    await expect.poll(() => retrieves.count(), { timeout: 30_000 }).toBeGreaterThan(before);
    await page.locator('#q').fill('ship');
    await expect(page.locator('#hits[data-request*="ship"]')).toBeAttached({ timeout: 30_000 });
    const frames = await page.evaluate(() => [...document.querySelectorAll('#frames li details')].map((d) => d.querySelector('summary')?.textContent ?? ''));
    const cancels = frames.filter((f) => f.includes('notifications/cancel'));
    expect(cancels.length).toBeGreaterThanOrEqual(1);
    // The cancelled retrieve is answered with -32006 (or not at all if it already finished).
    await page.screenshot({ path: test.info().outputPath('cancel.png') });
  });
});

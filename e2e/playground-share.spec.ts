import { expect, test } from '@playwright/test';
import { guardOrigin, openPlayground, search, searched, skipSample } from './support/playground.ts';
import { watchConsole } from './support/page-health.ts';

const DOCS = [
  { id: 'old-log', title: 'Old whaling log', text: 'The whale surfaced near the ship and the harpoon struck.', meta: { year: 1850 } },
  { id: 'new-log', title: 'New whaling report', text: 'A whale was seen by the research vessel; no harpoon was thrown.', meta: { year: 1950 } },
];

test.describe('playground: shareable search state', () => {
  test('query, mode, fusion, k and filters go into the address as you type; opening it restores and runs the search', async ({ page, context }) => {
    const outside = await guardOrigin(context);
    const errors = watchConsole(page);
    await skipSample(page);
    await openPlayground(page);
    await page.locator('#file-input').setInputFiles({ name: 'logs.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(DOCS)) });
    await expect(page.locator('#progress-done')).toContainText('Imported 2 documents', { timeout: 120_000 });

    await page.locator('#search-options summary').click();
    await page.locator('#mode').selectOption('hybrid');
    await page.locator('#fusion').selectOption('weighted');
    await page.locator('#k').fill('5');
    await page.locator('#k').dispatchEvent('change');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 field').selectOption('year');
    await page.getByLabel('Filter 1 operator').selectOption('gte');
    await page.getByLabel('Filter 1 value').fill('1900');
    await search(page, 'whale harpoon');
    await expect(page.locator('#hits li.hit')).toHaveCount(1);
    await expect(page.locator('#hits li.hit .hit-title')).toHaveText('New whaling report');

    // The address carries the whole search, updated without new history entries.
    const historyLength = await page.evaluate(() => history.length);
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('whale harpoon');
    const url = new URL(page.url());
    expect(url.searchParams.get('mode')).toBe('hybrid');
    expect(url.searchParams.get('fusion')).toBe('weighted');
    expect(url.searchParams.get('k')).toBe('5');
    expect(JSON.parse(url.searchParams.get('filter')!)).toEqual({ field: 'year', op: 'gte', value: 1900 });
    expect(await page.evaluate(() => history.length)).toBe(historyLength);

    // Opened in a new tab, the address restores every control and runs the same search.
    const other = await context.newPage();
    const otherErrors = watchConsole(other);
    await other.goto(url.pathname + url.search);
    await searched(other, 'whale harpoon');
    await expect(other.locator('#q')).toHaveValue('whale harpoon');
    await expect(other.locator('#mode')).toHaveValue('hybrid');
    await expect(other.locator('#fusion')).toHaveValue('weighted');
    await expect(other.locator('#k')).toHaveValue('5');
    await expect(other.getByLabel('Filter 1 field')).toHaveValue('year');
    await expect(other.getByLabel('Filter 1 operator')).toHaveValue('gte');
    await expect(other.getByLabel('Filter 1 value')).toHaveValue('1900');
    const request = JSON.parse((await other.locator('#hits').getAttribute('data-request'))!) as Record<string, unknown>;
    expect(request).toMatchObject({ query: 'whale harpoon', k: 5, mode: 'hybrid', fusion: { method: 'weighted' }, filter: { field: 'year', op: 'gte', value: 1900 } });
    await expect(other.locator('#hits li.hit .hit-title')).toHaveText('New whaling report');
    expect(errors).toEqual([]);
    expect(otherErrors).toEqual([]);
    expect(outside).toEqual([]);
  });
});

import { expect, test, type Page } from '@playwright/test';
import { watchConsole } from './support/page-health.ts';
import { guardOrigin, openPlayground, search, searched, skipSample, waitForVectors } from './support/playground.ts';

async function importFile(page: Page, name: string, text: string | Buffer, expected: RegExp | string = /Imported/): Promise<void> {
  await page.locator('#file-input').setInputFiles({ name, mimeType: 'application/octet-stream', buffer: typeof text === 'string' ? Buffer.from(text) : text });
  await expect(page.locator('#progress-done')).toContainText(expected, { timeout: 120_000 });
}

test.describe('playground: defects a new user met (issue 12)', () => {
  test('a query typed before the engine connects runs on connect; Enter never navigates', async ({ page, context }) => {
    const outside = await guardOrigin(context);
    const errors = watchConsole(page);
    await skipSample(page);
    await page.goto('/index.html');
    // A navigation (a submitted form) would load a fresh document and lose this marker; the address
    // itself may change, since it carries the search (history.replaceState, no navigation).
    await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
    await page.locator('#q').fill('whale');
    await page.locator('#q').press('Enter');
    await searched(page, 'whale');
    await expect(page.locator('#status')).toContainText('Connected');
    expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/index.html');
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });

  test('marks exactly what the engine matched: no prefixes, no stopwords, CJK too', async ({ page, context }) => {
    const outside = await guardOrigin(context);
    const errors = watchConsole(page);
    await skipSample(page);
    await openPlayground(page);
    await importFile(page, 'notes.txt', 'Call me Ishmael. The meanings of whales, and whaling with a wite.\n\n我爱白鯨。黒猫がいる。');
    await search(page, 'me whales');
    const marks = await page.locator('#hits li').first().locator('mark.term').allTextContents();
    expect(marks).toEqual(['whales', 'whaling']);
    await search(page, 'wite');
    expect(await page.locator('#hits li').first().locator('mark.term').allTextContents()).toEqual(['wite']);
    await search(page, '白鯨');
    expect(await page.locator('#hits li').first().locator('mark.term').allTextContents()).toEqual(['白鯨']);
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });

  test('a large document opens as a window around the passage and loads more on scroll', async ({ page, context }) => {
    const outside = await guardOrigin(context);
    const errors = watchConsole(page);
    await skipSample(page);
    await openPlayground(page);
    const filler = 'The sea was calm and the ship sailed on through the long grey morning. '.repeat(30_000); // ≈ 2.1 M chars
    const half = filler.length / 2;
    await importFile(page, 'long.txt', `${filler.slice(0, half)}\n\nThe zyzzogeton beetle sat on the mast.\n\n${filler.slice(half)}`);
    await search(page, 'zyzzogeton');
    await page.locator('#hits li .hit-title').first().click();
    await expect(page.locator('#doc-passage mark.term')).toHaveText('zyzzogeton');
    await expect(page.locator('#doc-meta')).toContainText('characters');
    const shown = await page.locator('#doc-body .doc-text').evaluate((n) => n.textContent?.length ?? 0);
    expect(shown).toBeLessThan(100_000);
    // Scrolling to the end of what is shown loads the next slice.
    await page.locator('#doc-body').evaluate((n) => n.scrollTo(0, n.scrollHeight));
    await expect.poll(() => page.locator('#doc-body .doc-text').evaluate((n) => n.textContent?.length ?? 0)).toBeGreaterThan(shown);
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });

  test('results stay put while an import runs; new results are offered, not forced', async ({ page, context }) => {
    const outside = await guardOrigin(context);
    const errors = watchConsole(page);
    await skipSample(page);
    await openPlayground(page);
    await importFile(page, 'first.txt', 'A lone whale in the first file.');
    await waitForVectors(page);
    await search(page, 'whale');
    // The typed query's own answer, announced: a commit landing while its debounce ran can show the
    // same results first (a query waiting for documents is answered by each commit), and the typed
    // run then renders them again; only renders after that count.
    await expect(page.locator('#search-status')).toContainText('1 result');
    await page.locator('#hits').evaluate((n) => {
      const w = window as unknown as { __renders: number };
      w.__renders = 0;
      new MutationObserver(() => w.__renders++).observe(n, { childList: true });
    });
    // Asking again with nothing changed announces the answer but keeps the shown results' DOM.
    await page.locator('#search-status').evaluate((n) => n.replaceChildren());
    await page.locator('#q').press('Enter');
    await expect(page.locator('#search-status')).toContainText('1 result');
    const docs = Array.from({ length: 400 }, (_, i) => ({ id: `w-${i}`, title: `Whale log ${i}`, text: `Whale sighting number ${i}. `.repeat(60) }));
    await importFile(page, 'many.json', JSON.stringify(docs), 'Imported 400 documents');
    await expect(page.locator('#new-results')).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { __renders: number }).__renders)).toBe(0);
    await page.locator('#new-results').click();
    await expect(page.locator('#hits li.hit')).toHaveCount(10);
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });

  test('filters: bad numbers are errors, no-results names the filter, k=0 is an error', async ({ page, context }) => {
    const outside = await guardOrigin(context);
    const errors = watchConsole(page);
    await skipSample(page);
    await openPlayground(page);
    await importFile(page, 'speeches.json', JSON.stringify([{ id: 's1', text: 'Railroads across the nation.', meta: { title: 'Speech', author: 'Abraham Lincoln', year: 1862 } }]));
    await search(page, 'railroads');
    await page.locator('#search-options summary').click();
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 field').selectOption('year');
    await page.getByLabel('Filter 1 operator').selectOption('gte');
    await page.getByLabel('Filter 1 value').pressSequentially('19e');
    await expect(page.locator('#search-status')).toContainText('not a valid whole number');
    await page.getByLabel('Filter 1 value').fill('1950');
    await expect(page.locator('#search-status')).toContainText('year ≥ “1950”');
    await expect(page.locator('#search-status')).toContainText('No results');
    await page.getByRole('button', { name: 'Remove filter 1' }).click();
    // Keyword values come from the index with counts (keyword filters match exactly).
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 2 field').selectOption('author');
    await page.getByLabel('Filter 2 value').focus();
    await expect(page.locator('#filters datalist option[value="Abraham Lincoln"]')).toHaveAttribute('label', '1 document');
    await page.getByRole('button', { name: 'Remove filter 2' }).click();
    await page.locator('#k').fill('0');
    await page.locator('#k').dispatchEvent('change');
    await expect(page.locator('#search-status')).toContainText('k must be a whole number');
    // A very long query is not echoed whole.
    await page.locator('#k').fill('10');
    await page.locator('#q').fill(`zzz${'q'.repeat(5000)}`);
    await expect(page.locator('#search-status')).toContainText('No results');
    expect((await page.locator('#search-status').textContent())!.length).toBeLessThan(300);
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });

  test('below 1024 px the document panel is a drawer with its title in view', async ({ page, context }) => {
    const outside = await guardOrigin(context);
    await page.setViewportSize({ width: 800, height: 700 });
    await skipSample(page);
    await openPlayground(page);
    await importFile(page, 'a.txt', Array.from({ length: 40 }, (_, i) => `Paragraph ${i} about whales and the sea.`).join('\n\n'));
    await search(page, 'whales');
    await page.locator('#hits li .hit-title').first().click();
    await expect(page.locator('#doc-title')).toBeInViewport();
    expect(await page.locator('#doc-panel').evaluate((n) => getComputedStyle(n).position)).toBe('fixed');
    await page.keyboard.press('Escape');
    await expect(page.locator('#doc-panel')).toBeHidden();
    expect(outside).toEqual([]);
  });
});

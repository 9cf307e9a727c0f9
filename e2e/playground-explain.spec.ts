import { expect, test } from '@playwright/test';
import { openStaticPlayground, search, waitForVectors } from './support/playground.ts';

/** A long document about whaling: many passages that all mention the harpoon. */
const LOGBOOK = Array.from({ length: 12 }, (_, i) => `Day ${i + 1}. The harpoon flew true and the crew hauled the line; ambergris was found in the whale's belly. `.repeat(12)).join('\n\n');

test.describe('playground: results grouped by document, scores explained', () => {
  test('passages of one document are grouped behind "N more passages"; each result says in words why it is here', async ({ page, context }) => {
    const { outside, errors } = await openStaticPlayground(page, context);
    await page.locator('#file-input').setInputFiles([
      { name: 'logbook.txt', mimeType: 'text/plain', buffer: Buffer.from(LOGBOOK) },
      { name: 'letter.txt', mimeType: 'text/plain', buffer: Buffer.from('A short letter about a harpoon maker in Nantucket.') },
    ]);
    await expect(page.locator('#progress-done')).toContainText('Imported 2 documents', { timeout: 120_000 });
    await waitForVectors(page);

    await page.locator('#search-options summary').click();
    await page.locator('#mode').selectOption('hybrid');
    await page.locator('#k').fill('20');
    await search(page, 'harpoon ambergris');
    // Two documents, so two groups; the logbook's other passages are behind a disclosure.
    const groups = page.locator('#hits > li.hit-group');
    await expect(groups).toHaveCount(2);
    const logbook = groups.filter({ hasText: 'logbook' });
    const more = logbook.locator('details.more-passages');
    await expect(more.locator('summary')).toHaveText(/^\d+ more passages? from this document$/);
    const n = Number((await more.locator('summary').textContent())!.match(/^\d+/)![0]);
    expect(n).toBeGreaterThan(0);
    await expect(more.locator('li.hit').first()).toBeHidden();
    await more.locator('summary').click();
    await expect(more.locator('li.hit')).toHaveCount(n);
    await expect(more.locator('li.hit').first()).toBeVisible();
    const ids = (await page.locator('#hits').getAttribute('data-ids'))!.split('\n');
    expect(await page.locator('#hits li.hit').count()).toBe(ids.length); // every passage returned is shown, grouped

    // Plain words: the words the engine matched, the cosine, and named per-stage numbers.
    const first = groups.first();
    await expect(first.locator(':scope > .why')).toContainText(/Matched the words? “(harpoon|ambergris)”/);
    await expect(first.locator(':scope > .why')).toContainText(/keyword score \d+\.\d\d \(BM25/);
    await expect(first.locator(':scope > .why')).toContainText(/Closeness in meaning: cosine -?\d\.\d\d/);
    expect(await first.locator(':scope > .score-bars dt').allTextContents()).toEqual(['meaning (cosine)', 'keywords (BM25)']);
    // The fused number is not shown as a score; the labelled numbers are the same whatever the fusion.
    const labelled = async () => (await first.locator(':scope > .why').textContent())!.match(/keyword score [\d.]+|cosine -?[\d.]+/g);
    const withDefault = await labelled();
    const fusions = await page.locator('#fusion option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    expect(fusions.length).toBeGreaterThan(1); // this build advertises rrf and weighted
    {
      await page.locator('#fusion').selectOption(fusions.find((f) => f !== 'rrf') ?? fusions[1]);
      await expect(page.locator('#hits')).toHaveAttribute('data-request', /"fusion"/);
      const sameDoc = page.locator(`#hits li.hit[data-id="${await first.getAttribute('data-id')}"]`);
      const again = (await sameDoc.locator(':scope > .why').textContent())!.match(/keyword score [\d.]+|cosine -?[\d.]+/g);
      expect(again).toEqual(withDefault);
    }

    // Rerank: the reranker's score and where it moved the passage.
    await expect(page.locator('#rerank-field')).toBeVisible(); // this build advertises a reranker
    {
      await page.locator('#rerank').check();
      await expect(page.locator('#hits')).toHaveAttribute('data-request', /"rerank"/, { timeout: 60_000 });
      await expect(page.locator('#hits li.hit').first().locator(':scope > .why')).toContainText(/read your query and this passage together, scored it -?\d+\.\d\d (and kept it at|and moved it (up|down) from) #/);
      await expect(page.locator('#hits li.hit').first().locator(':scope > .score-bars')).toContainText('reranker');
    }
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });
});

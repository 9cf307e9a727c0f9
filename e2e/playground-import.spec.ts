import { expect, test, type Page } from '@playwright/test';
import { guardOrigin, makePdf, openPlayground, search, showArea, skipSample } from './support/playground.ts';

/** Runs `check` with the search mode set to sparse, then back to the default. */
async function lexically(page: Page, check: () => Promise<void>): Promise<void> {
  await showArea(page, 'search');
  await page.locator('#search-options').evaluate((d) => ((d as HTMLDetailsElement).open = true));
  await page.locator('#mode').selectOption('sparse');
  await check();
  await page.locator('#mode').selectOption('');
}

const files = [
  { name: 'zeppelins.md', mimeType: 'text/markdown', buffer: Buffer.from('# Zeppelins\n\nRigid airships, or **zeppelins**, crossed the Atlantic in the 1930s.\n') },
  {
    name: 'lighthouse.html',
    mimeType: 'text/html',
    buffer: Buffer.from('<!doctype html><title>Lighthouses</title><style>.x{color:red}</style><script>var hiddenscript = 1</script><h1>Lighthouses</h1><p>A lighthouse keeper trims the lamp at dusk.</p><noscript>noscriptonly</noscript><template>templateonly</template>'),
  },
  { name: 'quasar.pdf', mimeType: 'application/pdf', buffer: makePdf(['Quasars are luminous active galactic nuclei.', 'They outshine whole galaxies.'], 'Quasar notes') },
  {
    name: 'corpus.jsonl',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from(
      [
        { _id: 'beir-1', title: 'Tides', text: 'Tides are caused by the gravitational pull of the moon.' },
        { _id: 'beir-2', title: 'Glaciers', text: 'Glaciers carve valleys over thousands of years.' },
      ].map((o) => JSON.stringify(o)).join('\n'),
    ),
  },
  { name: 'list.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify([{ id: 'json-1', text: 'Volcanoes erupt molten basalt.', meta: { tags: ['geology'] } }, { title: 'Comets', text: 'Comets grow tails near the sun.' }])) },
];

test.describe('playground: import, list, delete, re-index, clear', () => {
  test('imports .md, .html (visible text only), .pdf, BEIR .jsonl and .json; paste; drop; list and delete', async ({ page, context }) => {
    const outside = await guardOrigin(context);
    await skipSample(page);
    await openPlayground(page);
    await expect(page.locator('#empty-state')).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('empty-state.png') });

    await page.locator('#file-input').setInputFiles(files);
    await expect(page.locator('#progress-done')).toContainText('Imported 7 documents', { timeout: 60_000 });
    await expect(page.locator('#index-stats')).toContainText('7 documents');

    for (const [q, expected] of [['zeppelins', 'Zeppelins'], ['lighthouse keeper', 'Lighthouses'], ['quasars galaxies', 'Quasar notes'], ['moon tides', 'Tides'], ['glaciers', 'Glaciers'], ['basalt', 'json-1'], ['comets', 'Comets']]) {
      await search(page, q);
      await expect(page.locator('#hits li .hit-title').first()).toHaveText(expected);
    }
    // HTML: only visible text was indexed (asked lexically: a sentence encoder finds something near any word).
    await lexically(page, async () => {
      for (const hidden of ['hiddenscript', 'noscriptonly', 'templateonly', 'color']) {
        await page.locator('#q').fill(hidden);
        await expect(page.locator('#search-status')).toContainText(`No results for “${hidden}”`, { timeout: 10_000 });
      }
    });
    // The PDF opens with its text layer.
    await search(page, 'quasars');
    await page.locator('#hits li .hit-title').first().click();
    await expect(page.locator('#doc-body')).toContainText('Quasars are luminous active galactic nuclei.');
    await page.locator('#doc-close').click();

    // Paste.
    await showArea(page, 'import');
    await page.locator('#paste-title').fill('Pasted note');
    await page.locator('#paste-text').fill('Narwhals have a single long tusk.');
    await page.getByRole('button', { name: 'Add pasted text' }).click();
    await expect(page.locator('#progress-done')).toContainText('Imported 1 document');
    await search(page, 'narwhal tusk');
    await expect(page.locator('#hits li .hit-title').first()).toHaveText('Pasted note');

    // Drag and drop.
    const dt = await page.evaluateHandle(() => {
      const d = new DataTransfer();
      d.items.add(new File(['Dropped text about sextants and navigation.'], 'dropped.txt', { type: 'text/plain' }));
      return d;
    });
    await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: dt });
    await expect(page.locator('#progress-done')).toContainText('Imported 1 document');
    await search(page, 'sextants');
    await expect(page.locator('#hits li .hit-title').first()).toHaveText('dropped');

    // The document list: delete one, re-index another.
    const list = page.locator('#doc-list');
    await showArea(page, 'documents');
    await expect(list.locator('li')).toHaveCount(9, { timeout: 15_000 });
    await page.screenshot({ path: test.info().outputPath('documents.png'), fullPage: true });
    await list.locator('li[data-doc-id="beir-2"]').getByRole('button', { name: /Delete/ }).click();
    await expect(list.locator('li[data-doc-id="beir-2"]')).toHaveCount(0, { timeout: 15_000 });
    await lexically(page, async () => {
      await page.locator('#q').fill('glaciers');
      await expect(page.locator('#search-status')).toContainText('No results for “glaciers”', { timeout: 10_000 });
    });
    await showArea(page, 'documents');
    await list.locator('li[data-doc-id="beir-1"]').getByRole('button', { name: /Re-index/ }).click();
    await expect(page.locator('#frames li[data-method="index/add"]').last()).toBeAttached();
    await search(page, 'tides moon');
    await expect(page.locator('#hits li .hit-title').first()).toHaveText('Tides');

    // Storage estimate is shown.
    await expect(page.locator('#storage')).toContainText('used of');

    // Clear the index (two-step confirmation).
    await showArea(page, 'documents');
    await page.getByRole('button', { name: 'Clear index' }).click();
    await page.getByRole('button', { name: 'Yes, clear the index' }).click();
    await expect(page.locator('#progress-done')).toContainText('Cleared the index');
    await expect(page.locator('#index-stats')).toContainText('0 documents', { timeout: 10_000 });
    await expect(list.locator('li')).toHaveCount(0, { timeout: 15_000 });
    expect(outside).toEqual([]);
  });

  test('a long import shows counts and ETA and can be cancelled (notifications/cancel)', async ({ page }) => {
    await skipSample(page);
    await openPlayground(page);
    const big = Array.from({ length: 3000 }, (_, i) => ({ id: `bulk-${i}`, title: `Bulk ${i}`, text: `Bulk document ${i} about assorted maritime matters. `.repeat(30) }));
    await page.locator('#file-input').setInputFiles({ name: 'bulk.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(big)) });
    await expect(page.locator('#progress')).toBeVisible();
    await expect(page.locator('#progress-counts')).toContainText(/of 3,000 documents/, { timeout: 30_000 });
    await expect(page.locator('#progress-counts')).toContainText(/left/, { timeout: 30_000 });
    await page.screenshot({ path: test.info().outputPath('import-progress.png') });
    await page.locator('#progress-cancel').click();
    await expect(page.locator('#progress-done')).toContainText('Import cancelled', { timeout: 30_000 });
    await expect(page.locator('#frames li[data-method="notifications/cancel"]').first()).toBeAttached();
    const added = Number(/(\d+) of 3,000 documents/.exec((await page.locator('#progress-done').textContent()) ?? '')?.[1]);
    expect(added).toBeLessThan(3000);
  });
});

import { expect, test } from '@playwright/test';
import { guardOrigin, openInspector, openPlayground, search, skipSample } from './support/playground.ts';

const PAYLOADS = [
  '<img src=x onerror="window.__pwned=1">',
  '<script>window.__pwned=1</script>',
  '<a href="javascript:window.__pwned=1">hostile link</a>',
  '<svg onload="window.__pwned=1"></svg>',
  '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
].join('\n');

test('hostile documents are text: nothing in them runs, in results, the document panel, the list or the inspector', async ({ page, context }) => {
  const outside = await guardOrigin(context);
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await skipSample(page);
  await openPlayground(page);
  await page.locator('#file-input').setInputFiles([
    {
      name: 'hostile.html',
      mimeType: 'text/html',
      buffer: Buffer.from(`<!doctype html><title>Hostile <img src=x onerror="window.__pwned=1"> page</title><body onload="window.__pwned=1"><p>hostile marmalade recipe</p>${PAYLOADS}<p onclick="window.__pwned=1">click marmalade</p><a href="javascript:alert(1)">marmalade link</a></body>`),
    },
    {
      name: 'hostile.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from(`# Hostile <img src=x onerror="window.__pwned=1"> marmalade\n\nhostile marmalade in markdown\n\n${PAYLOADS}\n\n[x](javascript:window.__pwned=1)\n\n<script>alert('pwned')</script>\n`),
    },
  ]);
  await expect(page.locator('#progress-done')).toContainText('Imported 2 documents', { timeout: 60_000 });

  await search(page, 'marmalade onerror pwned script');
  await expect(page.locator('#hits li')).toHaveCount(2);
  // Markdown's raw markup is shown as text, and no element came from a document.
  await expect(page.locator('#hits')).toContainText('onerror');
  expect(await page.locator('#hits img, #hits script, #hits a, #hits iframe, #hits svg').count()).toBe(0);
  for (const i of [0, 1]) {
    await page.locator('#hits li .hit-title').nth(i).click();
    await expect(page.locator('#doc-passage')).toBeVisible();
    expect(await page.locator('#doc-panel img, #doc-panel script, #doc-panel a, #doc-panel iframe, #doc-panel svg').count()).toBe(0);
    await page.locator('#doc-body').click();
  }
  // Inspector frames carry the text too (the import's own, shown on request); expanding them must not run it either.
  await openInspector(page);
  await page.locator('#insp-background').check();
  // Open every frame (setting `open` fires the same toggle event a click does; clicking each
  // summary in turn raced the frames above it growing as their JSON rendered). Background frames
  // may still be arriving, so open what is closed until nothing is.
  const closed = page.locator('#frames li:not([hidden]) details:not([open])');
  await expect(async () => {
    await closed.evaluateAll((ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    expect(await closed.count()).toBe(0);
  }).toPass({ timeout: 30_000 });
  // Each frame's JSON is rendered when its details open (toggle event): wait until all are.
  await expect(page.locator('#frames li details[open] pre.frame-json:empty')).toHaveCount(0);
  expect(await page.locator('#frames img, #frames script, #frames a, #frames iframe, #frames svg').count()).toBe(0);
  await page.screenshot({ path: test.info().outputPath('hostile.png'), fullPage: true });
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(outside).toEqual([]);
});

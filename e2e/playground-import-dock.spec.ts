import { expect, test } from '@playwright/test';
import { watchConsole } from './support/page-health.ts';
import { guardOrigin, openPlayground, skipSample } from './support/playground.ts';

// Issue 44 ("what the dock says after an import"): files dropped on the Search area are imported,
// and the dock counts every file, not only the document added, with a link to the Import area's
// report that names them.
test('three files dropped on the Search area: the dock counts all three and links to the report', async ({ page, context }) => {
  const outside = await guardOrigin(context);
  const errors = watchConsole(page);
  await skipSample(page);
  await openPlayground(page);
  await expect(page.locator('#area-search')).toBeVisible();
  const dt = await page.evaluateHandle(() => {
    const d = new DataTransfer();
    const elf = new Uint8Array(2000);
    elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]);
    d.items.add(new File([elf], 'tool.txt', { type: 'text/plain' }));
    d.items.add(new File([], 'empty.txt', { type: 'text/plain' }));
    d.items.add(new File(['The logbook records a grey whale off the cape at dawn.'], 'logbook.txt', { type: 'text/plain' }));
    return d;
  });
  await page.dispatchEvent('#area-search', 'drop', { dataTransfer: dt });
  const dock = page.locator('#progress-done');
  await expect(dock).toContainText(/^1 of 3 files imported \(1 document, 1 passage\): 1 binary, refused; 1 empty\./, { timeout: 60_000 });
  // The Search area is still the one shown; the link brings the report on screen.
  await expect(page.locator('#area-search')).toBeVisible();
  await dock.getByRole('link', { name: 'See the import report' }).click();
  await expect(page.locator('#area-import')).toBeVisible();
  const report = page.locator('#import-report');
  await expect(report).toBeFocused();
  await expect(report).toContainText('3 files: 1 imported');
  await expect(report).toContainText('tool.txt: refused (binary)');
  await expect(report).toContainText('empty.txt: nothing to import — the file is empty');
  await expect(report).toContainText('logbook.txt: imported — 1 document');
  expect(errors).toEqual([]);
  expect(outside).toEqual([]);
});

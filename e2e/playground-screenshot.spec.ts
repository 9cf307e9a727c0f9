import { expect, test } from '@playwright/test';
import { openPlayground, search, waitForSeed } from './support/playground.ts';

/**
 * Regenerates docs/screenshot.png (README). Not part of the suite (playwright.config.ts ignores it
 * unless RCP_SCREENSHOT is set): RCP_SCREENSHOT=1 npx playwright test playground-screenshot.
 */
test('README screenshot', async ({ page }) => {
  await page.setViewportSize({ width: 1200, height: 760 });
  await openPlayground(page);
  await waitForSeed(page);
  await page.locator('#search-options summary').click();
  await page.locator('#mode').selectOption('hybrid');
  await search(page, 'white whale harpoon');
  await page.locator('#hits li .hit-title').first().click();
  await expect(page.locator('#doc-passage')).toBeVisible();
  await page.locator('#search-options').evaluate((d) => ((d as HTMLDetailsElement).open = false));
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: 'docs/screenshot.png' });
});

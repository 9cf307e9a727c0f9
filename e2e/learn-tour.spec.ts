/**
 * The Learn RCP tour, offline and by keyboard alone: every step's request is sent on the tour's
 * own session, its answer passes the step's check, the frame parts to look at are highlighted,
 * and the progress survives a reload.
 */
import { expect, test } from '@playwright/test';
import { openStaticPlayground, showArea } from './support/playground.ts';

test('all fifteen steps, from initialize to federation and shutdown, offline and by keyboard', async ({ page, context }) => {
  test.setTimeout(300_000);
  const { outside, errors } = await openStaticPlayground(page, context);
  await showArea(page, 'learn');
  // Offline from here: what the page needs is loaded (the service worker keeps it for later visits).
  await expect(page.locator('#index-stats')).toContainText(/model \S+: ready/, { timeout: 120_000 });
  await context.setOffline(true);
  const steps = page.locator('#tour .tour-steps li');
  await expect(steps).toHaveCount(15);
  for (let i = 0; i < 15; i++) {
    const heading = page.locator('#tour .tour-step h4');
    await expect(heading).toHaveText(new RegExp(`^${i + 1}\\. `));
    // Keyboard only: from the request box, Tab reaches Send; Enter sends.
    await page.locator('#tour-request').focus();
    await page.keyboard.press('Tab');
    await expect(page.locator('#tour .tour-step button[type="submit"]')).toBeFocused();
    await page.keyboard.press('Enter');
    const verdict = page.locator('#tour .tour-verdict');
    await expect(verdict, `step ${i + 1}`).toHaveText(/^✓ /, { timeout: 60_000 });
    if (i === 0) {
      await expect(page.locator('#tour mark.hl[data-path="result.protocolVersion"]')).toHaveText('1');
      await expect(page.locator('#tour mark.hl[data-path="result._meta.conformance"]')).toBeVisible();
    }
    if (i === 4) await expect(page.locator('#tour mark.hl[data-path="result.ids"]')).toContainText('lesson:lighthouse');
    if (i === 13) await expect(page.locator('#tour mark.hl[data-path^="result.hits."][data-path$=".meta.engine"]').first()).toBeVisible();
    if (i < 14) {
      await page.locator('#tour .tour-pager button', { hasText: 'Next' }).focus();
      await page.keyboard.press('Enter');
      await expect(page.locator('#tour .tour-step h4')).toBeFocused();
    }
  }
  await expect(page.locator('#tour .tour-nav p')).toHaveText('Step 15 of 15 · 15 done');
  await context.setOffline(false);
  await page.reload();
  await expect(page.locator('#status')).toContainText('Connected', { timeout: 60_000 });
  await showArea(page, 'learn');
  await expect(page.locator('#tour .tour-nav p')).toHaveText('Step 15 of 15 · 15 done');
  expect(outside).toEqual([]);
  expect(errors).toEqual([]);
});

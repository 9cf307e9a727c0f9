import { expect, type BrowserContext, type Page, type Request } from '@playwright/test';

export const ORIGIN = 'http://localhost:4173';

/**
 * Records every request the page (and its workers and service worker) makes and fails the test if
 * one leaves the app's origin; routes are also aborted so nothing could actually go out.
 */
export async function guardOrigin(context: BrowserContext, page: Page): Promise<string[]> {
  const outside: string[] = [];
  const check = (url: string) => {
    if (!url.startsWith(`${ORIGIN}/`) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url);
  };
  await context.route('**', (route) => {
    const url = route.request().url();
    check(url);
    return url.startsWith(`${ORIGIN}/`) ? route.continue() : route.abort();
  });
  page.on('request', (r: Request) => check(r.url()));
  context.on('request', (r: Request) => check(r.url()));
  return outside;
}

/** Opens the playground and waits for the session. */
export async function openPlayground(page: Page): Promise<void> {
  await page.goto('/index.html');
  await expect(page.locator('#status')).toContainText('Connected', { timeout: 60_000 });
}

/** Waits until the sample corpus finished seeding. */
export async function waitForSeed(page: Page, timeout = 180_000): Promise<void> {
  await expect(page.locator('#progress-done')).toContainText(/Imported \d+ documents/, { timeout });
}

/** Types a query and waits for results. */
export async function search(page: Page, query: string): Promise<void> {
  await page.locator('#q').fill(query);
  await expect(page.locator('#search-status')).toContainText(/result/, { timeout: 60_000 });
}

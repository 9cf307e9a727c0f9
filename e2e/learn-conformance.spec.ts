/**
 * The conformance checker in the page (Learn RCP → Check an RCP server): against the page's own
 * engine over the in-page port, against the HTTP bridge from the page (CORS, a bearer token that
 * never reaches the exported report), and against endpoints that are down or outside the page's
 * Content-Security-Policy, which are reported, not thrown.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { startHttp } from '../tools/lib/bridge-process.ts';
import { watchConsole } from './support/page-health.ts';
import { openPlayground, openStaticPlayground, ORIGIN, showArea, skipSample, STATIC_MODEL, watchOrigin } from './support/playground.ts';

const PORT = Number(process.env.E2E_PORT ?? 4173) + 10_040;
const TOKEN = 'e2e-page-token-91f2';

async function runChecks(page: Page, timeout = 180_000): Promise<void> {
  await page.locator('#conformance button[type="submit"]').click();
  await expect(page.locator('#conformance .conf-level')).toBeVisible({ timeout });
}

const failedChecks = (page: Page) => page.locator('#conformance li.conf-item[data-status="fail"]').allTextContents();

test('the page checks its own engine: every check passes or is skipped, certified L2; frames and the spec section are one click away', async ({ page, context }) => {
  test.setTimeout(240_000);
  const { outside, errors } = await openStaticPlayground(page, context);
  await showArea(page, 'learn');
  await runChecks(page);
  expect(await failedChecks(page)).toEqual([]);
  await expect(page.locator('#conformance .conf-level strong')).toHaveText('L2');
  expect(await page.locator('#conformance li.conf-item').count()).toBeGreaterThan(90);

  // A check opens on the keyboard: its sentence, the frames that decided it, and its section of the spec.
  const ping = page.locator('#conformance li[data-check="ping-before-initialize"] summary');
  await ping.focus();
  await page.keyboard.press('Enter');
  const body = page.locator('#conformance li[data-check="ping-before-initialize"] .conf-body');
  await expect(body.locator('blockquote')).toContainText('MUST echo any `nonce`');
  await expect(body.locator('.conf-frames li').first()).toContainText('"method":"ping"');
  await body.locator('a.spec-ref').click();
  const dialog = page.locator('#spec-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.locator('h3')).toHaveText('§7.15 ping — REQUIRED');
  await expect(dialog.locator('.spec-body')).toContainText('Liveness / round-trip check');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // Only failures, then the probe documents are gone from the page's index.
  await page.locator('#conf-show').selectOption('fail');
  await expect(page.locator('#conformance li.conf-item:visible')).toHaveCount(0);
  expect(outside).toEqual([]);
  expect(errors).toEqual([]);
});

test('from the page over HTTP: the bridge with CORS and a token passes; the token is in no export; down and CSP-blocked endpoints say why', async ({ page, context }) => {
  test.setTimeout(300_000);
  const bridge = await startHttp(PORT, ['--allow-origin', ORIGIN], { RCP_HTTP_TOKEN: TOKEN });
  try {
    const { external } = await watchOrigin(context, { modelConfig: STATIC_MODEL });
    await context.route(`http://127.0.0.1:${PORT}/**`, (route) => route.continue()); // the one address typed into the page
    const errors = watchConsole(page);
    await skipSample(page);
    await openPlayground(page);
    await showArea(page, 'learn');
    await page.locator('#conf-http').check();
    await page.locator('#conf-url').fill(`http://127.0.0.1:${PORT}/rcp/session/from-the-page`);
    await page.locator('#conf-token').fill(TOKEN);
    await runChecks(page);
    expect(await failedChecks(page)).toEqual([]);
    await expect(page.locator('#conformance .conf-level strong')).toHaveText('L2');
    await expect(page.locator('#conformance li[data-check="http-auth-before-initialize"]')).toHaveAttribute('data-status', 'pass');

    const download = page.waitForEvent('download');
    await page.locator('#conformance button', { hasText: 'Download the report' }).click();
    const file = readFileSync((await (await download).path())!, 'utf8');
    expect(JSON.parse(file).certifiedLevel).toBe('L2');
    expect(file).not.toContain(TOKEN);
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).not.toContain(TOKEN);

    // Down: the first check fails naming it, the rest are not run, and the page answers meanwhile.
    await page.locator('#conf-url').fill('http://127.0.0.1:9/rcp');
    await page.locator('#conf-token').fill('');
    const t0 = Date.now();
    await runChecks(page, 30_000);
    expect(Date.now() - t0).toBeLessThan(30_000);
    await expect(page.locator('#conformance li[data-check="info-before-initialize"]')).toHaveAttribute('data-status', 'fail');
    await expect(page.locator('#conformance li[data-check="info-before-initialize"] summary')).toContainText('unreachable');
    await expect(page.locator('#conformance .conf-level strong')).toHaveText('none');

    // Outside the page's connect-src: refused before any request, with the reason.
    await page.locator('#conf-url').fill('https://rcp.example.com/rcp');
    await page.locator('#conformance button[type="submit"]').click();
    await expect(page.locator('#conformance [role="status"]')).toContainText("Content-Security-Policy does not let the page reach https://rcp.example.com");
    expect(external.filter((u) => !u.startsWith(`http://127.0.0.1:${PORT}/`) && !u.startsWith('http://127.0.0.1:9/'))).toEqual([]);
    expect(errors.filter((e) => !/Failed to load resource|ERR_CONNECTION_REFUSED|net::/.test(e))).toEqual([]);
  } finally {
    await bridge.stop();
  }
});

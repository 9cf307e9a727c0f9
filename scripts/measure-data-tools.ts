/**
 * Measures the playground's data tools on the sample corpus (≈ 14,500 passages) in Debian's
 * Chromium against the built app (dist/) and prints: the corpus map (time until drawn, main-thread
 * blocking), exporting the whole index (time, file size, blocking), and importing it back after a
 * clear (time, vectors reused, blocking, whether a search answers the same). Blocking = the sum of
 * long tasks (> 50 ms) on the page's main thread during the step.
 * Usage: npm run build && node --import tsx scripts/measure-data-tools.ts [--origin http://localhost:4173]
 * (with --origin, a running `vite preview` serves the app; otherwise requests are routed to dist/).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../bridges/browser-host.ts';
import { routeApp } from '../bridges/static-server.ts';
import { cliArgs } from '../tools/lib/args.ts';

const root = join(import.meta.dirname, '..');
const LONGTASKS = `window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: true });`;

const now = (page: Page) => page.evaluate(() => performance.now());
async function blocking(page: Page, t0: number): Promise<string> {
  const tasks = await page.evaluate(() => (window as unknown as { __long: [number, number][] }).__long);
  const mine = tasks.filter(([s]) => s >= t0);
  return `${mine.reduce((n, [, d]) => n + d, 0).toFixed(0)} ms blocking, longest task ${Math.max(0, ...mine.map(([, d]) => d)).toFixed(0)} ms`;
}

async function main(): Promise<void> {
  const { values } = cliArgs({ usage: 'npm run build && node --import tsx scripts/measure-data-tools.ts [--origin http://localhost:4173]', options: { origin: { type: 'string' } } });
  const origin = values.origin ?? 'http://localhost:5198';
  const profile = mkdtempSync(join(tmpdir(), 'rcp-measure-data-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, serviceWorkers: 'block', acceptDownloads: true });
  if (values.origin === undefined) await routeApp(context, origin, join(root, 'dist'));
  await context.addInitScript(LONGTASKS);
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const figures: [string, string][] = [];
  try {
    await page.goto(`${origin}/index.html`);
    await page.locator('#progress-done').filter({ hasText: /Imported|[Ss]ample corpus ready/ }).waitFor({ timeout: 600_000 });
    await page.locator('#q').fill('white whale');
    await page.locator(`#hits[data-request*='"query":"white whale"'] li`).first().waitFor({ timeout: 60_000 });
    const before = await page.locator('#hits').getAttribute('data-ids');

    let t = await now(page);
    let w = Date.now();
    await page.locator('#map-panel summary').click();
    await page.locator('#map-canvas[data-query]').waitFor({ timeout: 120_000 });
    figures.push(['corpus map (first, PCA in the worker)', `${Date.now() - w} ms until drawn, ${await page.locator('#map-canvas').getAttribute('data-points')} points; ${await blocking(page, t)}`]);
    t = await now(page);
    w = Date.now();
    await page.locator('#map-refresh').click();
    await page.locator('#map-summary').filter({ hasText: 'The cross' }).waitFor({ timeout: 60_000 });
    figures.push(['corpus map (again, basis cached)', `${Date.now() - w} ms; ${await blocking(page, t)}`]);

    t = await now(page);
    w = Date.now();
    await page.locator('#areas-nav a[data-area="documents"]').click();
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 600_000 }), page.locator('#export-index').click()]);
    const file = join(profile, 'index.ndjson');
    await download.saveAs(file);
    figures.push(['export of the whole index', `${Date.now() - w} ms, ${(statSync(file).size / 1e6).toFixed(1)} MB; ${await blocking(page, t)}; ${await page.locator('#progress-done').textContent()}`]);

    await page.locator('#clear-index').click();
    await page.locator('#clear-confirm').click();
    await page.locator('#progress-done').filter({ hasText: 'Cleared' }).waitFor();
    t = await now(page);
    w = Date.now();
    await page.locator('#index-file').setInputFiles(file);
    await page.locator('#progress-done').filter({ hasText: /Imported \d+ documents/ }).waitFor({ timeout: 600_000 });
    figures.push(['import of that file after a clear', `${Date.now() - w} ms; ${await blocking(page, t)}; ${await page.locator('#progress-done').textContent()}`]);
    await page.locator('#q').fill('white');
    await page.locator('#q').fill('white whale');
    await page.locator(`#hits[data-request*='"query":"white whale"'] li`).first().waitFor({ timeout: 60_000 });
    figures.push(['same results after the round trip', String((await page.locator('#hits').getAttribute('data-ids')) === before)]);
  } finally {
    figures.push(['console errors', `${errors.length}${errors.length ? `: ${errors.slice(0, 3).join(' | ')}` : ''}`]);
    for (const [k, v] of figures) console.log(`${k}: ${v}`);
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

await main();

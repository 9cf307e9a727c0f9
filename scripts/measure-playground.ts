/**
 * Measures the playground's user-facing targets in Debian's Chromium against the built app (dist/)
 * and prints them:
 *   - first results for a query typed at first open (before the engine is connected);
 *   - the sample corpus fully searchable (seeding finished), and hybrid-searchable (the dense model
 *     ready and every passage embedded, from the shipped sample vectors when they match the model);
 *   - a sparse search typed while a 30 MB .txt imports (time until its results show);
 *   - opening that 30 MB document: main-thread blocking (sum of long tasks) until the passage shows;
 *   - off-origin requests and console errors over the whole run.
 * Usage: npm run build && node --import tsx scripts/measure-playground.ts [--skip-seed] [--mb 30]
 */
import { mkdtempSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../bridges/browser-host.ts';
import { routeApp } from '../bridges/static-server.ts';
import { cliArgs } from '../tools/lib/args.ts';

const { values } = cliArgs({
  usage: 'npm run build && node --import tsx scripts/measure-playground.ts [--skip-seed] [--mb 30]',
  options: { 'skip-seed': { type: 'boolean' }, mb: { type: 'string' } },
});
const skipSeed = values['skip-seed'] === true;
const mb = Number(values.mb ?? 30) || 30;
const root = join(import.meta.dirname, '..');
const MARKER = 'zyzzogeton';

/** About `mb` MB of real prose (the sample corpus, repeated) with a marker word in the middle. */
function bigText(): string {
  const corpus = JSON.parse(readFileSync(join(root, 'public/sample/corpus.json'), 'utf8')) as { documents: { text: string }[] };
  const all = corpus.documents.map((d) => d.text).join('\n\n');
  const target = mb * 1_000_000;
  let out = '';
  while (out.length < target) out += all;
  out = out.slice(0, target);
  const mid = Math.floor(target / 2);
  return `${out.slice(0, mid)}\n\nThe ${MARKER} beetle sat on the white whale.\n\n${out.slice(mid)}`;
}

/** Installs a long-task recorder (main-thread blocking) in every page. */
const LONGTASKS = `window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: true });`;

async function blockingSince(page: Page, t0: number): Promise<{ total: number; max: number }> {
  const tasks = await page.evaluate(() => (window as unknown as { __long: [number, number][] }).__long);
  const mine = tasks.filter(([s]) => s >= t0);
  return { total: mine.reduce((n, [, d]) => n + d, 0), max: Math.max(0, ...mine.map(([, d]) => d)) };
}

/**
 * Timestamps taken in the page (Playwright's own waits poll, at up to 1 s intervals late in a
 * wait): when each query was typed into the search box, and when results answering it were shown.
 */
const SEARCH_TIMES = `window.__typedAt = {}; window.__shownAt = {};
document.addEventListener('input', (e) => { if (e.target && e.target.id === 'q') { const q = e.target.value.trim(); window.__typedAt[q] = performance.now(); delete window.__shownAt[q]; } }, true);
new MutationObserver(() => {
  const hits = document.getElementById('hits');
  if (!hits || !hits.dataset.request || !hits.querySelector('li')) return;
  try { const q = JSON.parse(hits.dataset.request).query; if (typeof q === 'string' && !(q in window.__shownAt)) window.__shownAt[q] = performance.now(); } catch {}
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-request'] });`;

/** Types `query` and resolves with the ms from its input event until results answering it were shown (both in the page). */
async function timedSearch(page: Page, query: string, timeout = 60_000): Promise<number> {
  await page.locator('#q').fill(query);
  await page.locator(`#hits[data-request*='"query":${JSON.stringify(query)}'] li`).first().waitFor({ timeout });
  return page.evaluate((q) => {
    const w = window as unknown as { __typedAt: Record<string, number>; __shownAt: Record<string, number> };
    return Math.round(w.__shownAt[q] - w.__typedAt[q]);
  }, query);
}

async function main(): Promise<void> {
  // Served by request interception (as the bridges do): no port, and the service worker stays out of the figures.
  const origin = 'http://localhost:5199';
  const profile = mkdtempSync(join(tmpdir(), 'rcp-measure-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, serviceWorkers: 'block' });
  await routeApp(context, origin, join(root, 'dist'));
  const offOrigin: string[] = [];
  const errors: string[] = [];
  context.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('blob:')) offOrigin.push(u);
  });
  await context.addInitScript(LONGTASKS);
  await context.addInitScript(SEARCH_TIMES);
  if (skipSeed) await context.addInitScript(() => localStorage.setItem('rcp-playground:sample-declined', '1'));
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  const figures: [string, string][] = [];
  try {
    const t0 = Date.now();
    await page.goto(`${origin}/index.html`, { waitUntil: 'commit' });
    if (!skipSeed) {
      // Typed at once, before the engine connects.
      const afterTyping = await timedSearch(page, 'white whale');
      const afterNavigation = await page.evaluate(() => Math.round((window as unknown as { __shownAt: Record<string, number> }).__shownAt['white whale']));
      figures.push(['first results for a query typed at first open', `${afterTyping} ms after typing, ${afterNavigation} ms after navigation (target ≤ 3000 after typing)`]);
      await page.locator('#progress-done').filter({ hasText: /Imported|[Ss]ample corpus ready/ }).waitFor({ timeout: 180_000 });
      figures.push(['sample corpus fully searchable', `${Date.now() - t0} ms (target ≤ 30000)`]);
      // Hybrid-searchable: the dense model is ready and no passage waits for vectors (or there is no dense model).
      const modelState = page.locator('#model-picker [role=status]');
      await modelState.filter({ hasText: /ready on|No dense model/ }).filter({ hasNotText: /Embedding in the background/ }).waitFor({ state: 'attached', timeout: 900_000 }); // the Models area may be hidden
      figures.push(['sample corpus hybrid-searchable', `${Date.now() - t0} ms (target ≤ 60000; ${(await modelState.textContent())?.trim()})`]);
    } else {
      await page.locator('#status').filter({ hasText: 'Connected' }).waitFor({ timeout: 60_000 });
      await page.locator('#areas-nav a[data-area="import"]').click();
      await page.locator('#paste-text').fill('The white whale swam by the ship. Call me Ishmael.');
      await page.getByRole('button', { name: 'Add pasted text' }).click();
      await page.locator('#progress-done').filter({ hasText: /Imported/ }).waitFor({ timeout: 60_000 });
    }
    figures.push(['search with an idle engine', `${await timedSearch(page, 'whale')} ms`]);

    // A 30 MB import; a search typed while it runs.
    const file = join(profile, 'big.txt');
    writeFileSync(file, bigText());
    const tImport = Date.now();
    await page.locator('#file-input').setInputFiles(file);
    await page.locator('#progress').waitFor({ state: 'visible', timeout: 60_000 });
    await page.waitForTimeout(1500); // well into the import
    const during = await timedSearch(page, 'white whale ship', 120_000).catch((e: Error) => NaN + (console.error(e.message), 0));
    const stillImporting = await page.locator('#progress').isVisible();
    figures.push([`search during a ${mb} MB import`, `${during} ms (target < 1000; import still running: ${stillImporting})`]);
    await page.locator('#progress-done').filter({ hasText: /Imported|big/ }).waitFor({ timeout: 600_000 });
    figures.push([`${mb} MB import finished`, `${Date.now() - tImport} ms`]);

    // Open the big document at the passage with the marker.
    await timedSearch(page, MARKER);
    const opened = await page.evaluate(() => performance.now());
    const tOpen = Date.now();
    await page.locator('#hits li .hit-title').first().click();
    await page.locator('#doc-passage').waitFor({ timeout: 120_000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    const wall = Date.now() - tOpen;
    const b = await blockingSince(page, opened);
    figures.push([`opening the ${mb} MB document`, `${b.total.toFixed(0)} ms main-thread blocking, longest task ${b.max.toFixed(0)} ms, ${wall} ms until shown (target ≤ 300 blocking)`]);
  } finally {
    figures.push(['off-origin requests', String(offOrigin.length)]);
    figures.push(['console errors', `${errors.length}${errors.length ? `: ${errors.slice(0, 3).join(' | ')}` : ''}`]);
    for (const [k, v] of figures) console.log(`${k}: ${v}`);
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

await main();

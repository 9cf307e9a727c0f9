/**
 * `graph communities` on the sample corpus in the playground's worker, in Debian's Chromium against
 * the built app (dist/): the sample is seeded (with its shipped vectors) until hybrid-searchable,
 * then the map is coloured by community — the page's `graph` request that builds the passage
 * graph cold (neighbour lists, graph, Louvain) — and the script prints the time until the map is
 * coloured, the worker's own `usage.latencyMs` and `_meta.graph.buildMs` from the inspector's
 * frame, and the main thread's long tasks meanwhile (the page must never block).
 *
 *   npm run build && node --import tsx scripts/measure-graph-worker.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../bridges/browser-host.ts';
import { routeApp } from '../bridges/static-server.ts';

const root = join(import.meta.dirname, '..');
const LONGTASKS = `window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: true });`;
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');

async function main(): Promise<void> {
  console.log(`# uptime: load average ${load()}`);
  const origin = 'http://localhost:5199';
  const profile = mkdtempSync(join(tmpdir(), 'rcp-graph-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, serviceWorkers: 'block' });
  await routeApp(context, origin, join(root, 'dist'));
  await context.addInitScript(LONGTASKS);
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    const start = Date.now();
    await page.goto(`${origin}/index.html`);
    await page.locator('#progress-done').filter({ hasText: /Imported|[Ss]ample corpus ready/ }).waitFor({ timeout: 300_000 });
    console.log(`# sample seeded after ${Date.now() - start} ms`);
    const modelState = page.locator('#model-picker [role=status]');
    await modelState.filter({ hasText: /ready on|No dense model/ }).filter({ hasNotText: /Embedding in the background/ }).waitFor({ state: 'attached', timeout: 900_000 });
    console.log(`# hybrid-searchable after ${Date.now() - start} ms: ${(await modelState.textContent())?.trim()}`);
    if (!(await page.locator('#inspector-pane').isVisible())) await page.locator('#inspector-toggle').click();
    await page.locator('#map-panel summary').click();
    await page.locator('#map-canvas[data-points]').waitFor({ timeout: 120_000 });
    await page.locator('#map-colouring').waitFor({ state: 'visible', timeout: 60_000 });
    await page.waitForTimeout(2000); // let the map's own work settle
    console.log(`# map drawn after ${Date.now() - start} ms`);
    const t0 = await page.evaluate(() => performance.now());
    const w0 = Date.now();
    await page.locator('#map-colour').selectOption('community');
    await page.locator('#map-canvas[data-colouring="community"]').waitFor({ timeout: 300_000 });
    const wall = Date.now() - w0;
    const tasks = await page.evaluate(() => (window as unknown as { __long: [number, number][] }).__long);
    const mine = tasks.filter(([s]) => s >= t0);
    console.log(`graph communities, cold: map coloured after ${wall} ms`);
    console.log(`main thread meanwhile: ${mine.length} long tasks, ${mine.reduce((n, [, d]) => n + d, 0).toFixed(0)} ms in all, longest ${Math.max(0, ...mine.map(([, d]) => d)).toFixed(0)} ms`);
    // The worker's own figures, from the reply's frame in the inspector.
    const frames = page.locator('#frames li[data-method="graph"]');
    const n = await frames.count();
    for (let i = 0; i < n; i++) {
      const li = frames.nth(i);
      await li.locator('summary').click();
      const pre = li.locator('pre.frame-json');
      await pre.filter({ hasNotText: /^(|Reading the frame…)$/ }).waitFor({ timeout: 10_000 }).catch(() => undefined);
      const text = (await pre.textContent()) ?? '';
      const latency = /"latencyMs":\s*([\d.]+)/.exec(text)?.[1];
      if (!latency) continue;
      const num = (k: string): string | undefined => new RegExp(`"${k}":\\s*(\\d+)`).exec(text)?.[1];
      console.log(`worker reply ${i}: latencyMs ${latency}, graph build ${num('buildMs')} ms, ${num('passages')} passages, ${num('edges')} edges`);
    }
  } finally {
    console.log(`console errors: ${errors.length}${errors.length ? `: ${errors.slice(0, 3).join(' | ')}` : ''}`);
    console.log(`# uptime: load average ${load()}`);
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

await main();

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { routeApp } from '../bridges/static-server.ts';
import { gunzipSync } from 'node:zlib';
import { decodeValue } from '../src/bundle/codec.ts';
import { textFileOf, type BundleManifest } from '../src/bundle/format.ts';

/**
 * examples/site-search, built as its README says (the stdlib package docs rendered to HTML pages,
 * indexed ahead by `rcp-in-page index`, searched with `<rcp-search>` from the package's lib/), and
 * served at an origin of its own by request interception: every other request is aborted and
 * recorded, so none may leave the origin.
 */
const root = join(import.meta.dirname, '..');
const ORIGIN = 'http://localhost:4291';
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let site: string;

test.describe.configure({ timeout: 240_000 });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  site = mkdtempSync(join(tmpdir(), 'rcp-site-search-'));
  const run = (args: string[]) => execFileSync(process.execPath, ['--import', 'tsx', ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  run(['scripts/build-lib.ts']);
  run(['examples/site-search/build-site.ts', '--out', site]);
});

test.afterAll(() => rmSync(site, { recursive: true, force: true }));

/** Serves the example folder at ORIGIN; returns the requests that went elsewhere (aborted). */
async function open(page: Page, missing?: string): Promise<string[]> {
  const outside: string[] = [];
  page.context().on('request', (r) => void (!r.url().startsWith(`${ORIGIN}/`) && !r.url().startsWith('data:') && !r.url().startsWith('blob:') && outside.push(r.url())));
  await routeApp(page.context(), ORIGIN, site);
  // Registered last, so it takes precedence over the static files.
  if (missing) await page.context().route(`${ORIGIN}/${missing}`, (route) => route.fulfill({ status: 404, body: 'not found' }));
  await page.goto(`${ORIGIN}/index.html`);
  // Links are followed by the element; record them instead of leaving the page.
  await page.evaluate(() => {
    (window as unknown as { followed: string[] }).followed = [];
    document.addEventListener('rcp-search-navigate', (ev) => {
      ev.preventDefault();
      (window as unknown as { followed: string[] }).followed.push((ev as CustomEvent<{ href: string }>).detail.href);
    });
  });
  return outside;
}

const inline = (page: Page) => page.locator('rcp-search.inline');

test('the example indexes a real documentation set and <rcp-search> searches it: keyboard, deep links, filters, a11y', async ({ page }) => {
  const outside = await open(page);
  const box = inline(page).locator('input');
  await box.click();
  await box.fill('Float32Array typed array constructor');
  const status = inline(page).locator('[part=status]');
  await expect(status).toHaveText(/^\d+ results? on \d+ pages?$/, { timeout: 60_000 });
  const groups = inline(page).locator('[part=group]');
  await expect(groups.locator('[part=group-title]').filter({ hasText: /^Float32Array\b/ })).toHaveCount(1);
  await expect(groups.first().locator('mark').first()).toBeVisible();

  // Keyboard: ↓ makes the first passage active, Enter follows its deep link.
  await box.press('ArrowDown');
  const active = await box.getAttribute('aria-activedescendant');
  expect(active).toBeTruthy();
  await expect(inline(page).locator(`[id="${active}"]`)).toHaveAttribute('aria-selected', 'true');
  await box.press('Enter');
  const followed = await page.evaluate(() => (window as unknown as { followed: string[] }).followed);
  const first = await groups.first().getAttribute('aria-labelledby');
  expect(first).toBeTruthy();
  expect(followed[0]).toMatch(/^\/docs\/[\w-]+\.html#:~:text=[^,]+(,[^,]+)?$/);

  // axe: no violations on the page with results shown (shadow DOM included).
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(c: Document): Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }).axe;
    return (await axe.run(document)).violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => [(n as { target: unknown }).target, (n as { failureSummary: string }).failureSummary]))}`);
  });
  expect(violations).toEqual([]);

  // Filters from the bundle's metadata: the `family` of each page (its <body data-family>).
  const family = inline(page).locator('[part=filter] select').filter({ has: page.locator('option[value="string"]') });
  await family.selectOption('string');
  await box.fill('remove a byte order mark');
  await expect(status).toHaveText(/results? on/, { timeout: 30_000 });
  const titles = await inline(page).locator('[part=group-title]').allTextContents();
  expect(titles.length).toBeGreaterThan(0);
  const links = await page.evaluate(() => (window as unknown as { followed: string[] }).followed.length);
  expect(links).toBe(1);

  // Esc clears the inline box.
  await box.press('Escape');
  await expect(box).toHaveValue('');
  await expect(inline(page).locator('[part=results]')).toBeHidden();

  // The Ctrl/⌘-K dialog.
  await page.keyboard.press('Control+k');
  const dialog = page.locator('rcp-search[dialog] dialog');
  await expect(dialog).toBeVisible();
  await page.keyboard.type('format a string');
  await expect(page.locator('rcp-search[dialog] [part=status]')).toHaveText(/results? on/, { timeout: 30_000 });
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  expect(outside).toEqual([]);
});

test('a text shard that fails to load is said by the element, which keeps serving what it can', async ({ page }) => {
  const manifest = JSON.parse(readFileSync(join(site, 'search', 'rcp-bundle.json'), 'utf8')) as BundleManifest;
  // The shard holding the Float32Array page (bundle texts are sharded by document ordinal, src/bundle/format.ts).
  const { ids } = decodeValue(gunzipSync(readFileSync(join(site, 'search', manifest.ids.path)))) as { ids: string[] };
  const lost = textFileOf(manifest, ids.indexOf('array-float32.html')).path;
  await open(page, `search/${lost}`);
  const box = inline(page).locator('input');
  const status = inline(page).locator('[part=status]');
  const ask = async (q: string): Promise<string> => {
    await box.fill('');
    await expect(status).toHaveText('');
    await box.fill(q);
    await expect(status).toHaveText(/results? on|No results|unavailable/, { timeout: 60_000 });
    return (await status.textContent()) ?? '';
  };
  expect(await ask('Float32Array typed array constructor')).toMatch(new RegExp(`^Some results are unavailable: .*${lost.replace(/[.]/g, '\\.')}`));
  const others: string[] = [];
  for (const q of ['remove a UTF-8 byte order mark', 'test whether a value is a function', 'read a file', 'has own property']) others.push(await ask(q));
  expect(others.some((s) => /results? on/.test(s)), others.join('\n')).toBe(true);
});

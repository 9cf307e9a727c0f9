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
  // The section's anchor (when the passage is under a heading), then the quoted text.
  expect(followed[0]).toMatch(/^\/docs\/[\w-]+\.html#[\w%-]*:~:text=[^,]+(,[^,]+)?$/);

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

test('the element\'s conventions: / opens the dialog, sub-results link to their section, recent searches survive a reload', async ({ page }) => {
  const outside = await open(page);
  const dialog = page.locator('rcp-search[dialog] dialog');
  // `/` typed into a field is a character, not a shortcut.
  const box = inline(page).locator('input');
  await box.click();
  await page.keyboard.type('a/b');
  await expect(box).toHaveValue('a/b');
  await expect(dialog).toBeHidden();
  await box.fill('');
  // `/` anywhere else opens the dialog, focused and empty.
  await page.locator('main p').first().click();
  await page.keyboard.press('/');
  await expect(dialog).toBeVisible();
  const dialogBox = page.locator('rcp-search[dialog] input');
  await expect(dialogBox).toBeFocused();
  await expect(dialogBox).toHaveValue('');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // Sub-results: each page with its count of matching sections, each section with its heading and
  // a deep link to that heading's id on the page.
  await box.fill('Float32Array typed array constructor');
  const status = inline(page).locator('[part=status]');
  await expect(status).toHaveText(/^\d+ results? on \d+ pages?$/, { timeout: 60_000 });
  const counts = await inline(page).locator('[part=group-title] [part=count]').allTextContents();
  expect(counts.length).toBeGreaterThan(0);
  for (const c of counts) expect(c).toMatch(/^\d+ sections?$/);
  const withSection = inline(page).locator('[part=passage]').filter({ has: page.locator('[part=section]') }).first();
  const href = (await withSection.getAttribute('data-href')) ?? '';
  const m = /^(\/docs\/[\w-]+\.html)#([^:]+):~:text=/.exec(href);
  expect(m, href).not.toBeNull();
  const pageHtml = readFileSync(join(site, decodeURI(m![1])), 'utf8');
  expect(pageHtml).toContain(`id="${decodeURIComponent(m![2])}"`);

  // Following a result keeps its query; after a reload the empty box lists it, ↓ and Enter run it.
  await withSection.click();
  expect(await page.evaluate(() => (window as unknown as { followed: string[] }).followed)).toEqual([href]);
  await page.reload();
  await page.evaluate(() => document.addEventListener('rcp-search-navigate', (ev) => ev.preventDefault()));
  await inline(page).locator('input').click();
  const recent = inline(page).locator('[part=recent]');
  await expect(recent).toHaveText(['Float32Array typed array constructor']);
  await expect(inline(page).locator('[part=group-title]')).toHaveText('Recent searches');
  // axe: no violations with the recent searches and their Clear button shown.
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(c: Document): Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }).axe;
    return (await axe.run(document)).violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => (n as { target: unknown }).target))}`);
  });
  expect(violations).toEqual([]);
  await page.keyboard.press('ArrowDown');
  await expect(recent.first()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(inline(page).locator('input')).toHaveValue('Float32Array typed array constructor');
  await expect(status).toHaveText(/^\d+ results? on \d+ pages?$/, { timeout: 60_000 });
  // Emptied, the box lists it again; Clear forgets it, for this page and the next.
  await inline(page).locator('input').fill('');
  await expect(recent).toHaveCount(1);
  await inline(page).locator('[part=clear-recent]').click();
  await expect(recent).toHaveCount(0);
  expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('rcp-search:recent:')))).toEqual([]);
  expect(outside).toEqual([]);
});

test('UI strings: replaced by attribute and property, built in for the page\'s language, right to left for Arabic and Hebrew', async ({ page }) => {
  // As on a Mac, where the dialog's button names the shortcut ⌘ K.
  await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'platform', { get: () => 'MacIntel' }));
  const outside = await open(page);
  await page.evaluate(() => {
    const add = (html: string) => {
      const wrap = document.createElement('div');
      wrap.innerHTML = html;
      document.body.append(wrap);
    };
    add(`<rcp-search class="custom" bundle="./search/" mode="sparse" strings='{"placeholder":"Find a function","noResults":"Nothing matches {query}","bogus":1}'></rcp-search>`);
    add('<rcp-search class="ar" lang="ar" dialog bundle="./search/" mode="sparse"></rcp-search>');
    add('<div lang="he"><rcp-search class="he" bundle="./search/" mode="sparse"></rcp-search></div>');
    (document.querySelector('rcp-search.custom') as HTMLElement & { strings: Record<string, string> }).strings = { label: 'Search the stdlib' };
  });
  const field = (cls: string) => page.locator(`rcp-search.${cls} input`);
  await expect(field('custom')).toHaveAttribute('placeholder', 'Find a function');
  await expect(page.locator('rcp-search.custom label')).toHaveText('Search the stdlib');
  // Arabic and Hebrew: their built-in strings (each a chunk fetched for its page), right to left.
  await expect(page.locator('rcp-search.ar [part=trigger]')).toHaveText('بحث ⌘ K');
  await expect(field('ar')).toHaveAttribute('placeholder', 'بحث');
  await expect(field('he')).toHaveAttribute('placeholder', 'חיפוש');
  const direction = (cls: string) => field(cls).evaluate((el) => getComputedStyle(el).direction);
  expect([await direction('ar'), await direction('he'), await direction('custom')]).toEqual(['rtl', 'rtl', 'ltr']);
  // The replaced "no results" string, and the built-in one naming the active filter.
  const custom = page.locator('rcp-search.custom');
  await custom.locator('input').fill('zzqxvj');
  await expect(custom.locator('[part=status]')).toHaveText('Nothing matches zzqxvj', { timeout: 60_000 });
  const he = page.locator('rcp-search.he');
  const family = he.locator('[part=filter] select').filter({ has: page.locator('option[value="string"]') });
  await he.locator('input').fill('zzqxvj');
  await expect(he.locator('[part=status]')).toHaveText('אין תוצאות עבור "zzqxvj"', { timeout: 60_000 });
  await family.selectOption('string');
  await expect(he.locator('[part=status]')).toHaveText('אין תוצאות עבור "zzqxvj" עם family: string', { timeout: 30_000 });
  await expect(he.locator('[part=box], .box').first()).toHaveAttribute('dir', 'rtl');
  expect(outside).toEqual([]);
});

test('a pointer resting on the box starts the engine before the click; one passing over does not', async ({ page }) => {
  const manifests: string[] = [];
  page.on('request', (r) => void (r.url().endsWith('/search/rcp-bundle.json') && manifests.push(r.url())));
  await open(page);
  const host = inline(page);
  // Passing over (enter and leave within the intent delay) starts nothing.
  await host.evaluate((el) => {
    el.dispatchEvent(new PointerEvent('pointerenter'));
    el.dispatchEvent(new PointerEvent('pointerleave'));
  });
  await page.waitForTimeout(500);
  expect(manifests).toEqual([]);
  // Resting on it fetches the bundle's manifest while the box is not yet focused.
  await host.locator('input').hover();
  await expect.poll(() => manifests.length, { timeout: 30_000 }).toBeGreaterThan(0);
  expect(await host.evaluate((el) => el.shadowRoot!.activeElement === null)).toBe(true);
  // The engine it started serves the first search.
  await host.locator('input').fill('Float32Array typed array constructor');
  await expect(host.locator('[part=status]')).toHaveText(/^\d+ results? on \d+ pages?$/, { timeout: 60_000 });
  expect(manifests.length).toBe(1);
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

/**
 * The package with a transformer model, as an app or the element passes it (an absolute `modelBase`,
 * which createInPageEngine makes of any base): the worker must load the model's tokenizer from
 * there and answer hybrid with its dense half, over a bundle and over its own index. Until
 * 2026-12-03 the tokenizer was never fetched ("this.tokenizer is not a function"), and every dense
 * half was silently missing.
 */
test('with MiniLM, the package answers hybrid with dense scores over a bundle and over its own index', async ({ page }) => {
  const { writeSite } = await import('../test/bundle/site-fixture.ts');
  const { buildIndex } = await import('../cli/build-index.ts');
  const { loadEmbedder } = await import('../src/models/index.ts');
  const { cpSync, mkdirSync, writeFileSync } = await import('node:fs');
  const pages = writeSite(4);
  const app = mkdtempSync(join(tmpdir(), 'rcp-lib-minilm-'));
  try {
    const model = 'minilm-l6-v2';
    const modelBase = join(root, 'public', 'models') + '/';
    await buildIndex({ input: pages, out: join(app, 'bundle'), baseUrl: '', model: { name: model, load: () => loadEmbedder({ modelBase, model, dtype: 'q8' }) }, log: () => undefined });
    cpSync(join(root, 'lib'), join(app, 'rcp-in-page'), { recursive: true });
    mkdirSync(join(app, 'models'));
    writeFileSync(join(app, 'models', 'config.json'), JSON.stringify({ embedder: model, dtype: 'q8', device: 'wasm' }));
    cpSync(join(modelBase, model), join(app, 'models', model), { recursive: true, filter: (src) => !src.endsWith('model.onnx') });
    writeFileSync(join(app, 'index.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title></head><body></body></html>');
    const origin = 'http://localhost:4292';
    const outside: string[] = [];
    page.context().on('request', (r) => void (!r.url().startsWith(`${origin}/`) && !r.url().startsWith('data:') && !r.url().startsWith('blob:') && outside.push(r.url())));
    await routeApp(page.context(), origin, app);
    await page.goto(`${origin}/index.html`);
    const answer = await page.evaluate(async () => {
      const { createInPageEngine } = await import('/rcp-in-page/index.js' as string);
      const opts = { models: true, modelBase: '/models/', wasmPaths: '/rcp-in-page/ort/' };
      const hybrid = async (engine: { request(m: string, p: unknown): Promise<{ hits: { scores?: { dense?: number } }[]; usage?: { notes?: string[] } }> }) => {
        const r = await engine.request('retrieve', { query: 'a voyage at sea', k: 3, mode: 'hybrid' });
        return { dense: r.hits.filter((h) => h.scores?.dense !== undefined).length, hits: r.hits.length, notes: r.usage?.notes ?? [] };
      };
      const bundled = await createInPageEngine({ ...opts, bundle: '/bundle/' });
      const fromBundle = await hybrid(bundled);
      bundled.terminate();
      const own = await createInPageEngine({ ...opts, database: 'e2e-lib-minilm' });
      await own.request('index/add', { documents: [{ id: 'sea', text: 'The ship sailed across the open ocean for many weeks.' }, { id: 'cat', text: 'A cat slept on the warm kitchen floor.' }] });
      // The vectors come from background embedding: ask until they are there (or 60 s have passed).
      let fromOwn = await hybrid(own);
      for (let i = 0; i < 120 && fromOwn.dense === 0; i++) {
        await new Promise((r) => setTimeout(r, 500));
        fromOwn = await hybrid(own);
      }
      own.terminate();
      return { fromBundle, fromOwn };
    });
    expect(answer.fromBundle.hits).toBeGreaterThan(0);
    expect(answer.fromBundle.notes.join(' ')).not.toMatch(/unavailable/);
    expect(answer.fromBundle.dense).toBeGreaterThan(0);
    expect(answer.fromOwn.notes.join(' ')).not.toMatch(/unavailable/);
    expect(answer.fromOwn.dense).toBeGreaterThan(0);
    expect(outside).toEqual([]);
  } finally {
    rmSync(pages, { recursive: true, force: true });
    rmSync(app, { recursive: true, force: true });
  }
});

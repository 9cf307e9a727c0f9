import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type BrowserContext } from '@playwright/test';
import { buildIndex, sitePaths } from '../cli/build-index.ts';
import { loadDom, loadPdfjs } from '../cli/node-deps.ts';
import { readPage } from '../cli/read-page.ts';
import { loadEmbedder } from '../src/models/index.ts';
import type { IndexDocument } from '../src/protocol/types.ts';
import type { BundleManifest } from '../src/bundle/format.ts';
import { writeSite } from '../test/bundle/site-fixture.ts';
import { call, openTab } from '../tools/lib/rcp-page.ts';
import { ORIGIN, search, STATIC_MODEL, watchOrigin } from './support/playground.ts';

/**
 * A site built ahead with `rcp-in-page index` and opened by the worker over HTTP (bridge.html?bundle=):
 * the same RCP server answers as it does over the same pages added in the page, reads the
 * manifest first and the vectors only after the first answer, refuses writes, and says which file
 * is missing when one is.
 */
const MODEL = 'glove-static-100d'; // fast in both runtimes; the bundle names it, so the worker runs it too
let site: string;
let out: string;
let docs: IndexDocument[];

test.beforeAll(async () => {
  site = writeSite(10);
  out = mkdtempSync(join(tmpdir(), 'rcp-e2e-bundle-'));
  const modelBase = join(import.meta.dirname, '..', 'public', 'models') + '/';
  await buildIndex({ input: site, out, baseUrl: '', model: { name: MODEL, load: () => loadEmbedder({ modelBase, model: MODEL, dtype: 'q8' }) }, log: () => undefined });
  const ctx = { dom: await loadDom(), pdfjs: loadPdfjs, baseUrl: '' };
  docs = (await Promise.all(sitePaths(site, []).map((p) => readPage(join(site, p), p, ctx)))).flatMap((o) => (o.status === 'parsed' ? [o.doc] : []));
});

test.afterAll(() => {
  rmSync(site, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

/** Serves the bundle folder under /site-search/ (as a static host would), recording what is fetched. */
async function serveBundle(context: BrowserContext, missing?: string): Promise<string[]> {
  const fetched: string[] = [];
  await context.route(`${ORIGIN}/site-search/**`, (route) => {
    const path = decodeURIComponent(new URL(route.request().url()).pathname.slice('/site-search/'.length));
    fetched.push(path);
    if (path === missing) return route.fulfill({ status: 404, body: 'not found' });
    try {
      return route.fulfill({ body: readFileSync(join(out, path)), contentType: path.endsWith('.json') ? 'application/json' : 'application/octet-stream' });
    } catch {
      return route.fulfill({ status: 404, body: 'not found' });
    }
  });
  return fetched;
}

const QUERIES = ['white whale', 'Ishmael sea voyage', 'harpoon line', 'Further', 'the captain of the ship'];

test.describe('a static bundle opened over HTTP', () => {
  test('answers as the same pages indexed in the page, reading only what the queries need', async ({ browser }) => {
    const bundleContext = await browser.newContext();
    const { external } = await watchOrigin(bundleContext);
    const fetched = await serveBundle(bundleContext);
    const bundled = await bundleContext.newPage();
    const init = await openTab(bundled, 'e2e-bundle', {}, '?bundle=/site-search/');
    expect(init.error).toBeUndefined();
    const caps = init.result.capabilities;
    expect(caps.index).toBeUndefined(); // read-only: no writes advertised
    expect(caps['x-inpage'].bundle).toMatchObject({ documents: docs.length, readOnly: true });
    expect(caps.retrieve.modes).toContain('hybrid');

    const first = await call(bundled, 'retrieve', { query: 'white whale', k: 5, mode: 'sparse' });
    expect(first.result.hits.length).toBeGreaterThan(0);
    // Manifest first, then the core file, the query's term shards and the hits' text shards; the
    // vectors only once the answer is out (they are read in the background from then on, so the
    // test looks at what came before the first vector request, not at when its reply arrived).
    expect(fetched[0]).toBe('rcp-bundle.json');
    const manifest = JSON.parse(readFileSync(join(out, 'rcp-bundle.json'), 'utf8')) as BundleManifest;
    const firstVector = fetched.findIndex((p) => p.startsWith('vectors/'));
    const before = firstVector < 0 ? fetched.slice() : fetched.slice(0, firstVector);
    expect(before[1]).toBe(manifest.core.path);
    const texts = before.filter((p) => p.startsWith('texts/'));
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.length).toBeLessThanOrEqual(first.result.hits.length);
    expect(before.filter((p) => p.startsWith('terms/')).length).toBeLessThanOrEqual(2); // 'white', 'whale'
    expect(before.filter((p) => !/^(rcp-bundle\.json|core-|terms\/|texts\/)/.test(p))).toEqual([]);

    const pageContext = await browser.newContext();
    const outside = await watchOrigin(pageContext, { modelConfig: STATIC_MODEL });
    const inPage = await pageContext.newPage();
    await openTab(inPage, 'e2e-in-page');
    const added = await call(inPage, 'index/add', { documents: docs, chunk: true, contextual: true });
    expect(added.error).toBeUndefined();

    for (const mode of ['sparse', 'hybrid', 'dense'] as const) {
      for (const query of QUERIES) {
        const params = { query, k: 8, mode, includeText: true };
        const [a, b] = [await call(bundled, 'retrieve', params), await call(inPage, 'retrieve', params)];
        expect(a.error, `${mode} ${query}`).toBeUndefined();
        const ids = (r: typeof a) => r.result.hits.map((h: { id: string }) => h.id);
        expect(ids(a), `${mode}: ${query}`).toEqual(ids(b));
        a.result.hits.forEach((h: { score: number; text: string }, i: number) => {
          // Vectors embedded by onnxruntime-node (bundle) and onnxruntime-web (page) agree to float rounding.
          expect(h.score).toBeCloseTo(b.result.hits[i].score, mode === 'sparse' ? 9 : 4);
          expect(h.text).toBe(b.result.hits[i].text);
        });
      }
    }
    expect(fetched.some((p) => p.startsWith('vectors/'))).toBe(true);

    const write = await call(bundled, 'index/add', { documents: [{ id: 'x', text: 'new page' }] });
    expect(write.error?.code).toBe(-32003);
    const clear = await call(bundled, 'x-inpage/clear', {});
    expect(clear.error?.code).toBe(-32004);
    expect(external).toEqual([]);
    expect(outside.external).toEqual([]);
    await bundleContext.close();
    await pageContext.close();
  });

  test('a missing text shard is named in a -32010, and the rest keeps serving', async ({ browser }) => {
    // The shard a first query reads (the texts of its hits), found by asking with every file served.
    const probe = await browser.newContext();
    const read = await serveBundle(probe);
    const probePage = await probe.newPage();
    await openTab(probePage, 'e2e-bundle', {}, '?bundle=/site-search/');
    expect((await call(probePage, 'retrieve', { query: QUERIES[0], k: 3, mode: 'sparse' })).result.hits.length).toBeGreaterThan(0);
    const missing = read.find((p) => p.startsWith('texts/'))!;
    await probe.close();

    const context = await browser.newContext();
    await serveBundle(context, missing);
    const page = await context.newPage();
    await openTab(page, 'e2e-bundle', {}, '?bundle=/site-search/');
    const errors: string[] = [];
    let served = 0;
    for (const query of QUERIES) {
      const r = await call(page, 'retrieve', { query, k: 3, mode: 'sparse' });
      if (r.error) {
        expect(r.error.code).toBe(-32010);
        errors.push(r.error.data?.detail ?? r.error.message);
      } else served++;
    }
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toContain(missing);
    expect(served).toBeGreaterThan(0);
    await context.close();
  });

  test('corrects a misspelt word from the typo shards, in every mode, reading them only for that query', async ({ browser }) => {
    const context = await browser.newContext();
    const fetched = await serveBundle(context);
    const page = await context.newPage();
    await openTab(page, 'e2e-bundle', {}, '?bundle=/site-search/');
    const typoFiles = (): string[] => fetched.filter((p) => /^typos[-/]/.test(p));
    expect((await call(page, 'retrieve', { query: 'white whale', k: 5, mode: 'sparse' })).result.hits.length).toBeGreaterThan(0);
    expect(typoFiles()).toEqual([]);
    for (const mode of ['sparse', 'hybrid', 'dense'] as const) {
      const clean = await call(page, 'retrieve', { query: 'harpoon line', k: 5, mode });
      const fixed = await call(page, 'retrieve', { query: 'harpoom line', k: 5, mode });
      expect(fixed.error, mode).toBeUndefined();
      expect(fixed.result.rewrittenQuery).toBe('harpoon line');
      expect(fixed.result.usage.notes).toContain("typo tolerance: searched 'harpoom' as 'harpoon'");
      expect(fixed.result.hits.map((h: { id: string }) => h.id), mode).toEqual(clean.result.hits.map((h: { id: string }) => h.id));
    }
    expect(typoFiles().length).toBeGreaterThan(1); // the listing and the word's shards
    expect(typoFiles().length).toBeLessThanOrEqual(5);
    await context.close();
  });

  test('the playground opens a bundle by URL, read-only, and searches it offline on the next visit', async ({ context, page }) => {
    const { external } = await watchOrigin(context);
    await serveBundle(context);
    await page.goto('/index.html?panel=documents');
    await expect(page.locator('#status')).toContainText('Connected', { timeout: 60_000 });
    await page.locator('#bundle-url').fill(`${ORIGIN}/site-search/rcp-bundle.json`);
    await page.locator('#bundle-form button').click();
    await expect(page.locator('#bundle-note')).toContainText('read-only');
    await expect(page.locator('#drop-zone')).toBeHidden();
    await expect(page.locator('#index-stats')).toContainText(`${docs.length} documents`, { timeout: 60_000 });
    await search(page, 'white whale');
    await expect(page.locator('#hits li').first()).toContainText(/whale/i);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    // The worker stores its copies once its fetching pauses (src/bundle/http-cache.ts): a next visit comes later than that.
    // Polled from here: page.waitForFunction takes an async predicate's promise as truthy at once.
    await expect
      .poll(() => page.evaluate(async (name) => (await (await caches.open(name)).keys()).some((r) => r.url.includes('/texts/')), `rcp-bundle:${ORIGIN}/site-search/`))
      .toBe(true);

    // Nothing serves the bundle any more (the preview server has none): only the service worker's cache can.
    await context.unroute(`${ORIGIN}/site-search/**`);
    await context.setOffline(true);
    await page.reload();
    await expect(page.locator('#status')).toContainText('Connected', { timeout: 60_000 });
    await search(page, 'white whale');
    await expect(page.locator('#hits li').first()).toContainText(/whale/i);
    await context.setOffline(false);
    expect(external).toEqual([]);
  });
});

test.describe('a bundle built with a static model, opened over HTTP', () => {
  let semantic: string;
  test.beforeAll(async () => {
    semantic = mkdtempSync(join(tmpdir(), 'rcp-e2e-bundle-static-'));
    const modelBase = join(import.meta.dirname, '..', 'public', 'models') + '/';
    // With the model's folder: the bundle carries its rows and the vectors as clustered sign bits (src/bundle/static-format.ts).
    await buildIndex({ input: site, out: semantic, baseUrl: '', model: { name: MODEL, folder: join(modelBase, MODEL), dtype: 'q8', load: () => loadEmbedder({ modelBase, model: MODEL, dtype: 'q8' }) }, log: () => undefined });
  });
  test.afterAll(() => rmSync(semantic, { recursive: true, force: true }));

  test('answers hybrid and dense from its shards: no model file, no ONNX runtime, no segment vectors', async ({ browser }) => {
    const context = await browser.newContext();
    const { external, urls } = await watchOrigin(context);
    const fetched: string[] = [];
    await context.route(`${ORIGIN}/site-search/**`, (route) => {
      const path = decodeURIComponent(new URL(route.request().url()).pathname.slice('/site-search/'.length));
      fetched.push(path);
      try {
        return route.fulfill({ body: readFileSync(join(semantic, path)), contentType: path.endsWith('.json') ? 'application/json' : 'application/octet-stream' });
      } catch {
        return route.fulfill({ status: 404, body: 'not found' });
      }
    });
    const page = await context.newPage();
    const init = await openTab(page, 'e2e-bundle-static', {}, '?bundle=/site-search/');
    expect(init.error).toBeUndefined();
    expect(init.result.capabilities.retrieve.modes).toContain('hybrid');
    for (const mode of ['hybrid', 'dense'] as const) {
      const r = await call(page, 'retrieve', { query: 'the captain of the ship', k: 5, mode });
      expect(r.error, mode).toBeUndefined();
      expect(r.result.hits.length, mode).toBeGreaterThan(0);
      expect(r.result.hits.some((h: { scores?: { dense?: number } }) => h.scores?.dense !== undefined), mode).toBe(true);
      expect((r.result.usage?.notes ?? []).join(' '), mode).toMatch(/dense scores approximate/);
    }
    expect(fetched.some((p) => p.startsWith('static/rows/'))).toBe(true);
    expect(fetched.some((p) => p.startsWith('static/cluster/'))).toBe(true);
    expect(fetched.filter((p) => p.startsWith('vectors/') || p.startsWith('fine/'))).toEqual([]);
    expect(urls.filter((u) => /\/models\/|\/ort\/|onnx|transformers/.test(u))).toEqual([]);
    expect(external).toEqual([]);
    await context.close();
  });
});

/**
 * The package outside the playground, in Firefox ESR and WebKitGTK (issue 44): the library
 * example app built from the packed tarball (e2e/library-example.spec.ts), and `<rcp-search>` over
 * a bundle built ahead (examples/site-search, e2e/site-search.spec.ts), sparse and hybrid, driven
 * by the keyboard alone. Each is served from a folder at an origin of its own.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildExampleApp, type BuiltExample } from '../support/example-app.ts';
import { waitText } from './app.ts';
import { BROWSERS, launch, type BrowserSession, type Tab } from './driver.ts';
import { serveFolder, type FolderServer } from './server.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const PORT = Number(process.env.BROWSERS_PORT ?? 4183);
const T = { timeout: 300_000 };

let example: BuiltExample;
let exampleServer: FolderServer;
let site: string;
let siteServer: FolderServer;

before(async () => {
  // buildExampleApp builds lib/ first (scripts/build-lib.ts), which the site below copies.
  example = buildExampleApp();
  exampleServer = await serveFolder(join(example.dir, 'dist'), PORT + 2);
  site = mkdtempSync(join(tmpdir(), 'rcp-xb-site-'));
  // The example as its README builds it: glove-static-100d's rows in the bundle, so the element
  // answers hybrid with no model runtime; a second page pins the same bundle to sparse.
  execFileSync(process.execPath, ['--import', 'tsx', 'examples/site-search/build-site.ts', '--out', site], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const index = readFileSync(join(site, 'index.html'), 'utf8');
  writeFileSync(join(site, 'sparse.html'), index.replace(/<rcp-search /g, '<rcp-search mode="sparse" '));
  siteServer = await serveFolder(site, PORT + 3);
});

after(async () => {
  await exampleServer?.close();
  await siteServer?.close();
  if (example) rmSync(dirname(example.dir), { recursive: true, force: true });
  if (site) rmSync(site, { recursive: true, force: true });
});

/** Tabs until focus is in the inline `<rcp-search>` box (its input sits in the shadow root). */
async function tabToInlineBox(tab: Tab): Promise<void> {
  for (let i = 0; i < 12; i++) {
    await tab.press('Tab');
    const at = await tab.evaluate(() => {
      const a = document.activeElement;
      return a?.matches('rcp-search.inline') && a.shadowRoot?.activeElement?.tagName === 'INPUT';
    });
    if (at) return;
  }
  throw new Error('Tab never reached the inline search box');
}

const inlineStatus = (tab: Tab) => tab.evaluate(() => document.querySelector('rcp-search.inline')?.shadowRoot?.querySelector('[part=status]')?.textContent ?? '');

for (const name of BROWSERS) {
  describe(`package in ${name}`, () => {
    let browser: BrowserSession;
    let tab: Tab;
    before(async () => {
      browser = await launch(name);
      tab = browser.tab;
    });
    after(() => browser.close());

    test('the library example app: the packed tarball in an outside Vite app, and in a plain static folder', T, async () => {
      exampleServer.takeRequests();
      await tab.goto(`${exampleServer.origin}/`);
      await waitText(tab, '#status', '1 result for “whale” from rcp-in-page', { timeout: 120_000 });
      assert.deepEqual(await tab.evaluate(() => [...document.querySelectorAll('#hits li')].map((li) => li.getAttribute('data-id'))), ['moby']);
      await tab.evaluate(() => {
        const q = document.querySelector('#q') as HTMLInputElement;
        q.value = '';
      });
      await tab.type('#q', 'woods pond');
      await tab.click('#search button');
      await waitText(tab, '#status', 'for “woods pond”', { timeout: 60_000 });
      assert.equal(await tab.evaluate(() => document.querySelector('#hits li')?.getAttribute('data-id')), 'walden');
      // The worker came from the package's own worker.js, bundled by the app's Vite build.
      assert.ok(exampleServer.takeRequests().some((p) => /^\/assets\/worker-[\w-]+\.js$/.test(p)));

      await tab.goto(`${exampleServer.origin}/static/index.html`);
      await waitText(tab, '#status', /^hits: a$/, { timeout: 120_000 });
      assert.ok(exampleServer.takeRequests().includes('/static/rcp-in-page/worker.js'));
    });

    for (const mode of ['sparse', 'hybrid'] as const) {
      test(`<rcp-search> over a built bundle, ${mode}, by the keyboard alone`, T, async () => {
        await tab.goto(`${siteServer.origin}/${mode === 'sparse' ? 'sparse.html' : 'index.html'}`);
        await tab.evaluate(() => {
          const w = window as unknown as { followed: string[] };
          w.followed = [];
          document.addEventListener('rcp-search-navigate', (ev) => {
            ev.preventDefault();
            w.followed.push((ev as CustomEvent<{ href: string }>).detail.href);
          });
        });
        siteServer.takeRequests();
        await tabToInlineBox(tab);
        await tab.keys('Float32Array typed array constructor');
        await tab.waitFor(() => /^\d+ results? on \d+ pages?$/.test(document.querySelector('rcp-search.inline')?.shadowRoot?.querySelector('[part=status]')?.textContent ?? ''), {
          what: 'results in the inline box',
          timeout: 120_000,
        });
        const titles = await tab.evaluate(() => [...(document.querySelector('rcp-search.inline')?.shadowRoot?.querySelectorAll('[part=group-title]') ?? [])].map((t) => t.textContent ?? ''));
        assert.ok(titles.some((t) => /^Float32Array\b/.test(t)), titles.join(' | '));
        // ↓ makes the first passage active, Enter follows its deep link.
        await tab.press('ArrowDown');
        const active = await tab.evaluate(() => {
          const host = document.querySelector('rcp-search.inline')!;
          const id = host.shadowRoot!.querySelector('input')!.getAttribute('aria-activedescendant');
          return id ? host.shadowRoot!.getElementById(id)?.getAttribute('aria-selected') : null;
        });
        assert.equal(active, 'true');
        await tab.press('Enter');
        const followed = await tab.evaluate(() => (window as unknown as { followed: string[] }).followed);
        // The section's anchor (when the passage is under a heading), then the quoted text.
        assert.match(followed[0] ?? '', /^\/docs\/[\w-]+\.html#[\w%-]*:~:text=[^,]+(,[^,]+)?$/);
        // Hybrid (the element's default with a model) starts the bundle's model (it answers sparse
        // until it is loaded); mode="sparse" never asks for a model file.
        const fetched = siteServer.takeRequests();
        const models = fetched.filter((p) => p.startsWith('/models/'));
        if (mode === 'hybrid') assert.ok(models.includes('/models/config.json') && models.some((p) => p.startsWith('/models/glove-static-100d/')), fetched.join(' '));
        // Not even the models' metadata: WebKitGTK once read config.json and manifests here, from a
        // second engine its worker started on the defaults (src/worker-entry.ts says why).
        else assert.deepEqual(models, []);
        // Esc clears the box; Ctrl+K opens the dialog, which answers too, and Esc closes it.
        await tab.press('Escape');
        assert.equal(await inlineStatus(tab), '');
        await tab.press('Control+k');
        await tab.waitFor(() => !!document.querySelector('rcp-search[dialog]')?.shadowRoot?.querySelector('dialog')?.open, { what: 'the search dialog open', timeout: 30_000 });
        await tab.keys('format a string');
        await tab.waitFor(() => /results? on/.test(document.querySelector('rcp-search[dialog]')?.shadowRoot?.querySelector('[part=status]')?.textContent ?? ''), { what: 'results in the dialog', timeout: 60_000 });
        await tab.press('Escape');
        await tab.waitFor(() => !document.querySelector('rcp-search[dialog]')?.shadowRoot?.querySelector('dialog')?.open, { what: 'the dialog closed', timeout: 30_000 });
      });
    }
  });
}

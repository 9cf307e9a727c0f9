/**
 * The playground in Firefox ESR and WebKitGTK (issue 44): first open with the sample, a typed
 * query, hybrid scores, the document at its passage, persistence across a reload, an import with
 * its report, the durability witness and offline after the first visit. Assertions are ported
 * from the Chromium specs named in each test; the static model stands in for the encoder.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { STATIC_MODEL } from '../support/playground.ts';
import { call, clientStatus, docs, isVisible, openBridge, openPlayground, resetOrigin, search, searched, showArea, textOf, waitForSeed, waitHidden, waitText, waitVisible } from './app.ts';
import { BROWSERS, launch, type BrowserSession, type Tab } from './driver.ts';
import { startApp, type AppServer } from './server.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const SAMPLE_DOCUMENTS = (JSON.parse(readFileSync(join(ROOT, 'dist', 'sample', 'corpus.json'), 'utf8')) as { documents: unknown[] }).documents.length;
const T = { timeout: 900_000 };

let app: AppServer;
let files: string;
before(async () => {
  app = await startApp();
  files = mkdtempSync(join(tmpdir(), 'rcp-xb-files-'));
});
after(async () => {
  await app.close();
  rmSync(files, { recursive: true, force: true });
});

/** Sets the search mode as the options' select does (the value, then change). */
const setMode = (tab: Tab, mode: 'sparse' | 'dense' | 'hybrid') =>
  tab.evaluate((m: string) => {
    (document.querySelector('#search-options') as HTMLDetailsElement).open = true;
    const s = document.querySelector('#mode') as HTMLSelectElement;
    s.value = m;
    s.dispatchEvent(new Event('change', { bubbles: true }));
  }, mode);

for (const name of BROWSERS) {
  describe(`playground in ${name}`, () => {
    let browser: BrowserSession;
    let tab: Tab;
    before(async () => {
      browser = await launch(name);
      tab = browser.tab;
      console.log(`# ${browser.version}`);
    });
    after(async () => {
      const errors = (await browser.logs()).filter((l) => /^(error|pageerror):/.test(l));
      if (errors.length) console.log(`# ${name} console errors:\n${errors.join('\n')}`);
      await browser.close();
    });

    // e2e/playground-search.spec.ts, playground-sample-vectors.spec.ts
    test('first open seeds the sample; a typed query answers; hybrid scores; the document opens at the passage; a reload keeps the index', T, async () => {
      app.resetOverrides();
      app.override('/models/config.json', JSON.stringify(STATIC_MODEL), 'application/json');
      await resetOrigin(tab, app.origin);
      const t0 = Date.now();
      await openPlayground(tab, app.origin);
      // Typed key by key into the box while the sample is still seeding.
      await tab.type('#q', 'white whale');
      await searched(tab, 'white whale', 120_000);
      await waitText(tab, '#hits li', /whale/i, { timeout: 120_000 });
      console.log(`# ${name}: first result ${Date.now() - t0} ms after opening`);
      await waitForSeed(tab, 600_000);
      await waitText(tab, '#index-stats', `${SAMPLE_DOCUMENTS.toLocaleString('en')} documents`, { timeout: 120_000 });
      console.log(`# ${name}: sample seeded ${Date.now() - t0} ms after opening`);

      await search(tab, 'railroads');
      await waitVisible(tab, '#hits li mark.term');
      await waitVisible(tab, '#hits li .score-bars dt');

      // Hybrid: the static model embeds at write, so vectors exist once seeding is acknowledged.
      await setMode(tab, 'hybrid');
      await search(tab, 'a whale hunted by a ship');
      await tab.waitFor(() => !!document.querySelector('#hits[data-request*=\'"mode":"hybrid"\'] li .bar-dense'), { what: 'dense score bars in hybrid hits', timeout: 60_000 });
      assert.match(await textOf(tab, '#hits li'), /whale|ship|sea/i);

      // The document opens at the passage; Escape closes it.
      await tab.click('#hits li .hit-title');
      await waitVisible(tab, '#doc-panel');
      await waitVisible(tab, '#doc-passage');
      await waitVisible(tab, '#doc-passage mark.term');
      await tab.press('Escape');
      await waitHidden(tab, '#doc-panel');

      // Persistence: a reload reads the index back, and never duplicates the sample.
      await tab.reload();
      await waitText(tab, '#status', 'Connected', { timeout: 120_000 });
      await waitText(tab, '#index-stats', `${SAMPLE_DOCUMENTS.toLocaleString('en')} documents`, { timeout: 180_000 });
      await search(tab, 'white whale', 240_000);
      await waitText(tab, '#hits li', /whale/i, { timeout: 120_000 });
      assert.equal((await clientStatus(tab)).documents, SAMPLE_DOCUMENTS);
    });

    // e2e/playground-import-report.spec.ts
    test('an import reports every file: a text file imported, an empty one and a binary one refused', T, async () => {
      app.resetOverrides();
      app.override('/models/config.json', JSON.stringify(STATIC_MODEL), 'application/json');
      await resetOrigin(tab, app.origin);
      await openPlayground(tab, app.origin, { sample: false });
      const dir = mkdtempSync(join(files, `${name}-`));
      const paths = {
        text: join(dir, 'orrery.txt'),
        empty: join(dir, 'nothing.txt'),
        binary: join(dir, 'program.txt'),
      };
      writeFileSync(paths.text, 'Orreries model the solar system with brass gears.\n\nEach planet turns at its own pace.');
      writeFileSync(paths.empty, '');
      writeFileSync(paths.binary, Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(2000, 0)]));
      await showArea(tab, 'import');
      await tab.setFiles('#file-input', [paths.text, paths.empty, paths.binary]);
      const report = await waitText(tab, '#import-report', /^3 files/, { timeout: 240_000 });
      assert.match(report, /^3 files: 1 imported/, `${report} / ${await textOf(tab, '#import-error')}`);
      assert.match(report, /program\.txt: refused \(binary\) — binary content \(ELF executable\), not text/);
      assert.match(report, /nothing\.txt: nothing to import — the file is empty/);
      assert.match(report, /orrery\.txt: imported — 1 document/);
      await showArea(tab, 'search');
      await search(tab, 'orreries');
      await waitText(tab, '#hits li .hit-title', 'orrery');
      // And it persists across a reload.
      await tab.reload();
      await waitText(tab, '#status', 'Connected', { timeout: 120_000 });
      await search(tab, 'brass gears');
      await waitText(tab, '#hits li .hit-title', 'orrery');
    });

    // e2e/index-loss.spec.ts
    test('a deleted database is restored from the recovery log; with the log gone too it is reported as lost; without a place outside it, the fallback is said', T, async () => {
      app.resetOverrides();
      app.override('/models/config.json', JSON.stringify(STATIC_MODEL), 'application/json');
      await resetOrigin(tab, app.origin);
      const opfs = await tab.evaluate(async () => {
        try {
          await navigator.storage.getDirectory();
          return true;
        } catch {
          return false;
        }
      });
      await openBridge(tab, app.origin);
      assert.equal((await call(tab, 'index/add', { documents: docs('kept', 25, 'a document the person trusted us with') })).result.ids.length, 25);
      if (opfs)
        await tab.waitFor(
          async (name: string) => {
            try {
              const dir = await navigator.storage.getDirectory();
              return (JSON.parse(await (await (await dir.getFileHandle(name)).getFile()).text()) as { documents: number }).documents === 25;
            } catch {
              return false;
            }
          },
          { what: 'the witness record', timeout: 30_000 },
          'rcp-witness-rcp-engine.json',
        );
      /** Leaves the app (its worker and connection go with it) and deletes the database, and the recovery log with `withLog`. */
      const discard = async (withLog: boolean) => {
        await tab.goto('about:blank');
        await tab.goto(`${app.origin}/__blank`);
        await tab.evaluate(
          (log: boolean) =>
            new Promise<void>((ok, fail) => {
              const r = indexedDB.deleteDatabase('rcp-engine');
              const t = setTimeout(() => fail(new Error('the delete neither succeeded nor was blocked in 30 s')), 30_000);
              r.onsuccess = async () => {
                clearTimeout(t);
                if (log) {
                  const dir = await navigator.storage.getDirectory();
                  for await (const name of (dir as unknown as { keys(): AsyncIterable<string> }).keys()) if (name.startsWith('rcp-log-')) await dir.removeEntry(name);
                }
                ok();
              };
              r.onerror = () => (clearTimeout(t), fail(r.error));
              r.onblocked = () => (clearTimeout(t), fail(new Error('blocked: a page still holds the database')));
            }),
          withLog,
        );
      };
      await discard(false);
      await openPlayground(tab, app.origin);
      if (opfs) {
        // The recovery log (OPFS, written from the worker with sync access handles) gives the index back.
        await waitVisible(tab, '#index-loss', { timeout: 60_000 });
        const restored = await textOf(tab, '#index-loss');
        assert.match(restored, /Your index was restored after the browser discarded it: 25 documents/);
        assert.doesNotMatch(restored, /lost/);
        assert.equal((await clientStatus(tab)).documents, 25);
        // With the log gone as well, only the witness is left: the loss is told, with the counts.
        await discard(true);
        await openPlayground(tab, app.origin);
        await waitVisible(tab, '#index-loss', { timeout: 60_000 });
        const lost = await textOf(tab, '#index-loss');
        assert.match(lost, /Your index lost documents/);
        assert.match(lost, /It held 25 documents \(25 passages\); it now holds 0/);
        assert.equal(await isVisible(tab, '#progress'), false); // no sample poured over a lost index
        assert.equal((await clientStatus(tab)).documents, 0);
      } else {
        // No origin-private file system (WebKitGTK has no navigator.storage): nothing outlives the
        // database, so the loss cannot be told; the playground says that it cannot (docs/browsers.md).
        await waitText(tab, '#notices', /cannot tell if this browser discards your index/i, { timeout: 60_000 });
        assert.equal(await isVisible(tab, '#index-loss'), false);
      }
    });

    // e2e/playground-offline.spec.ts
    test('after the first visit it works with the server gone, from the service worker', T, async () => {
      app.resetOverrides();
      app.override('/models/config.json', JSON.stringify(STATIC_MODEL), 'application/json');
      await resetOrigin(tab, app.origin);
      await openPlayground(tab, app.origin, { sample: false });
      await tab.evaluate(() => (window as unknown as { rcpClient: { request(m: string, p: unknown): Promise<unknown> } }).rcpClient.request('index/add', { documents: [{ id: 'w', text: 'The white whale swam past the ship at dawn.', meta: { title: 'Whale' } }] }));
      const sw = await tab.waitFor(
        async () => {
          const reg = await navigator.serviceWorker.ready;
          const names = (await caches.keys()).filter((n) => n.startsWith('rcp-playground-'));
          if (reg.active?.state !== 'activated' || names.length !== 1) return null;
          const keys = (await (await caches.open(names[0])).keys()).map((r) => new URL(r.url).pathname);
          return keys.includes('/index.html') && keys.some((k) => k.startsWith('/ort/')) && keys.some((k) => k.startsWith('/models/')) ? keys : null;
        },
        { what: 'the service worker activated with its precache', timeout: 180_000, interval: 500 },
      );
      assert.ok(sw.includes('/sample/corpus.json'));
      app.offline = true;
      try {
        await tab.reload();
        await waitText(tab, '#status', 'Connected', { timeout: 120_000 });
        assert.equal(await tab.evaluate(() => navigator.serviceWorker.controller !== null), true);
        await search(tab, 'white whale');
        await waitText(tab, '#hits li .hit-title', 'Whale');
      } finally {
        app.offline = false;
      }
    });
  });
}

import { expect, test, type Page } from '@playwright/test';
import { openPlayground } from './support/playground.ts';
import { call, logsOf, openTab } from '../tools/lib/rcp-page.ts';

/**
 * An index that the browser discarded (or that went missing otherwise) is never shown as merely
 * empty. The recovery log kept outside the database (OPFS, src/storage/recovery) gives it back at
 * the next open, and the engine says so; what the log cannot give back (here: the log deleted
 * with the database) the record kept beside it (src/storage/witness.ts) reports as lost, to every
 * session, to the playground and to the bridges.
 */

const WITNESS = 'rcp-witness-rcp-engine.json';

/** The witness record as the page's origin holds it in OPFS (undefined: none yet). */
const witnessOf = (page: Page) =>
  page.evaluate(async (name) => {
    const dir = await navigator.storage.getDirectory();
    try {
      return JSON.parse(await (await (await dir.getFileHandle(name)).getFile()).text()) as { documents: number; chunks: number; indexVersion: number; lost?: unknown };
    } catch {
      return undefined;
    }
  }, WITNESS);

/**
 * Deletes the engine's database as the browser does when it finds it corrupt (no tab may hold it
 * open); with `log: 'gone'` its recovery log too, so nothing can give it back.
 */
const discardDatabase = (page: Page, o: { log: 'kept' | 'gone' }) =>
  page.evaluate(async (log) => {
    await new Promise<void>((ok, fail) => {
      const r = indexedDB.deleteDatabase('rcp-engine');
      r.onsuccess = () => ok();
      r.onerror = () => fail(r.error);
      r.onblocked = () => fail(new Error('blocked: a tab still holds the database'));
    });
    if (log === 'kept') return;
    const dir = await navigator.storage.getDirectory();
    for await (const [name] of dir as unknown as AsyncIterable<[string]>) if (name.startsWith('rcp-log-')) await dir.removeEntry(name);
  }, o.log);

const docs = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `kept-${i}`, text: `a document the person trusted us with, number ${i}` }));

async function indexThenDiscard(page: Page, n: number, log: 'kept' | 'gone' = 'gone'): Promise<void> {
  await openTab(page);
  expect((await call(page, 'index/add', { documents: docs(n) })).result.ids).toHaveLength(n);
  // The record follows the commit off its path: it says what the index holds.
  await expect.poll(async () => (await witnessOf(page))?.documents, { timeout: 10_000 }).toBe(n);
  await page.goto('about:blank'); // the worker goes, and with it the database connection
  await page.goto('/bridge.html');
  await discardDatabase(page, { log });
}

test('a discarded database comes back from its recovery log by itself, and every session and the playground are told', async ({ page }) => {
  await indexThenDiscard(page, 30, 'kept');
  const init = await openTab(page, 'after-discard', { capabilities: { log: {} }, _meta: { logLevel: 'warning' } });
  expect(init.result.usage.notes).toEqual([expect.stringMatching(/^index restored: the database is (empty|missing).*its 30 documents \(30 passages, version \d+\) were rebuilt from the recovery log/)]);
  await expect.poll(async () => (await logsOf<{ level: string; message: string }>(page)).filter((l) => l.level === 'warning').map((l) => l.message)).toEqual([expect.stringMatching(/^index restored: /)]);
  expect(await page.evaluate(() => (window as unknown as { rcpBridge: { indexLoss(): Promise<unknown> } }).rcpBridge.indexLoss())).toBeUndefined();
  const found = await call(page, 'retrieve', { query: 'trusted number 17', k: 3, mode: 'sparse' });
  expect(found.result.hits[0].id).toBe('kept-17');
  // The open after that finds the database whole: nothing more to say.
  await page.goto('/bridge.html');
  expect((await openTab(page, 'next-start')).result.usage).toBeUndefined();
});

test('the playground that opens a discarded database says it was restored, with the count, and seeds nothing over it', async ({ page }) => {
  await indexThenDiscard(page, 30, 'kept');
  await openPlayground(page);
  const banner = page.locator('#index-loss');
  await expect(banner).toContainText('Your index was restored after the browser discarded it: 30 documents', { timeout: 30_000 });
  await page.waitForTimeout(2000);
  await expect(page.locator('#progress')).toBeHidden();
  expect((await page.evaluate(() => (window as unknown as { rcpClient: { status(): Promise<{ documents: number }> } }).rcpClient.status())).documents).toBe(30);
  await banner.getByRole('button', { name: 'Dismiss' }).click();
  await expect(banner).toBeHidden();
});

test('a discarded database is reported to every session (initialize notes, an error log) with what was lost', async ({ page }) => {
  await indexThenDiscard(page, 40);
  const init = await openTab(page, 'after-loss', { capabilities: { log: {} }, _meta: { logLevel: 'warning' } });
  // The first session's answer waited for the open's comparison with the record: the loss is in it.
  expect(init.result.usage.notes).toEqual([expect.stringMatching(/^index lost: it held 40 documents \(40 passages\)/)]);
  const loss = await page.evaluate(() => (window as unknown as { rcpBridge: { indexLoss(): Promise<{ expected: { documents: number }; found: { documents: number }; reason: string } | undefined> } }).rcpBridge.indexLoss());
  expect(loss?.expected.documents).toBe(40);
  expect(loss?.found.documents).toBe(0);
  expect(loss?.reason).toMatch(/empty/);
  // …and, having opted in to logs, hears it as an error log…
  await expect.poll(async () => (await logsOf<{ level: string; message: string }>(page)).filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
    expect.stringMatching(/^index lost: it held 40 documents \(40 passages\)/),
  ]);
  // …and every later session in its initialize result, until dismissed.
  const later = await openTab(page, 'later');
  expect(later.result.usage.notes).toEqual([expect.stringMatching(/^index lost: it held 40 documents .*Re-import your documents or load an index export/)]);
  // Writing again does not hide it: the record keeps the loss until it is dismissed.
  await call(page, 'index/add', { documents: docs(3) });
  await expect.poll(async () => (await witnessOf(page))?.documents).toBe(3);
  expect((await witnessOf(page))?.lost).toBeDefined();
  await page.goto('/bridge.html');
  expect((await openTab(page, 'again')).result.usage.notes).toHaveLength(1);
});

test('the playground shows the loss with the counts and the way back, seeds nothing over it, and forgets it when dismissed', async ({ page }) => {
  await indexThenDiscard(page, 25);
  await openPlayground(page);
  const banner = page.locator('#index-loss');
  await expect(banner).toBeVisible({ timeout: 30_000 });
  await expect(banner).toContainText('Your index lost documents');
  await expect(banner).toContainText('It held 25 documents (25 passages); it now holds 0');
  await expect(banner.getByRole('button', { name: 'Export what is left' })).toBeVisible();
  await expect(banner.getByText('Load an index file', { exact: true })).toBeVisible();
  // No sample corpus is poured over a lost index.
  await page.waitForTimeout(2000);
  await expect(page.locator('#progress')).toBeHidden();
  expect((await page.evaluate(() => (window as unknown as { rcpClient: { status(): Promise<{ documents: number }> } }).rcpClient.status())).documents).toBe(0);
  await banner.getByRole('button', { name: 'Dismiss' }).click();
  await expect(banner).toBeHidden();
  // A status asked for before the click may answer after it: the banner stays dismissed.
  await page.waitForTimeout(3500); // past the page's next status poll (every 3 s)
  await expect(banner).toBeHidden();
  // The worker forgot it too: the record outside the database no longer holds the loss.
  await expect.poll(async () => (await witnessOf(page))?.lost, { timeout: 15_000 }).toBeUndefined();
  await page.goto('/bridge.html');
  expect((await openTab(page, 'dismissed')).result.usage).toBeUndefined();
});

test('an unreadable record is not a loss but is said: a warning to every session and in the playground, nothing seeded, gone once a record is written', async ({ page }) => {
  await page.goto('/bridge.html');
  await page.evaluate(async (name) => {
    const w = await (await (await navigator.storage.getDirectory()).getFileHandle(name, { create: true })).createWritable();
    await w.write('{"format":1,"storeId":"tru');
    await w.close();
  }, WITNESS);
  const init = await openTab(page, 'truncated', { capabilities: { log: {} }, _meta: { logLevel: 'warning' } });
  expect(init.result.usage.notes).toEqual([expect.stringMatching(/^index record unreadable: .* is not JSON .* cannot be told; the index holds 0 documents/)]);
  await expect.poll(async () => (await logsOf<{ level: string; message: string }>(page)).map((l) => l.level)).toContain('warning');
  expect(await page.evaluate(() => (window as unknown as { rcpBridge: { indexLoss(): Promise<unknown> } }).rcpBridge.indexLoss())).toBeUndefined();
  // The playground says the index could not be checked and pours no sample over it.
  await openPlayground(page);
  const banner = page.locator('#index-loss');
  await expect(banner).toBeVisible({ timeout: 30_000 });
  await expect(banner).toContainText('Your index could not be checked');
  await expect(banner).toContainText('re-import them or load an index export');
  await page.waitForTimeout(2000);
  await expect(page.locator('#progress')).toBeHidden();
  // A commit writes a good record: the next open compares again and has nothing to say.
  await openTab(page, 'writes');
  expect((await call(page, 'index/add', { documents: docs(2) })).result.ids).toHaveLength(2);
  await expect.poll(async () => (await witnessOf(page))?.documents).toBe(2);
  await page.goto('about:blank');
  expect((await openTab(page, 'after')).result.usage).toBeUndefined();
});

/** Copies database `from` over `to` (schema, version and every record), as a rolled-back database would hold it. No tab may hold either open. */
const copyDatabase = (page: Page, from: string, to: string) =>
  page.evaluate(
    async ([from, to]) => {
      const settle = <T,>(r: IDBRequest<T>) => new Promise<T>((ok, fail) => ((r.onsuccess = () => ok(r.result)), (r.onerror = () => fail(r.error))));
      const src = await settle(indexedDB.open(from));
      const names = [...src.objectStoreNames];
      const tx = src.transaction(names, 'readonly');
      const stores = await Promise.all(
        names.map(async (name) => {
          const s = tx.objectStore(name);
          const indexes = [...s.indexNames].map((i) => s.index(i)).map((i) => ({ name: i.name, keyPath: i.keyPath, unique: i.unique, multiEntry: i.multiEntry }));
          return { name, keyPath: s.keyPath, autoIncrement: s.autoIncrement, indexes, keys: await settle(s.getAllKeys()), values: await settle(s.getAll()) };
        }),
      );
      const version = src.version;
      src.close();
      await new Promise<void>((ok, fail) => {
        const r = indexedDB.deleteDatabase(to);
        r.onsuccess = () => ok();
        r.onerror = () => fail(r.error);
        r.onblocked = () => fail(new Error(`blocked: a tab still holds ${to}`));
      });
      const open = indexedDB.open(to, version);
      open.onupgradeneeded = () => {
        for (const s of stores) {
          const made = open.result.createObjectStore(s.name, { keyPath: s.keyPath, autoIncrement: s.autoIncrement });
          for (const i of s.indexes) made.createIndex(i.name, i.keyPath, { unique: i.unique, multiEntry: i.multiEntry });
        }
      };
      const dst = await settle(open);
      const put = dst.transaction(names, 'readwrite');
      for (const s of stores) s.values.forEach((v, i) => (s.keyPath === null ? put.objectStore(s.name).put(v, s.keys[i]) : put.objectStore(s.name).put(v)));
      await new Promise<void>((ok, fail) => ((put.oncomplete = () => ok()), (put.onerror = () => fail(put.error))));
      dst.close();
    },
    [from, to],
  );

test('a database that lacks its last changes is caught up from the recovery log; the playground says they were completed, not that the index was discarded', async ({ page }) => {
  await openTab(page);
  await call(page, 'index/add', { documents: docs(20) });
  await expect.poll(async () => (await witnessOf(page))?.documents, { timeout: 10_000 }).toBe(20);
  await page.goto('about:blank');
  await page.goto('/bridge.html');
  await copyDatabase(page, 'rcp-engine', 'rcp-engine-then'); // the database as it was before the next write
  await openTab(page, 'second');
  const later = Array.from({ length: 10 }, (_, i) => ({ id: `later-${i}`, text: `a later document, written last, called harpooneer ${i}` }));
  await call(page, 'index/add', { documents: later });
  await expect.poll(async () => (await witnessOf(page))?.documents, { timeout: 10_000 }).toBe(30);
  await page.goto('about:blank');
  await page.goto('/bridge.html');
  await copyDatabase(page, 'rcp-engine-then', 'rcp-engine'); // that write cut off: the database lacks it, the log has it

  await openPlayground(page);
  const banner = page.locator('#index-loss');
  await expect(banner).toContainText("Your index's last changes were completed from its recovery log: 30 documents", { timeout: 30_000 });
  await expect(banner).toContainText(/the database is at version \d+ and its recovery log at \d+/);
  await expect(banner).not.toContainText('discarded');
  expect((await page.evaluate(() => (window as unknown as { rcpClient: { status(): Promise<{ documents: number }> } }).rcpClient.status())).documents).toBe(30);
  await page.goto('/bridge.html');
  // The next open finds the database whole (nothing more to say), with the write it had lacked.
  expect((await openTab(page, 'after-catch-up')).result.usage).toBeUndefined();
  expect((await call(page, 'retrieve', { query: 'harpooneer 7', k: 1, mode: 'sparse' })).result.hits[0].id).toBe('later-7');
});

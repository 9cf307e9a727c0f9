import { expect, test, type Page } from '@playwright/test';
import { call, openTab } from '../tools/lib/rcp-page.ts';

/**
 * `x-inpage/clear` and `x-inpage/export` cover the recovery log (src/storage/recovery, issue 47):
 * a clear leaves nothing of the cleared documents in OPFS, so a database discarded afterwards
 * comes back empty, not with what the person cleared; an export reads the database alone and
 * never needs the log.
 */

/** The recovery log's files in the page's OPFS, with their bytes as text (to look for a document's words). */
const logFiles = (page: Page) =>
  page.evaluate(async () => {
    const dir = await navigator.storage.getDirectory();
    const out: { name: string; size: number; text: string }[] = [];
    for await (const [name, handle] of dir as unknown as AsyncIterable<[string, FileSystemFileHandle]>) {
      if (!name.startsWith('rcp-log-')) continue;
      const file = await handle.getFile();
      out.push({ name, size: file.size, text: new TextDecoder().decode(await file.arrayBuffer()) });
    }
    return out;
  });

/** Reopens the page with no worker, then runs `fn` there (no tab holds the database or the log meanwhile). */
async function whileClosed(page: Page, fn: () => Promise<void>): Promise<void> {
  await page.goto('about:blank');
  await page.goto('/bridge.html');
  await page.evaluate(fn);
}

const docs = (n: number, word: string) => Array.from({ length: n }, (_, i) => ({ id: `${word}-${i}`, text: `the person's ${word} note number ${i}` }));

test('x-inpage/clear leaves nothing of the cleared documents in the recovery log: a database discarded after it comes back empty', async ({ page }) => {
  await openTab(page);
  expect((await call(page, 'index/add', { documents: docs(12, 'zanzibarian') })).result.ids).toHaveLength(12);
  await expect.poll(async () => (await logFiles(page)).some((f) => f.text.includes('zanzibarian note number 11')), { timeout: 10_000 }).toBe(true);
  const before = await logFiles(page);

  expect((await call(page, 'x-inpage/clear', {})).result.deleted).toBe(12);
  const after = await logFiles(page);
  expect(after.map((f) => f.name)).not.toContain(before[0].name); // the file that held them is removed
  expect(after.some((f) => f.text.includes('zanzibarian'))).toBe(false);

  // The browser discards the database now: the open finds nothing to restore and says nothing was.
  await whileClosed(page, async () => {
    await new Promise<void>((ok, fail) => {
      const r = indexedDB.deleteDatabase('rcp-engine');
      r.onsuccess = () => ok();
      r.onerror = () => fail(r.error);
      r.onblocked = () => fail(new Error('blocked: a tab still holds the database'));
    });
  });
  const reopened = await openTab(page);
  expect(JSON.stringify(reopened.result.usage ?? {})).not.toMatch(/restored/);
  expect((await call(page, 'x-inpage/export', {})).result).toMatchObject({ documents: [], total: 0 });
});

test('x-inpage/export never needs the recovery log: with its files deleted, every document is exported', async ({ page }) => {
  await openTab(page);
  expect((await call(page, 'index/add', { documents: docs(7, 'kept') })).result.ids).toHaveLength(7);
  await expect.poll(async () => (await logFiles(page)).length, { timeout: 10_000 }).toBeGreaterThan(0);
  await whileClosed(page, async () => {
    const dir = await navigator.storage.getDirectory();
    const names: string[] = [];
    for await (const [name] of dir as unknown as AsyncIterable<[string]>) if (name.startsWith('rcp-log-')) names.push(name);
    for (const name of names) await dir.removeEntry(name);
  });
  expect(await logFiles(page)).toEqual([]);
  await openTab(page);
  const exported = (await call(page, 'x-inpage/export', {})).result as { documents: { id: string; text: string }[]; total: number };
  expect(exported.total).toBe(7);
  expect(exported.documents.map((d) => d.id).sort()).toEqual(docs(7, 'kept').map((d) => d.id).sort());
  expect(exported.documents.find((d) => d.id === 'kept-3')?.text).toBe("the person's kept note number 3");
});

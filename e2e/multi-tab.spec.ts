import { expect, test, type Page } from '@playwright/test';
import { call, openTab as openRcpTab, type Reply } from '../tools/lib/rcp-page.ts';

/**
 * Two tabs of one browser profile: each runs its own worker and engine over the same IndexedDB
 * database. Writes are serialised across tabs (Web Locks), commits are broadcast, and each tab
 * reloads what the other wrote before its next read.
 */

/** Opens the tab's session; returns whether it advertises `embed` (a model is served). */
async function openTab(page: Page): Promise<boolean> {
  const init = await openRcpTab(page, 'multi-tab');
  expect(init.result?.capabilities?.['x-inpage']).toEqual({ documents: true, clear: true, document: true, facets: true, export: true, import: true, map: true, feedback: true, quarantine: true, release: true });
  return init.result?.capabilities?.embed !== undefined;
}

/** Sends every batch at once (pipelined) from inside the page and waits for all replies. */
const addAll = (page: Page, batches: unknown[][]): Promise<Reply[]> =>
  page.evaluate(
    (bs) => Promise.all(bs.map((documents) => (window as unknown as { rcp(m: string, p: unknown): Promise<Reply> }).rcp('index/add', { documents }))),
    batches,
  );

const BATCHES = 8;
const PER_BATCH = 25;
function batches(tab: 'a' | 'b', word: string): { id: string; text: string; meta?: Record<string, unknown> }[][] {
  return Array.from({ length: BATCHES }, (_, i) => [
    ...Array.from({ length: PER_BATCH }, (_, j) => ({
      id: `${tab}-${i}-${j}`,
      text: `Tab ${tab} batch ${i} document ${j}: a story of the ${word} and the sea, number ${i * PER_BATCH + j}.`,
      meta: { title: `${tab.toUpperCase()} ${i}/${j}` },
    })),
    // Both tabs upsert the same id in every batch: it must exist once.
    { id: 'shared', text: `shared document last written by tab ${tab} in batch ${i}` },
  ]);
}

const total = async (page: Page): Promise<number> => (await call(page, 'x-inpage/documents', { limit: 1 })).result.total;

test('two tabs write concurrently to one corpus; each sees the other’s documents, also after a reload', async ({ context }) => {
  const a = await context.newPage();
  const b = await context.newPage();
  // One tab after the other, each waiting for its model (when one is served): the two workers do
  // not download the model files at the same time. The writes below are concurrent.
  for (const page of [a, b]) {
    const served = await openTab(page);
    const warm = await call(page, 'embed', { inputs: ['warm up'] });
    // What the session advertised decides the one right answer: vectors, or -32003 without a model.
    if (served) expect(warm.result?.vectors).toHaveLength(1);
    else expect(warm.error?.code).toBe(-32003);
  }

  const [ra, rb] = await Promise.all([addAll(a, batches('a', 'albatross')), addAll(b, batches('b', 'barracuda'))]);
  for (const r of [...ra, ...rb]) expect(r.error).toBeUndefined();
  const expected = 2 * BATCHES * PER_BATCH + 1;

  // Each tab retrieves the other's documents, with their text (read from the other tab's writes).
  // The other tab's last commit is visible once its announcement is handled: the announcement
  // (BroadcastChannel) and the request (MessagePort) are different task sources, so a worker busy
  // embedding in the background may run the request first. Polled, as for the delete below.
  const others = async (page: Page, word: string): Promise<Reply> => call(page, 'retrieve', { query: word, k: 1000, mode: 'sparse', includeText: true });
  await expect.poll(async () => (await others(a, 'barracuda')).result.hits.length).toBe(BATCHES * PER_BATCH);
  await expect.poll(async () => (await others(b, 'albatross')).result.hits.length).toBe(BATCHES * PER_BATCH);
  const fromA = await others(a, 'barracuda');
  const fromB = await others(b, 'albatross');
  expect(fromA.result.hits.every((h: { id: string; text: string }) => h.id.startsWith('b-') && h.text.includes('barracuda'))).toBe(true);
  expect(fromB.result.hits.every((h: { id: string; text: string }) => h.id.startsWith('a-') && h.text.includes('albatross'))).toBe(true);

  // The document count is exactly the sum, in both tabs; the shared id exists once.
  expect(await total(a)).toBe(expected);
  expect(await total(b)).toBe(expected);
  const listed = await call(a, 'x-inpage/documents', { limit: 1000 });
  const ids: string[] = listed.result.documents.map((d: { id: string }) => d.id);
  expect(new Set(ids).size).toBe(expected);
  expect(ids).toEqual([...ids].sort());
  const shared = await call(b, 'x-inpage/document', { id: 'shared' });
  expect(shared.result.text).toMatch(/^shared document last written by tab [ab] in batch \d$/);

  // A reloaded tab (a fresh worker and engine) loads everything back.
  await a.reload();
  await openTab(a);
  expect(await total(a)).toBe(expected);
  expect((await call(a, 'retrieve', { query: 'barracuda albatross', k: 1000, mode: 'sparse', includeText: false })).result.hits).toHaveLength(expected - 1);

  // A write in one tab reaches the other once its broadcast arrives (a reload before the next read).
  expect((await call(b, 'index/delete', { ids: ['a-0-0', 'b-0-0'] })).result.deleted).toBe(2);
  await expect.poll(() => total(a)).toBe(expected - 2);
  expect((await call(a, 'x-inpage/document', { id: 'b-0-0' })).error?.code).toBe(-32015);
  expect((await call(b, 'x-inpage/clear', {})).result.deleted).toBe(expected - 2);
  await expect.poll(() => total(a)).toBe(0);
  expect((await call(a, 'retrieve', { query: 'barracuda', k: 10, mode: 'sparse' })).result.hits).toEqual([]);
});

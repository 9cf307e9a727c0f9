import { expect, test } from '@playwright/test';
import { ORIGIN } from './support/playground.ts';
import { call, openTab, progressSeen } from '../tools/lib/rcp-page.ts';

/**
 * The persistent engine in real Chromium: acknowledged writes survive a crashed page, an
 * interrupted write leaves nothing half-written, quota exhaustion is a typed error, upsert and
 * delete behave, and hostile filters are rejected precisely.
 */

const docs = (prefix: string, n: number, words: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, text: `${words} number ${i}. `.repeat(30), meta: { title: `${prefix} ${i}` } }));

test('a tab closed mid-ingest loses nothing acknowledged and leaves no half-written batch', async ({ context }) => {
  const a = await context.newPage();
  await openTab(a);
  const first = await call(a, 'index/add', { documents: docs('kept', 50, 'acknowledged lighthouse keeper') });
  expect(first.result.ids).toHaveLength(50);
  // A large write in flight, then the renderer (and its worker) dies without any unload. The write
  // has provably started (its progress arrived) and not finished (no answer) when the tab goes.
  await a.evaluate((batch) => {
    const w = window as unknown as { rcp(m: string, p: unknown): Promise<unknown>; __bulkAnswered: boolean };
    w.__bulkAnswered = false;
    void w.rcp('index/add', { documents: batch, _meta: { progressToken: 'bulk' } }).then(() => (w.__bulkAnswered = true));
  }, docs('interrupted', 3000, 'interrupted bulk cargo'));
  await progressSeen(a, 'bulk');
  expect(await a.evaluate(() => (window as unknown as { __bulkAnswered: boolean }).__bulkAnswered)).toBe(false);
  await a.close(); // the tab goes away mid-write: its worker is terminated before the commit

  const b = await context.newPage();
  await openTab(b);
  const list = await call(b, 'x-inpage/documents', { limit: 1000 });
  expect(list.result.total).toBe(50); // nothing of the interrupted batch, everything acknowledged
  const kept = await call(b, 'retrieve', { query: 'acknowledged lighthouse keeper', k: 100, mode: 'sparse', unit: 'document' });
  expect(new Set(kept.result.hits.map((h: { id: string }) => h.id)).size).toBe(50);
  const bulk = await call(b, 'retrieve', { query: 'interrupted bulk cargo', k: 5, mode: 'sparse' });
  expect(bulk.result.hits).toEqual([]);
  // The index is still writable and consistent after the crash.
  const again = await call(b, 'index/add', { documents: [{ id: 'after', text: 'written after the crash' }] });
  expect(again.result.ids).toEqual(['after']);
});

test('quota exhaustion is -32013 with a detail, and nothing of the failed batch is stored', async ({ context, page }) => {
  await openTab(page);
  // Chromium applies a quota override to storage opened after it: set it before the first write.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: `${ORIGIN}/`, quotaSize: 256 * 1024 });
  expect((await call(page, 'index/add', { documents: docs('small', 5, 'tiny seed') })).result.ids).toHaveLength(5);
  const huge = docs('huge', 400, 'a very long passage that fills the quota quickly, lorem ipsum dolor sit amet');
  const big = await call(page, 'index/add', { documents: huge });
  expect(big.error?.code).toBe(-32013);
  expect(String(big.error?.data?.detail)).toMatch(/quota/i);
  expect((await call(page, 'x-inpage/documents', {})).result.total).toBe(5);
  expect((await call(page, 'retrieve', { query: 'lorem ipsum', k: 3, mode: 'sparse' })).result.hits).toEqual([]);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: `${ORIGIN}/` });
  const retry = await call(page, 'index/add', { documents: huge });
  expect(retry.result.ids).toHaveLength(400);
  expect((await call(page, 'x-inpage/documents', {})).result.total).toBe(405);
});

test('upsert replaces, delete is idempotent and counts only real removals; a reload sees the result', async ({ page }) => {
  await openTab(page);
  await call(page, 'index/add', { documents: [{ id: 'u', text: 'first version about albatross' }] });
  await call(page, 'index/add', { documents: [{ id: 'u', text: 'second version about cormorant' }] });
  expect((await call(page, 'retrieve', { query: 'albatross', k: 5, mode: 'sparse' })).result.hits).toEqual([]);
  expect((await call(page, 'retrieve', { query: 'cormorant', k: 5, mode: 'sparse' })).result.hits[0].id).toBe('u');
  expect((await call(page, 'x-inpage/documents', {})).result.total).toBe(1);
  await page.reload();
  await openTab(page);
  expect((await call(page, 'retrieve', { query: 'cormorant', k: 5, mode: 'sparse' })).result.hits[0].text).toContain('second version');
  expect((await call(page, 'index/delete', { ids: ['u', 'never-added'] })).result.deleted).toBe(1);
  expect((await call(page, 'index/delete', { ids: ['u'] })).result.deleted).toBe(0);
  expect((await call(page, 'retrieve', { query: 'cormorant', k: 5, mode: 'sparse' })).result.hits).toEqual([]);
});

test('hostile filters get precise errors and never take the engine down', async ({ page }) => {
  await openTab(page);
  await call(page, 'index/add', { documents: [{ id: 'f', text: 'filtered whale', meta: { year: 1851 } }] });
  const deep = JSON.parse('{"not":'.repeat(40) + '{"field":"year","op":"eq","value":1}' + '}'.repeat(40));
  const cases: [unknown, number, string?][] = [
    [deep, -32602],
    [{ and: [] }, -32602, 'filter.and'],
    [{ field: 'nope', op: 'eq', value: 1 }, -32602],
    [{ field: 'year', op: 'gt', value: 'soon' }, -32602],
    [{ field: 'year', op: 'regex', value: '.*' }, -32005], // §12: an operator outside the advertised set,
    [{ or: Array.from({ length: 5000 }, () => ({ field: 'year', op: 'eq', value: 1 })) }, -32602],
  ];
  for (const [filter, code, field] of cases) {
    const r = await call(page, 'retrieve', { query: 'whale', k: 3, filter });
    expect(r.error?.code, JSON.stringify(filter).slice(0, 80)).toBe(code);
    if (field) expect(r.error?.data?.field).toBe(field);
  }
  const ok = await call(page, 'retrieve', { query: 'whale', k: 3, mode: 'sparse', filter: { field: 'year', op: 'gte', value: 1800 } });
  expect(ok.result.hits[0].id).toBe('f');
});

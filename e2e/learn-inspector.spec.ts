/**
 * The inspector grown up: record the page's frames and download them as NDJSON, replay the
 * recording against this page's engine (same answers) and a recording made elsewhere
 * (differences shown, no exception); filters by id and errors; the sequence view; large frames folded.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { openInspector, openStaticPlayground, showArea } from './support/playground.ts';

async function tourStep(page: Page, n: number): Promise<void> {
  await page.locator(`#tour .tour-steps button[data-step]`).nth(n).click();
  await page.locator('#tour .tour-step button[type="submit"]').click();
  await expect(page.locator('#tour .tour-verdict')).toHaveText(/^✓ /, { timeout: 60_000 });
}

test('record, download, replay here (same answers) and a foreign recording (differences); inspector filters, sequence, folding', async ({ page, context }) => {
  test.setTimeout(240_000);
  const { outside, errors } = await openStaticPlayground(page, context);
  await showArea(page, 'learn');

  await page.locator('#recordings button', { hasText: 'Start recording' }).click();
  for (const n of [0, 2, 3, 4, 5]) await tourStep(page, n); // initialize, ping, an error, index/add, retrieve
  const download = page.waitForEvent('download');
  await page.locator('#recordings button', { hasText: 'Stop and download' }).click();
  const path = (await (await download).path())!;
  const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  expect(lines[0].format).toBe('rcp-recording/1');
  expect(lines[0].server.name).toBe('rcp-in-page');
  const tour = lines.slice(1).filter((l) => l.session === 'tour');
  expect(tour.filter((l) => l.dir === 'out').map((l) => JSON.parse(l.frame).method)).toEqual(['initialize', 'ping', 'summon/kraken', 'index/add', 'retrieve']);

  // Replay the tour's session on a fresh session of this engine: every answer as recorded.
  await page.locator('#rec-file').setInputFiles(path);
  await expect(page.locator('#recordings [role="status"]').nth(1)).toContainText(/frames recorded against rcp-in-page/);
  await page.locator('#rec-session').selectOption('tour');
  await page.locator('#recordings button[type="submit"]').click();
  await expect(page.locator('#recordings [role="status"]').last()).toContainText('Replayed 5 frames: 5 answered as recorded, 0 differently', { timeout: 60_000 });

  // A recording made against another engine: the replay shows where the answers differ.
  const foreign = [
    JSON.stringify({ format: 'rcp-recording/1', server: { name: 'other-engine', version: '9' } }),
    JSON.stringify({ t: 0, dir: 'out', session: 'page', frame: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }) }),
    JSON.stringify({ t: 1, dir: 'in', session: 'page', frame: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: 1, server: { name: 'other-engine', version: '9' }, capabilities: { retrieve: {} } } }) }),
    JSON.stringify({ t: 2, dir: 'out', session: 'page', frame: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'retrieve', params: { query: 'lighthouse', k: 1, mode: 'sparse' } }) }),
    JSON.stringify({ t: 3, dir: 'in', session: 'page', frame: JSON.stringify({ jsonrpc: '2.0', id: 2, result: { hits: [{ id: 'elsewhere', score: 9 }] } }) }),
    JSON.stringify({ t: 4, dir: 'out', session: 'page', frame: '{"jsonrpc":"2.0","id":3,"method":' }),
  ].join('\n');
  await page.locator('#rec-file').setInputFiles({ name: 'foreign.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(foreign) });
  await expect(page.locator('#recordings [role="status"]').nth(1)).toContainText('recorded against other-engine 9');
  await page.locator('#recordings button[type="submit"]').click();
  await expect(page.locator('#recordings [role="status"]').last()).toContainText('Replayed 3 frames', { timeout: 60_000 });
  const retrieve = page.locator('#recordings li[data-state="different"]', { hasText: 'retrieve #2' });
  await retrieve.locator('summary').click();
  await expect(retrieve.locator('table')).toContainText('result.hits[0].id');
  await expect(page.locator('#recordings li', { hasText: 'not JSON' })).toContainText('the recording holds no answer');

  // The inspector: errors only, one id, the sequence view, and a large frame folded.
  await openInspector(page);
  await page.locator('#insp-errors').check();
  await expect(page.locator('#frames li:visible').first()).toContainText('summon/kraken');
  for (const text of await page.locator('#frames li:visible').allTextContents()) expect(text).toMatch(/error/);
  await page.locator('#insp-errors').uncheck();
  await page.locator('#insp-id').fill('ping-1');
  await expect(page.locator('#frames li:visible')).toHaveCount(2); // the tour's ping and its answer
  await page.locator('#insp-id').fill('');
  await page.locator('#insp-view').selectOption('sequence');
  await expect(page.locator('#frames')).toHaveClass(/sequence/);
  await expect(page.locator('#frames')).toHaveAttribute('aria-label', /client on the left, by the server on the right/);

  await page.locator('#console-input').fill(JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'ping', params: { nonce: 'x'.repeat(20_000) } }));
  await page.locator('#console-form button[type="submit"]').click();
  const big = page.locator('#frames li.dir-in', { hasText: '#big' }).first();
  await big.locator('summary').click();
  await expect(big.locator('pre')).toContainText('folded:');
  await big.locator('button', { hasText: 'Show the whole frame' }).click();
  await expect(big.locator('pre')).not.toContainText('folded:');
  expect(outside).toEqual([]);
  expect(errors).toEqual([]);
});

import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { guardOrigin, search, showArea, skipSample, wasmModel } from './support/playground.ts';
import { call, logsOf, openTab, type Reply } from '../tools/lib/rcp-page.ts';

/**
 * A dense model whose files are corrupt (the ONNX graph and our runtime's weight file, served by
 * route interception): the worker reports the
 * failure (control-plane status in the page, `notifications/log` error), sparse search keeps
 * working, hybrid answers from its sparse half, and a session initialized after the failure is not
 * offered `embed` or dense retrieval (§13.2: the session from before keeps its set and gets -32010).
 */

const MODEL = 'minilm-l6-v2';
type LogParams = { level: string; message: string };

test.use({ serviceWorkers: 'block' }); // a service worker would bypass the routes

/** The model's q8 ONNX file replaced by bytes that are no ONNX at all; returns the requests that left the origin. */
const corruptModel = (context: BrowserContext): Promise<string[]> =>
  guardOrigin(context, { modelConfig: wasmModel(MODEL), replace: { [`/models/${MODEL}/onnx/model_quantized.onnx`]: 'this is not an ONNX protobuf at all', [`/models/${MODEL}/encoder/model_quantized.bin`]: 'nor a weight file of our runtime' } });

/** A second session on the page's worker, initialized now; resolves with its initialize answer. */
const lateSession = (page: Page): Promise<Reply> =>
  page.evaluate(async () => {
    const w = window as unknown as { rcpBridge: { open(): Promise<number>; send(s: number, f: string): void }; __rcpFrame: (s: number, f: string) => void };
    const sid = await w.rcpBridge.open();
    const previous = w.__rcpFrame;
    const answer = new Promise<Reply>((ok) => {
      w.__rcpFrame = (s, frame) => {
        if (s !== sid) return previous(s, frame);
        const m = JSON.parse(frame);
        if (m.id === 1) ok(m);
      };
    });
    w.rcpBridge.send(sid, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, client: { name: 'late', version: '1' } } }));
    return answer;
  });

test('RCP: the failure is logged, sparse and hybrid still answer, a later session is offered sparse only', async ({ page, context }) => {
  test.setTimeout(180_000);
  const external = await corruptModel(context);
  const init = await openTab(page, 'e2e-faults', { capabilities: { log: {} }, _meta: { logLevel: 'debug' } });
  expect(init.result.capabilities.embed?.identity).toMatch(new RegExp(`^${MODEL}@sha256:`)); // known before the load
  await call(page, 'index/add', { documents: [{ id: 'w', text: 'The white whale swam past the ship.' }, { id: 'r', text: 'A railroad bill passed the Senate.' }] });
  await expect.poll(async () => (await logsOf<LogParams>(page)).find((l) => l.level === 'error')?.message ?? '', { timeout: 120_000 }).toMatch(new RegExp(`model ${MODEL} failed to load`));

  const sparse = await call(page, 'retrieve', { query: 'whale', mode: 'sparse' });
  expect(sparse.result.hits.map((h: { id: string }) => h.id)).toEqual(['w']);
  const hybrid = await call(page, 'retrieve', { query: 'whale', mode: 'hybrid' });
  expect(hybrid.error, JSON.stringify(hybrid.error)).toBeUndefined();
  expect(hybrid.result.hits[0].id).toBe('w');
  expect(hybrid.result.usage.notes.join(' ')).toMatch(/dense half unavailable|no vectors from embedder/);
  const embed = await call(page, 'embed', { inputs: ['whale'] });
  expect(embed.error?.code).toBe(-32010);

  const late = await lateSession(page);
  expect(late.result.capabilities.embed).toBeUndefined();
  expect(late.result.capabilities.multiVector).toBeUndefined();
  expect(late.result.capabilities.retrieve).toMatchObject({ modes: ['sparse'], defaultMode: 'sparse' });
  expect(external).toEqual([]);
});

test('playground: the page status shows the failure and sparse search works', async ({ page, context }) => {
  test.setTimeout(180_000);
  const external = await corruptModel(context);
  await skipSample(page);
  await page.goto('/index.html');
  await expect(page.locator('#status')).toContainText('Connected', { timeout: 60_000 });
  await expect(page.locator('#model-picker [role=status]')).toContainText(`${MODEL} failed to load`, { timeout: 120_000 });
  await expect(page.locator('#model-picker [role=status]')).toContainText('sparse search still works');
  await showArea(page, 'import');
  await page.locator('#paste-text').fill('The white whale swam by the ship. Call me Ishmael.');
  await page.getByRole('button', { name: 'Add pasted text' }).click();
  await expect(page.locator('#progress-done')).toContainText(/Imported/, { timeout: 60_000 });
  await search(page, 'whale'); // in the default mode, whichever it is

  await expect(page.locator('#hits li').first()).toContainText(/whale/i);
  expect(external).toEqual([]);
});

// A static model embeds as documents are written: when it cannot load, the write is stored for sparse search (not refused).
test('a static model that cannot load: index/add stores the documents, sparse search finds them', async ({ page, context }) => {
  test.setTimeout(180_000);
  const external = await guardOrigin(context, { modelConfig: wasmModel('glove-static-100d'), replace: { '/models/glove-static-100d/onnx/model_quantized.onnx': 'this is not an ONNX protobuf at all' } });
  await openTab(page, 'e2e-faults-static', { capabilities: { log: {} }, _meta: { logLevel: 'debug' } });
  const add = await call(page, 'index/add', { documents: [{ id: 'w', text: 'The white whale swam past the ship.' }] });
  expect(add.error, JSON.stringify(add.error)).toBeUndefined();
  expect(add.result.ids).toEqual(['w']);
  const sparse = await call(page, 'retrieve', { query: 'whale', mode: 'sparse' });
  expect(sparse.result.hits.map((h: { id: string }) => h.id)).toEqual(['w']);
  expect(external).toEqual([]);
});

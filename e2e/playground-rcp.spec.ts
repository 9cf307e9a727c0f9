import { expect, test } from '@playwright/test';
import { openInspector, openPlayground, search, showArea, skipSample, waitForVectors } from './support/playground.ts';

test.describe('playground: learn RCP', () => {
  test('the inspector lists every frame a UI action causes, filters them and copies them as NDJSON', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await skipSample(page);
    await openPlayground(page);
    await expect(page.locator('#frames li').first()).toContainText('initialize');
    await showArea(page, 'import');
    await page.locator('#paste-text').fill('Ambergris is found in the intestines of sperm whales.');
    await page.getByRole('button', { name: 'Add pasted text' }).click();
    await expect(page.locator('#progress-done')).toContainText('Imported 1 document', { timeout: 60_000 }); // the first write waits for the model
    await waitForVectors(page);
    await search(page, 'ambergris');
    await openInspector(page);

    // The search shows up as a retrieve request and its response with a latency.
    const req = page.locator('#frames li.kind-request[data-method="retrieve"]').last();
    await expect(req).toContainText('→ request retrieve');
    const res = page.locator('#frames li.kind-response[data-method="retrieve"]').last();
    await expect(res).toContainText(/ms/);
    await res.locator('summary').click();
    await expect(res.locator('pre')).toContainText('"hits"');

    // Filters.
    await page.locator('#insp-method').fill('retrieve');
    for (const m of await page.locator('#frames li:not([hidden])').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-method')))) expect(m).toBe('retrieve');
    await page.locator('#insp-dir').selectOption('out');
    expect(await page.locator('#frames li.dir-in:not([hidden])').count()).toBe(0);
    await page.locator('#insp-dir').selectOption('all');
    await page.locator('#insp-method').fill('');
    await page.locator('#insp-text').fill('ambergris');
    expect(await page.locator('#frames li:not([hidden])').count()).toBeGreaterThan(1);
    await page.screenshot({ path: test.info().outputPath('inspector.png'), fullPage: true });

    // Copy all shown as NDJSON: one JSON frame per line (a frame may still arrive between the copy
    // and the count, e.g. a search refreshed by the background embedding's commit: then again).
    await expect(async () => {
      const before = await page.locator('#frames li:not([hidden])').count();
      await page.locator('#insp-copy-all').click();
      const lines = (await page.evaluate(() => navigator.clipboard.readText())).trim().split('\n');
      expect(lines.length).toBe(before);
      for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    }).toPass({ timeout: 15_000 });
    // Copy one frame.
    await page.locator('#frames li:not([hidden])').first().getByRole('button', { name: /Copy frame/ }).click();
    expect(JSON.parse(await page.evaluate(() => navigator.clipboard.readText())).jsonrpc).toBe('2.0');
  });

  test('the console has an example for every advertised method and shows errors for bad requests; capabilities are rendered', async ({ page }) => {
    await skipSample(page);
    await openPlayground(page);
    await showArea(page, 'learn');
    const labels = await page.locator('#console-example option').allTextContents();
    for (const m of ['initialize', 'info', 'ping', 'retrieve', 'index/add', 'index/delete', 'embed', 'rerank', 'x-inpage/documents', 'x-inpage/document']) expect(labels).toContain(m);

    const send = async (label: string | RegExp) => {
      const value = await page.locator('#console-example option', { hasText: label }).first().getAttribute('value');
      await page.locator('#console-example').selectOption(value ?? '');
      await page.locator('#console-form').getByRole('button', { name: 'Send', exact: true }).click();
    };
    // The default example (initialize) succeeds on the console's fresh session.
    await page.locator('#console-form').getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.locator('#console-output')).toContainText('"protocolVersion": 1');
    await send('ping');
    await expect(page.locator('#console-output')).toContainText('"nonce": "hello"');
    await send('bad request: invalid params');
    await expect(page.locator('#console-output')).toContainText('-32602');
    await expect(page.locator('#console-output')).toHaveClass(/has-error/);
    await send('bad request: not JSON');
    await expect(page.locator('#console-output')).toContainText('-32700');
    await send('bad request: unknown method');
    await expect(page.locator('#console-output')).toContainText(/-3260[14]|-32004/);
    await send('batch: two pings');
    await expect(page.locator('#console-output')).toContainText('"nonce": 2');
    // Hand-written request: the id comes back exactly as typed (the console has its own session).
    await page.locator('#console-input').fill('{"jsonrpc":"2.0","id":42,"method":"retrieve","params":{"query":"anything","k":0}}');
    await page.locator('#console-form').getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.locator('#console-output')).toContainText('"error"');
    await expect(page.locator('#console-output')).toContainText('"id": 42');
    // An empty batch is answered with -32600, and the console says so.
    await page.locator('#console-input').fill('[]');
    await page.locator('#console-form').getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.locator('#console-output')).toContainText('-32600');
    // History: request/response pairs with timings.
    await expect(page.locator('#console-history li').first()).toContainText(/batch of 0 .*ms/);
    // The console's frames are in the inspector too.
    await expect(page.locator('#frames li.kind-error').first()).toBeAttached();
    await page.screenshot({ path: test.info().outputPath('console.png'), fullPage: true });

    await expect(page.locator('#capabilities')).toContainText('retrieve');
    await expect(page.locator('#capabilities')).toContainText('x-inpage');
    await expect(page.locator('#capabilities')).toContainText('protocol version 1');
  });

  test('shutdown in the console ends only the console session and offers a new one; searches keep working', async ({ page }) => {
    await skipSample(page);
    await openPlayground(page);
    await showArea(page, 'import');
    await page.locator('#paste-text').fill('Sperm whales dive deep for squid.');
    await page.getByRole('button', { name: 'Add pasted text' }).click();
    await expect(page.locator('#progress-done')).toContainText('Imported 1 document', { timeout: 60_000 });
    await showArea(page, 'learn');
    await page.locator('#console-input').fill('{"jsonrpc":"2.0","id":7,"method":"shutdown"}');
    await page.locator('#console-form').getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.locator('#console-session')).toContainText('shut down');
    await search(page, 'squid');
    await expect(page.locator('#hits li')).toHaveCount(1);
    await showArea(page, 'learn');
    await page.getByRole('button', { name: 'Start a new session' }).click();
    await page.locator('#console-input').fill('{"jsonrpc":"2.0","id":8,"method":"ping","params":{}}');
    await page.locator('#console-form').getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.locator('#console-output')).toContainText('"id": 8');
    await expect(page.locator('#console-output')).not.toContainText('error');
  });
});

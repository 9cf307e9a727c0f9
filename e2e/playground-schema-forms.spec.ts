import { expect, test } from '@playwright/test';
import { guardOrigin, openPlayground, showArea, skipSample } from './support/playground.ts';
import { watchConsole } from './support/page-health.ts';

test.describe('playground: a form per method from the normative schema', () => {
  test('the default form succeeds; fields, requirements and choices come from the schema; each links to its spec section', async ({ page, context }) => {
    const outside = await guardOrigin(context);
    const errors = watchConsole(page);
    await skipSample(page);
    await openPlayground(page);
    await showArea(page, 'learn');
    const forms = page.locator('#schema-forms');
    await expect(forms).toBeVisible();
    await expect(page.locator('#schema-absent')).toBeHidden();

    // Every RCP/1 method is offered; retrieve is the default, with its required params marked.
    const methods = await page.locator('#schema-method option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    for (const m of ['initialize', 'info', 'ping', 'shutdown', 'retrieve', 'index/add', 'index/delete', 'embed', 'rerank', 'notifications/cancel']) expect(methods).toContain(m);
    await expect(page.locator('#schema-method')).toHaveValue('retrieve');
    await expect(page.locator('.schema-field[data-field="query"] label')).toContainText('required');
    await expect(page.locator('.schema-field[data-field="k"] label')).toContainText('required');
    await expect(page.locator('.schema-field[data-field="mode"] label')).toContainText('optional');
    const modes = await page.locator('#schema-field-mode option').allTextContents();
    expect(modes).toEqual(['(leave out)', '"dense"', '"sparse"', '"hybrid"']);
    await expect(page.locator('#schema-field-query')).toHaveValue('white whale');
    const link = page.locator('#schema-spec-link');
    await expect(link).toHaveText(/§7\.7 retrieve/);
    expect(await link.getAttribute('href')).toMatch(/spec\/rcp-1\.0\.md#77-retrieve/);

    // The default example succeeds, with the id kept as typed.
    await page.locator('#schema-id').fill('7');
    await page.getByRole('button', { name: 'Send from form' }).click();
    await expect(page.locator('#console-output')).toContainText('"hits"');
    await expect(page.locator('#console-output')).toContainText('"id": 7');
    await expect(page.locator('#console-output')).not.toHaveClass(/has-error/);
    const sent = JSON.parse(await page.locator('#console-input').inputValue()) as { params: Record<string, unknown> };
    expect(sent.params).toMatchObject({ query: 'white whale', k: 3, includeText: true });

    // A value the schema forbids goes out as typed, and the server's error is the lesson (the form does not guess).
    await page.locator('#schema-id').fill('8');
    await page.locator('#schema-field-k').fill('0');
    await page.getByRole('button', { name: 'Send from form' }).click();
    await expect(page.locator('#console-output')).toContainText('-32602');

    // Another method: ping's form, its section link, and a working answer.
    await page.locator('#schema-method').selectOption('ping');
    await expect(link).toHaveText(/§7\.15 ping/);
    await page.locator('#schema-field-nonce').fill('from the form');
    await page.getByRole('button', { name: 'Send from form' }).click();
    await expect(page.locator('#console-output')).toContainText('"nonce": "from the form"');
    // A method without params in the schema says so.
    await page.locator('#schema-method').selectOption('shutdown');
    await expect(page.locator('#schema-fields')).toContainText('params');
    await expect(page.locator('#console-history li')).toHaveCount(4); // init + retrieve ×2 + ping
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });
});

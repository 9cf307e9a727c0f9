import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { openStaticPlayground, search, showArea, waitForVectors } from './support/playground.ts';

const DOCS = Array.from({ length: 25 }, (_, i) => ({
  id: `log-${String(i).padStart(2, '0')}`,
  title: `Whaling log ${i}`,
  text: `Entry ${i}. ${'The harpoon struck the whale near the ice; the crew counted barrels of oil. '.repeat(4 + (i % 5))}`,
  meta: { year: 1840 + i, tags: ['log', i % 2 ? 'odd' : 'even'] },
}));

type Doc = { id: string; text: string; meta: Record<string, unknown>; chunks: { index: number; start: number; end: number }[] };

/** Every document as the engine holds it (text, meta, chunk ranges), through the page's own session. */
async function allDocuments(page: Page): Promise<Doc[]> {
  return page.evaluate(async () => {
    const c = (window as unknown as { rcpClient: { request(m: string, p: unknown): Promise<unknown> } }).rcpClient;
    const list = (await c.request('x-inpage/documents', { offset: 0, limit: 1000 })) as { documents: { id: string }[] };
    return Promise.all(list.documents.map((d) => c.request('x-inpage/document', { id: d.id }) as Promise<Doc>));
  });
}

const resultOf = async (page: Page) => ({ ids: await page.locator('#hits').getAttribute('data-ids'), request: await page.locator('#hits').getAttribute('data-request') });

test.describe('playground: your data is yours', () => {
  test('export the whole index with vectors, clear, import it back losslessly (vectors reused), and export results', async ({ page, context }) => {
    const { outside, errors } = await openStaticPlayground(page, context);
    await page.locator('#file-input').setInputFiles({ name: 'logs.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(DOCS)) });
    await expect(page.locator('#progress-done')).toContainText('Imported 25 documents', { timeout: 120_000 });
    await waitForVectors(page);
    await page.locator('#search-options summary').click();
    await page.locator('#mode').selectOption('hybrid');
    await search(page, 'harpoon oil barrels');
    const before = await resultOf(page);
    const docsBefore = await allDocuments(page);
    expect(docsBefore).toHaveLength(25);

    // Export: one NDJSON file, a header naming the model, then every document with its vectors.
    await showArea(page, 'documents');
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#export-index').click()]);
    await expect(page.locator('#progress-done')).toContainText('Exported 25 documents with vectors from');
    const lines = readFileSync((await download.path())!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const header = lines[0] as { format: string; documents: number; model: { identity: string; dimension: number } };
    expect(header).toMatchObject({ format: 'rcp-inpage-index', version: 1, documents: 25, encoding: 'f32-base64' });
    expect(header.model.dimension).toBeGreaterThan(0);
    const exported = lines.slice(1) as unknown as (Doc & { chunks: { vector?: string }[] })[];
    expect(exported.map((d) => d.id)).toEqual(DOCS.map((d) => d.id));
    for (const d of exported) for (const c of d.chunks) expect(Buffer.from(c.vector!, 'base64').length).toBe(header.model.dimension * 4);

    // Clear the index, then import the file back.
    await page.locator('#clear-index').click();
    await page.locator('#clear-confirm').click();
    await expect(page.locator('#progress-done')).toContainText('Cleared the index (25 documents deleted)');
    await page.locator('#index-file').setInputFiles((await download.path())!);
    await expect(page.locator('#progress-done')).toContainText('Imported 25 documents', { timeout: 120_000 });
    await waitForVectors(page);
    await expect(page.locator('#progress-done')).toContainText('every vector reused');

    // Lossless: the same documents (text, meta, chunk ranges) and the same search result.
    const sortById = (ds: Doc[]) => [...ds].sort((a, b) => a.id.localeCompare(b.id));
    expect(sortById(await allDocuments(page))).toEqual(sortById(docsBefore));
    await search(page, 'harpoon oil');
    await search(page, 'harpoon oil barrels');
    expect(await resultOf(page)).toEqual(before);

    // Importing again is an idempotent upsert: still 25 documents.
    await page.locator('#index-file').setInputFiles((await download.path())!);
    await expect(page.locator('#progress-done')).toContainText('Imported 25 documents', { timeout: 120_000 });
    await waitForVectors(page);
    expect(await allDocuments(page)).toHaveLength(25);

    // Export the current results as JSON and as NDJSON.
    const [json] = await Promise.all([page.waitForEvent('download'), page.locator('#export-results-json').click()]);
    const asJson = JSON.parse(readFileSync((await json.path())!, 'utf8')) as { request: { query: string }; hits: { id: string }[] };
    expect(asJson.request.query).toBe('harpoon oil barrels');
    expect(asJson.hits.map((h) => String(h.id)).join('\n')).toBe(before.ids);
    const [nd] = await Promise.all([page.waitForEvent('download'), page.locator('#export-results-ndjson').click()]);
    const ndHits = readFileSync((await nd.path())!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string });
    expect(ndHits.map((h) => String(h.id)).join('\n')).toBe(before.ids);
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });
});

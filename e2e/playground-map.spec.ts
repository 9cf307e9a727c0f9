import { expect, test } from '@playwright/test';
import { openStaticPlayground, search, waitForVectors } from './support/playground.ts';

const SEA = ['The whale breached beside the ship and the harpoon flew.', 'Sailors hauled the sperm whale alongside and cut the blubber.', 'A storm at sea drove the whaling ship toward the ice.'];
const STATE = ['Congress passed the budget and the tax law this year.', 'The President asked the Senate to ratify the treaty.', 'The union of states depends on the constitution and the courts.'];
const DOCS = [
  ...Array.from({ length: 12 }, (_, i) => ({ id: `sea-${i}`, title: `Sea ${i}`, text: `${SEA[i % 3]} ${SEA[(i + 1) % 3]}` })),
  ...Array.from({ length: 12 }, (_, i) => ({ id: `state-${i}`, title: `State ${i}`, text: `${STATE[i % 3]} ${STATE[(i + 1) % 3]}` })),
];

test.describe('playground: a map of the corpus', () => {
  test('projects the passages in the worker, colours them by document, and marks the query and its hits', async ({ page, context }) => {
    const { outside, errors } = await openStaticPlayground(page, context);
    await page.locator('#file-input').setInputFiles({ name: 'two-topics.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(DOCS)) });
    await expect(page.locator('#progress-done')).toContainText('Imported 24 documents', { timeout: 120_000 });
    await waitForVectors(page);

    // Opened before any search: the passages, no query yet.
    await page.locator('#map-panel summary').click();
    const canvas = page.locator('#map-canvas');
    await expect(canvas).toHaveAttribute('data-points', '24');
    await expect(canvas).toHaveAttribute('data-documents', '24');
    await expect(page.locator('#map-summary')).toContainText('24 passages from 24 documents');
    await expect(page.locator('#map-summary')).toContainText('Search to see where your query lands');
    expect(await canvas.getAttribute('data-query')).toBeNull();
    // Something was drawn, in more than one colour.
    const colours = await canvas.evaluate((c: HTMLCanvasElement) => {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set<string>();
      for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 200) seen.add(`${d[i] >> 4},${d[i + 1] >> 4},${d[i + 2] >> 4}`);
      return seen.size;
    });
    expect(colours).toBeGreaterThan(5);
    await expect(page.locator('#map-legend li').first()).toBeVisible();

    // A search: the map redraws with the query and its hits marked.
    await search(page, 'whale harpoon ship');
    await expect(canvas).toHaveAttribute('data-query', /^-?\d/);
    const hits = Number(await canvas.getAttribute('data-hits'));
    expect(hits).toBe((await page.locator('#hits').getAttribute('data-ids'))!.split('\n').length);
    await expect(page.locator('#map-summary')).toContainText('The cross is your query');
    await page.locator('#map-panel').screenshot({ path: test.info().outputPath('map.png') });

    // The projection is the engine's (x-inpage/map, in the worker), and the query lands among the sea passages.
    await expect(page.locator('#frames li[data-method="x-inpage/map"]').first()).toBeAttached();
    const m = await page.evaluate(async () => {
      const c = (window as unknown as { rcpClient: { request(m: string, p: unknown): Promise<unknown> } }).rcpClient;
      return (await c.request('x-inpage/map', { query: 'whale harpoon ship' })) as { points: { doc: string; x: number; y: number }[]; query: { x: number; y: number } };
    });
    const mean = (prefix: string) => {
      const ps = m.points.filter((p) => p.doc.startsWith(prefix));
      return ps.reduce((s, p) => s + Math.hypot(p.x - m.query.x, p.y - m.query.y), 0) / ps.length;
    };
    expect(mean('sea-')).toBeLessThan(mean('state-'));

    // Clicking a dot opens its document.
    const dot = await canvas.evaluate((c: HTMLCanvasElement) => {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      const scale = c.width / c.clientWidth;
      for (let i = 0; i < d.length; i += 4) {
        if (d[i + 3] > 200 && !(d[i] < 40 && d[i + 1] < 40 && d[i + 2] < 40) && !(d[i] > 240 && d[i + 1] > 240 && d[i + 2] > 240)) {
          const px = (i / 4) % c.width;
          const py = Math.floor(i / 4 / c.width);
          return { x: px / scale, y: py / scale + 2 };
        }
      }
      return undefined;
    });
    expect(dot).toBeDefined();
    await canvas.click({ position: dot! });
    await expect(page.locator('#doc-panel')).toBeVisible();
    await expect(page.locator('#doc-meta')).toContainText(/^(sea|state)-\d+/);
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });
});

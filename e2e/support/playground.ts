import { expect, type BrowserContext, type Page, type Request } from '@playwright/test';
import { makeZip } from '../../test/support/zip.ts';
import { watchConsole } from './page-health.ts';

export const ORIGIN = `http://localhost:${process.env.E2E_PORT ?? 4173}`;

/** What a guarded context serves in place of the built files. */
export interface GuardOptions {
  /** Served as /models/config.json: which model the worker runs in this context. */
  modelConfig?: Record<string, unknown>;
  /** Other paths (e.g. `/models/x/onnx/model_quantized.onnx`) answered with these bytes instead. */
  replace?: Record<string, string>;
}

/** The static model on WASM: synchronous embedding, for specs that are not about the encoder. */
export const STATIC_MODEL = { embedder: 'glove-static-100d', dtype: 'q8', device: 'wasm' } as const;

/** `model` on WASM at `dtype` (default q8), as /models/config.json says it. */
export const wasmModel = (model: string, dtype = 'q8'): Record<string, unknown> => ({ embedder: model, dtype, device: 'wasm' });

/**
 * Records every request the context makes (pages, workers, service worker): `urls` all of them,
 * `external` those that leave the app's origin, which are aborted so nothing could actually go
 * out. Serves `options.modelConfig` and `options.replace` in place of the built files.
 */
export async function watchOrigin(context: BrowserContext, options: GuardOptions = {}): Promise<{ external: string[]; urls: string[] }> {
  const external: string[] = [];
  const urls: string[] = [];
  const outside = (url: string) => !url.startsWith(`${ORIGIN}/`) && !url.startsWith('data:') && !url.startsWith('blob:');
  context.on('request', (r: Request) => {
    urls.push(r.url());
    if (outside(r.url())) external.push(r.url());
  });
  await context.route('**', (route) => {
    const url = route.request().url();
    if (!url.startsWith(`${ORIGIN}/`)) {
      if (outside(url) && !external.includes(url)) external.push(url);
      return route.abort('blockedbyclient');
    }
    const path = new URL(url).pathname;
    if (path === '/models/config.json' && options.modelConfig) return route.fulfill({ json: options.modelConfig });
    const body = options.replace?.[path];
    if (body !== undefined) return route.fulfill({ body, contentType: 'application/octet-stream' });
    return route.fallback();
  });
  return { external, urls };
}

/** watchOrigin's requests that left the origin (the test expects none). */
export async function guardOrigin(context: BrowserContext, options: GuardOptions = {}): Promise<string[]> {
  return (await watchOrigin(context, options)).external;
}

/** Opens the playground and waits for the session. */
export async function openPlayground(page: Page): Promise<void> {
  await page.goto('/index.html');
  await expect(page.locator('#status')).toContainText('Connected', { timeout: 60_000 });
}

/** The playground's areas (index.html `#areas-nav`): one is shown at a time. */
export type Area = 'search' | 'documents' | 'import' | 'models' | 'engines' | 'learn';

/** Shows one area through its navigation link, as a person would. */
export async function showArea(page: Page, area: Area): Promise<void> {
  await page.locator(`#areas-nav a[data-area="${area}"]`).click();
  await expect(page.locator(`#area-${area}`)).toBeVisible();
  // Learn RCP's tools arrive as a chunk of their own; the area is inert until they are mounted.
  if (area === 'learn') await expect(page.locator('#area-learn')).toHaveAttribute('data-ready', '1', { timeout: 30_000 });
}

/** Opens the inspector pane beside the current area (if it is not open already). */
export async function openInspector(page: Page): Promise<void> {
  if (!(await page.locator('#inspector-pane').isVisible())) await page.locator('#inspector-toggle').click();
  await expect(page.locator('#inspector-pane')).toBeVisible();
}

/** Waits until the sample corpus finished seeding. */
export async function waitForSeed(page: Page, timeout = 180_000): Promise<void> {
  await expect(page.locator('#progress-done')).toContainText(/Imported \d+ documents/, { timeout });
}

/** Types a query and waits for results. */
export async function search(page: Page, query: string): Promise<void> {
  await page.locator('#q').fill(query);
  await searched(page, query);
}

/** Waits until the results shown answer `query` (not an earlier, partial one). */
export async function searched(page: Page, query: string): Promise<void> {
  await expect(page.locator(`#hits[data-request*='"query":${JSON.stringify(query)}']`)).toBeAttached({ timeout: 60_000 });
}

/** Starts with an empty index: the page does not seed the sample corpus (as after "Clear index"). */
export async function skipSample(page: Page): Promise<void> {
  await page.addInitScript(() => localStorage.setItem('rcp-playground:sample-declined', '1'));
}

/**
 * Opens an empty playground pinned to the synchronous static model (for specs not about the
 * encoder: vectors exist as soon as a write is acknowledged), watching the origin and the console.
 */
export async function openStaticPlayground(page: Page, context: BrowserContext): Promise<{ outside: string[]; errors: string[] }> {
  const outside = await guardOrigin(context, { modelConfig: STATIC_MODEL });
  const errors = watchConsole(page);
  await skipSample(page);
  await openPlayground(page);
  return { outside, errors };
}

/** A minimal valid one-page PDF with a Helvetica text layer, written by hand (offsets computed). */
export function makePdf(lines: string[], title = 'A tiny PDF'): Buffer {
  const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const content = `BT /F1 12 Tf 72 720 Td 14 TL ${lines.map((l) => `(${esc(l)}) Tj T*`).join(' ')} ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    `<< /Title (${esc(title)}) >>`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A minimal .docx (a ZIP with word/document.xml and docProps/core.xml), deflated. */
export function makeDocx(paragraphs: string[], title = 'A tiny Word document'): Buffer {
  const esc = (s: string) => s.replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!);
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const files: [string, string][] = [
    ['[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'],
    ['word/document.xml', `<?xml version="1.0"?><w:document xmlns:w="${W}"><w:body>${paragraphs.map((p) => `<w:p><w:r><w:t>${esc(p)}</w:t></w:r></w:p>`).join('')}</w:body></w:document>`],
    ['docProps/core.xml', `<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${esc(title)}</dc:title></cp:coreProperties>`],
  ];
  return makeZip(files, { deflate: true });
}

/** Waits until the dense model has embedded every passage and each vector is stored (an encoder embeds in the background). */
export async function waitForVectors(page: Page, timeout = 180_000): Promise<void> {
  // Polled from here: `page.waitForFunction` does not await an async predicate (its promise counts
  // as truthy at once), so an async check there returned before any vector existed.
  await expect
    .poll(
      () =>
        page.evaluate(async () => {
          const c = (window as unknown as { rcpClient?: { status(): Promise<{ ready: boolean; pendingVectors?: number; unstoredVectors?: number }> } }).rcpClient;
          if (!c) return false;
          const s = await c.status();
          // Stored too: a segment's commit replaces its vectors embedded ahead (exact float cosines)
          // with int8 ones, so an answer's scores change once more when it lands.
          return s.ready && (s.pendingVectors ?? 0) === 0 && (s.unstoredVectors ?? 0) === 0;
        }),
      { timeout, intervals: [250] },
    )
    .toBe(true);
}

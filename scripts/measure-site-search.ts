/**
 * `node --import tsx scripts/measure-site-search.ts [DIR …] [--model NAME|none] [--queries N] [--repeat N] [--hover MS] [--no-pagefind] [--waterfall] [--intercept] [--json FILE] [--port N]`:
 * rcp-in-page and Pagefind side by side on the same static sites, the dev collections turned into
 * sites (one HTML page per document: its title as <title> and <h1>, its text as paragraphs).
 * Prints, per site and system: build time (wall and CPU), bundle size, and, in Chromium from a cold
 * cache, bytes fetched and time until the first result of the first query (the engine started at
 * that moment, as an element does on first use), then nDCG@10 over all the collection's queries
 * (page-level: rcp-in-page's `unit: "document"`, Pagefind's page results). Prints `uptime` first.
 * --waterfall also prints each cold run's requests, start → end in ms from the first use.
 * The site is served by a static HTTP server on localhost (--intercept: through Playwright's request
 * interception, as before 2026-12-03, which delays every file). Each rcp-in-page path is timed twice:
 * through the library (`import()` of the package, `createInPageEngine`, one `retrieve`) and through
 * the `<rcp-search>` element whose script loaded with the page (focus, type, first passage shown).
 * --hover MS: before the element is focused, the mouse moves onto it and rests MS ms (a hover's
 * lead before the click; InstantClick assumes ~250 ms), as a person's pointer does; the time is
 * still counted from focus, and the hover's lead is printed beside it.
 * --json FILE also writes the figures for a program (site-search-json.ts: one row per site, system,
 * path and way in), rewritten after each site. --port: the static server's (default 4399).
 *
 * rcp-in-page: `rcp-in-page index` (cli/build-index.ts), queried through the worker over the
 * bundle: with --model none, sparse; with a model, each path on its own cold start, sparse and
 * hybrid (with a static model, hybrid is served from the bundle's rows and clustered sign bits,
 * no model runtime: src/bundle/static-format.ts), bytes and time before that path's first result
 * and its nDCG@10.
 * Pagefind: the `pagefind` binary from @pagefind/linux-x64, queried with its own pagefind.js.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { routeApp, serveStatic } from '../bridges/static-server.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../bridges/browser-host.ts';
import { buildIndex } from '../cli/build-index.ts';
import { loadEmbedder } from '../src/models/index.ts';
import { median as medianOf } from '../bench/stats.ts';
import { writeSiteSearchJson, type SiteSearchRow } from './lib/site-search-json.ts';

const root = join(import.meta.dirname, '..');
const { values, positionals } = parseArgs({ allowPositionals: true, options: { model: { type: 'string' }, queries: { type: 'string' }, repeat: { type: 'string' }, 'no-pagefind': { type: 'boolean' }, waterfall: { type: 'boolean' }, intercept: { type: 'boolean' }, hover: { type: 'string' }, json: { type: 'string' }, port: { type: 'string' } } });
const dirs = positionals.length ? positionals : ['cacm', 'npl', 'time'].map((c) => join(root, '..', 'shared', 'eval', c));
const model = values.model ?? 'minilm-l6-v2';
const maxQueries = Number(values.queries ?? Infinity);
/** Cold first-result runs per system (the best time is reported: the machine is shared). */
const repeat = Number(values.repeat ?? 3);
/** The element's hover lead: the pointer rests on it this long before it is focused (0: no hover). */
const hoverMs = Number(values.hover ?? 0);
const PORT = Number(values.port ?? 4399);
const ORIGIN = `http://localhost:${PORT}`;
const PAGEFIND = join(dirname(createRequire(import.meta.url).resolve('@pagefind/linux-x64/package.json')), 'bin', 'pagefind_extended');

const readJsonl = (p: string): Record<string, string>[] => readFileSync(p, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const pageName = (id: string): string => `${encodeURIComponent(id).replace(/%/g, '_')}.html`;

function folderBytes(dir: string): { bytes: number; files: number } {
  let bytes = 0, files = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || e.parentPath.includes('.rcp-cache')) continue;
    bytes += statSync(join(e.parentPath, e.name)).size;
    files++;
  }
  return { bytes, files };
}

function ndcg10(ranked: string[], rel: Map<string, number>): number {
  let dcg = 0;
  ranked.slice(0, 10).forEach((d, i) => (dcg += (rel.get(d) ?? 0) / Math.log2(i + 2)));
  const ideal = [...rel.values()].filter((g) => g > 0).sort((a, b) => b - a).slice(0, 10);
  const idcg = ideal.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

/** CPU seconds of this process and its children so far. */
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** A request's mode ('default': none named, the engine's default). */
const modeField = (mode: string): string => (mode === 'default' || mode === '' ? '' : `, mode: '${mode}'`);

const SEARCH_PAGE = (system: 'rcp' | 'pagefind', mode: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>search</title></head><body>
<script type="module">
  window.searchFirst = async (q) => {
    const t0 = performance.now();
    ${system === 'rcp'
      ? `const { createInPageEngine } = await import('/rcp-in-page/index.js');
    window.engine = await createInPageEngine({ bundle: '/rcp-search/', models: ${model !== 'none'}, modelBase: '/models/', wasmPaths: '/rcp-in-page/ort/' });
    const r = await window.engine.request('retrieve', { query: q, k: 10, unit: 'document'${modeField(mode)} });
    window.notes = r.usage?.notes ?? [];
    return { ms: performance.now() - t0, first: r.hits[0]?.id };`
      : `window.pf = await import('/pagefind/pagefind.js');
    const s = await window.pf.search(q);
    const first = s.results[0] ? (await s.results[0].data()).url : undefined;
    return { ms: performance.now() - t0, first };`}
  };
  window.searchAll = async (qs) => {
    const out = [];
    for (const q of qs) {
      ${system === 'rcp'
        ? `const r = await window.engine.request('retrieve', { query: q, k: 10, unit: 'document'${modeField(mode)} });
      out.push(r.hits.map((h) => h.id));`
        : `const s = await window.pf.search(q);
      out.push(await Promise.all(s.results.slice(0, 10).map(async (r) => (await r.data()).url)));`}
    }
    return out;
  };
</script></body></html>`;

/**
 * The `<rcp-search>` element as a site ships it: its script loads with the page, the engine starts
 * on first use. Timed from focusing the box and typing the query (one input event) to the first
 * passage shown (its 80 ms typing debounce included).
 */
const ELEMENT_PAGE = (mode: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>search</title>
<script type="module" src="/rcp-in-page/search.js"></script></head><body>
<rcp-search bundle="/rcp-search/" mode="${mode}" models="/models/" wasm="/rcp-in-page/ort/"></rcp-search>
<script type="module">
  await customElements.whenDefined('rcp-search');
  window.searchFirst = (q) => new Promise((resolve) => {
    const root = document.querySelector('rcp-search').shadowRoot;
    const input = root.querySelector('input');
    const t0 = performance.now();
    input.focus();
    input.value = q;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const seen = () => {
      const first = root.querySelector('[role=option] a, [role=option]');
      if (first) return resolve({ ms: performance.now() - t0, first: first.getAttribute('href') ?? first.id });
      requestAnimationFrame(seen);
    };
    seen();
  });
</script></body></html>`;

console.log(execFileSync('uptime', { encoding: 'utf8' }).trim());
const rows: string[] = [];
const jsonRows: SiteSearchRow[] = [];
for (const dir of dirs) {
  const name = basename(dir);
  const corpus = readJsonl(join(dir, 'corpus.jsonl'));
  const queries = readJsonl(join(dir, 'queries.jsonl'));
  const qrels = new Map<string, Map<string, number>>();
  for (const line of readFileSync(join(dir, 'qrels', 'test.tsv'), 'utf8').split('\n').slice(1)) {
    const [q, d, s] = line.trim().split('\t');
    if (!q || !d) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, Number(s));
  }
  const judged = queries.filter((q) => [...(qrels.get(String(q._id))?.values() ?? [])].some((g) => g > 0)).slice(0, maxQueries);
  const site = mkdtempSync(join(tmpdir(), `rcp-vs-pagefind-${name}-`));
  const idOfPage = new Map<string, string>();
  for (const d of corpus) {
    const file = pageName(String(d._id));
    idOfPage.set(file, String(d._id));
    const title = d.title || `Document ${d._id}`;
    const body = (d.text ?? '').split(/\n\s*\n/).map((p) => `<p>${escape(p)}</p>`).join('\n');
    writeFileSync(join(site, file), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>\n${body}</main></body></html>\n`);
  }

  // rcp-in-page: build.
  const rcpOut = join(site, 'rcp-search');
  let t = performance.now(), c = cpu();
  const modelBase = join(root, 'public', 'models') + '/';
  const modelOption = model === 'none' ? undefined : { name: model, folder: join(modelBase, model), dtype: 'q8' as const, load: () => loadEmbedder({ modelBase, model, dtype: 'q8' }) };
  await buildIndex({ input: site, out: rcpOut, baseUrl: '', model: modelOption, log: () => undefined });
  const rcpBuild = { ms: performance.now() - t, cpu: cpu() - c };
  t = performance.now();
  c = cpu();
  const again = await buildIndex({ input: site, out: rcpOut, baseUrl: '', model: modelOption, log: () => undefined });
  const rcpRebuild = { ms: performance.now() - t, cpu: cpu() - c, upToDate: again.upToDate };
  const rcpSize = folderBytes(rcpOut);

  // Pagefind: build (a child process: its CPU time is the child's).
  t = performance.now();
  const withPagefind = !values['no-pagefind'];
  if (withPagefind) {
    const pf = spawnSync(PAGEFIND, ['--site', site, '--output-subdir', 'pagefind', '--glob', '*.html', '--quiet'], { encoding: 'utf8' });
    if (pf.status !== 0) throw new Error(`pagefind failed: ${pf.stderr}`);
  }
  const pfBuild = { ms: performance.now() - t };
  const pfSize = withPagefind ? folderBytes(join(site, 'pagefind')) : { bytes: 0, files: 0 };

  // The search pages and the package's files beside the sites.
  cpSyncLib(site);
  // One page per path: each is measured from its own cold start.
  const rcpPaths = model === 'none' ? ['sparse'] : ['sparse', 'hybrid'];
  for (const mode of rcpPaths) writeFileSync(join(site, `search-rcp-${mode}.html`), SEARCH_PAGE('rcp', mode));
  writeFileSync(join(site, 'search-pagefind.html'), SEARCH_PAGE('pagefind', ''));
  for (const mode of rcpPaths) writeFileSync(join(site, `search-element-${mode}.html`), ELEMENT_PAGE(mode));
  // A static host, as a site is served (--intercept: Playwright's request interception instead,
  // which routes every file through this process and adds its own delay to each).
  const server = values.intercept ? undefined : await serveStatic(site, PORT);

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const results: Record<string, { bytes: Transfer; ms: number; median: number; ndcg: number; notes: string[]; perQuery?: number }> = {};
  const systems = [...rcpPaths.flatMap((m) => [`rcp-${m}`, `element-${m}`]), ...(withPagefind ? ['pagefind'] : [])];
  for (const system of systems) {
    // Cold runs (a fresh context each: empty HTTP and Cache API caches); the best time of `repeat`,
    // the bytes of the first (the same every time). The last run's page then answers every query.
    const times: number[] = [];
    let firstBytes: Transfer | undefined;
    let context: BrowserContext | undefined;
    let page: Page | undefined;
    for (let run = 0; run < repeat; run++) {
      await context?.close();
      context = await browser.newContext();
      const fetched: { path: string; bytes: number; start: number; end: number }[] = [];
      let counting = false;
      context.on('requestfinished', async (r) => {
        if (!counting) return;
        const s = await r.sizes().catch(() => undefined);
        const t = r.timing();
        fetched.push({ path: decodeURIComponent(new URL(r.url()).pathname), bytes: s ? s.responseBodySize : 0, start: t.startTime, end: t.startTime + Math.max(0, t.responseEnd) });
      });
      if (!server) await routeApp(context, ORIGIN, site);
      page = await context.newPage();
      await page.goto(`${ORIGIN}/search-${system}.html`);
      await page.waitForFunction(() => 'searchFirst' in window);
      counting = true;
      if (hoverMs > 0 && system.startsWith('element-')) {
        // The pointer arrives on the box and rests there before the click (the element may warm up).
        await page.hover('rcp-search');
        await page.waitForTimeout(hoverMs);
      }
      const clicked = await page.evaluate(() => performance.timeOrigin + performance.now());
      const first = await page.evaluate((q) => (window as unknown as { searchFirst(q: string): Promise<{ ms: number; first?: string }> }).searchFirst(q), String(judged[0].text));
      // Pagefind answers only pages holding every query word: an empty first answer is its answer (timed all the same).
      if (first.first === undefined && system !== 'pagefind') throw new Error(`${system}: no first result`);
      if (first.first === undefined && run === 0) console.error(`${name} pagefind: the first query found no page (the time is that of its empty answer)`);
      await page.waitForTimeout(300); // let requestfinished sizes arrive
      counting = false;
      times.push(first.ms);
      // Which request waited for which: start and end of each, from the first use (--waterfall).
      if (values.waterfall) console.error(`${system} run ${run + 1}: first result ${first.ms.toFixed(0)} ms\n${fetched.sort((a, b) => a.start - b.start).map((f) => `  ${(f.start - clicked).toFixed(0).padStart(5)} → ${(f.end - clicked).toFixed(0).padStart(5)} ms  ${f.path}`).join('\n')}`);
      if (firstBytes) continue;
      console.error(`${name} ${system}, fetched before the first result: ${fetched.map((f) => `${f.path.replace(/^\/(rcp-search|pagefind|rcp-in-page)\//, '')} ${(f.bytes / 1024).toFixed(1)}K`).join(', ')}`);
      firstBytes = transferSplit(site, fetched);
    }
    if (!page || !context || !firstBytes) throw new Error('--repeat must be at least 1');
    const best = Math.min(...times);
    const median = medianOf(times);
    console.error(`${name} ${system}: first result ${times.map((t) => t.toFixed(0)).join(', ')} ms (best ${best.toFixed(0)}, median ${median.toFixed(0)})`);
    if (system.startsWith('element-')) {
      // The same engine and bundle as rcp-<mode>: its ranking is measured there.
      results[system] = { bytes: firstBytes, ms: best, median, ndcg: NaN, notes: [] };
      await context.close();
      continue;
    }
    const lists = await page.evaluate((qs) => (window as unknown as { searchAll(q: string[]): Promise<string[][]> }).searchAll(qs), judged.map((q) => String(q.text)));
    const ids = lists.map((l) => l.map((x) => idOfPage.get(x.replace(/^\//, '')) ?? x));
    const ndcg = ids.reduce((s, l, i) => s + ndcg10(l, qrels.get(String(judged[i]._id))!), 0) / ids.length;
    const notes = await page.evaluate(() => (window as unknown as { notes?: string[] }).notes ?? []);
    if (notes.length) console.error(`${name} ${system}, first answer's usage.notes: ${notes.join(' | ')}`);
    const perQuery = ids.reduce((n, l) => n + l.length, 0) / ids.length;
    results[system] = { bytes: firstBytes, ms: best, median, ndcg, notes, perQuery };
    console.error(`${name} ${system}: ${perQuery.toFixed(1)} results per query on average (of at most 10)`);
    await context.close();
  }
  await browser.close();
  const kb = (b: number): string => `${(b / 1024).toFixed(0)} KB`;
  const kb1 = (b: number): string => `${(b / 1024).toFixed(1)} KB`;
  const ms = (r: { ms: number; median: number }): string => `${r.ms.toFixed(0)} ms (median ${r.median.toFixed(0)})`;
  const bytesCell = (b: Transfer): string => `${kb1(b.index.raw + b.code.raw)} (index ${kb(b.index.raw)}, code ${kb(b.code.raw)}); compressed host ${kb1(b.index.gz + b.code.gz)} (index ${kb(b.index.gz)}, code ${kb(b.code.gz)})`;
  const built = `${(rcpBuild.ms / 1000).toFixed(1)} s (${rcpBuild.cpu.toFixed(1)} s CPU); unchanged rebuild ${(rcpRebuild.ms / 1000).toFixed(1)} s (${rcpRebuild.cpu.toFixed(1)} s CPU) | ${kb(rcpSize.bytes)} in ${rcpSize.files} files`;
  const before = rows.length;
  rcpPaths.forEach((m, i) => {
    const r = results[`rcp-${m}`];
    const el = results[`element-${m}`];
    const time = `${ms(r)}; the element, from focus${hoverMs > 0 ? ` after a ${hoverMs} ms hover` : ''}: ${ms(el)}`;
    rows.push(`| ${i === 0 ? `${name} (${corpus.length} pages, ${judged.length} queries)` : ''} | rcp-in-page (${m}${model === 'none' ? '' : `, ${model}`}) | ${i === 0 ? built : '〃 | 〃'} | ${bytesCell(r.bytes)} | ${time} | ${r.ndcg.toFixed(4)} |`);
  });
  if (withPagefind) rows.push(`| | Pagefind 1.6.0 | ${(pfBuild.ms / 1000).toFixed(1)} s | ${kb(pfSize.bytes)} in ${pfSize.files} files | ${bytesCell(results.pagefind.bytes)} | ${ms(results.pagefind)} | ${results.pagefind.ndcg.toFixed(4)} |`);
  console.log(rows.slice(before).join('\n'));
  if (values.json) {
    const row = (system: SiteSearchRow['system'], path: SiteSearchRow['path'], via: SiteSearchRow['via'], r: (typeof results)[string], build: number, bundle: number, ranked?: (typeof results)[string]): SiteSearchRow => ({
      site: name,
      system,
      path,
      via,
      firstResultMs: { best: r.ms, median: r.median },
      bytesBeforeFirst: { served: r.bytes.index.raw + r.bytes.code.raw, gzip: r.bytes.index.gz + r.bytes.code.gz, js: r.bytes.code.raw },
      // The element shows passages, not a page ranking: its ranking is the library row's (same engine and bundle), not repeated here.
      ndcg10: ranked ? ranked.ndcg : null,
      resultsPerQuery: ranked?.perQuery ?? null,
      buildS: build / 1000,
      bundleBytes: bundle,
    });
    for (const m of rcpPaths) {
      const path = m as SiteSearchRow['path'];
      jsonRows.push(row('rcp-in-page', path, 'library', results[`rcp-${m}`], rcpBuild.ms, rcpSize.bytes, results[`rcp-${m}`]));
      jsonRows.push(row('rcp-in-page', path, 'element', results[`element-${m}`], rcpBuild.ms, rcpSize.bytes));
    }
    if (withPagefind) jsonRows.push(row('pagefind', 'sparse', 'library', results.pagefind, pfBuild.ms, pfSize.bytes, results.pagefind));
    writeSiteSearchJson(values.json, jsonRows);
  }
  server?.close();
  rmSync(site, { recursive: true, force: true });
}
console.log(`\n| site | system | build | bundle | bytes before the first result (cold: as served; on a host that gzips) | time to first result (cold, best of ${repeat}; ${values.intercept ? 'request interception' : 'a static HTTP server on localhost'}) | nDCG@10 |\n|---|---|---|---|---|---|---|`);
console.log(rows.join('\n'));
console.log(execFileSync('uptime', { encoding: 'utf8' }).trim());

interface Transfer {
  /** What the index files took (rcp-in-page's bundle, Pagefind's index and fragments). */
  index: { raw: number; gz: number };
  /** Code: JavaScript and WebAssembly (the engine, its worker, Pagefind's pagefind.js and wasm). */
  code: { raw: number; gz: number };
}

/**
 * Splits what was fetched into index and code, as served here (no HTTP compression) and as a host
 * that gzips its responses would send them (each file's gzip size when smaller: bundle files and
 * Pagefind's are compressed by their writers already and do not shrink).
 */
function transferSplit(site: string, fetched: readonly { path: string; bytes: number }[]): Transfer {
  const out: Transfer = { index: { raw: 0, gz: 0 }, code: { raw: 0, gz: 0 } };
  for (const f of fetched) {
    const isCode = /\.(m?js|wasm)$|\/wasm\.[a-z-]+\.pagefind$/.test(f.path);
    // The file's own size: Chromium reports no body size for a worker's script.
    let raw = Math.max(0, f.bytes);
    let gz = raw;
    try {
      const body = readFileSync(join(site, f.path));
      raw = body.length;
      gz = Math.min(raw, gzipSync(body, { level: 9 }).length);
    } catch {
      // not a file of the site (a 404): counted as reported
    }
    const to = isCode ? out.code : out.index;
    to.raw += raw;
    to.gz += gz;
  }
  return out;
}

/** The package's lib/ (built by `npm run build:lib`) and the models folder, as the search page serves them. */
function cpSyncLib(site: string): void {
  execFileSync('cp', ['-r', join(root, 'lib'), join(site, 'rcp-in-page')]);
  mkdirSync(join(site, 'models'), { recursive: true });
  if (model !== 'none') {
    writeFileSync(join(site, 'models', 'config.json'), JSON.stringify({ embedder: model, dtype: 'q8', device: 'wasm' }));
    execFileSync('cp', ['-r', join(root, 'public', 'models', model), join(site, 'models', model)]);
  }
}

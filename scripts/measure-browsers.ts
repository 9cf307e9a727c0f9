/**
 * Figures per browser (issue 44, deliverable 4), the same steps in Chromium, Firefox ESR and
 * WebKitGTK in one run, against the built app (dist/) behind the cross-browser suite's server:
 *   1. a first open of the playground with its sample, as a visitor gets it (MiniLM, shipped sample
 *      vectors): first results for a typed query, the sample fully searchable (every document
 *      indexed), then hybrid-searchable (every vector stored);
 *   2. the encoder (MiniLM q8 on WASM, the runtime the browser picks): passages/s over 64
 *      ≈1,000-character passages embedded as documents, batches of 32, and the p50 of embedding one
 *      query, each timed in the page over the bridge page's RCP session (the postMessage hop included);
 *   3. 10,000 chunks (the first 10,000 NPL abstracts, one chunk each, the static GloVe model for
 *      vectors so the ingest is not the encoder's figure again): sparse and hybrid `retrieve` p50
 *      over NPL's queries (40 each, not the same ones), and the resident memory the browser's
 *      processes gained per chunk.
 * Usage: npm run build && node --import tsx scripts/measure-browsers.ts [--browsers chromium,firefox,webkit] [--chunks 10000] [--port 4231]
 * Prints one line per figure as it is measured, then a Markdown table (docs/browsers.md keeps one).
 * The load average is printed too: on a shared machine only figures of one run compare.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { call, openBridge, resetOrigin, search, waitForSeed, waitForVectors, waitText } from '../e2e/browsers/app.ts';
import { startApp } from '../e2e/browsers/server.ts';
import { STATIC_MODEL } from '../e2e/support/playground.ts';
import { cliArgs } from '../tools/lib/args.ts';
import { ANY_BROWSERS, browserRss, launchAny, type AnyBrowserName } from './browsers/any-browser.ts';
import type { Tab } from '../e2e/browsers/driver.ts';

const root = join(import.meta.dirname, '..');
const { values: opts } = cliArgs({
  usage: 'node --import tsx scripts/measure-browsers.ts [--browsers chromium,firefox,webkit] [--chunks 10000] [--port 4231]',
  options: {
    browsers: { type: 'string', default: ANY_BROWSERS.join(',') },
    chunks: { type: 'string', default: '10000' },
    port: { type: 'string', default: '4231' },
  },
});
const browsers = opts.browsers.split(',') as AnyBrowserName[];
for (const b of browsers) if (!ANY_BROWSERS.includes(b)) throw new Error(`--browsers: ${b} is not one of ${ANY_BROWSERS.join(', ')}`);
const CHUNKS = Number(opts.chunks);

const jsonl = <T>(path: string): T[] => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);
const NPL = join(root, '..', 'shared', 'eval', 'npl');
const corpus = jsonl<{ _id: string; text: string }>(join(NPL, 'corpus.jsonl')).slice(0, CHUNKS);
const queries = jsonl<{ text: string }>(join(NPL, 'queries.jsonl')).slice(0, 80).map((q) => q.text.toLowerCase());
if (corpus.length < CHUNKS) throw new Error(`NPL has ${corpus.length} documents, fewer than --chunks ${CHUNKS}`);
const SAMPLE_DOCUMENTS = (JSON.parse(readFileSync(join(root, 'dist', 'sample', 'corpus.json'), 'utf8')) as { documents: unknown[] }).documents.length;

// ≈1,000-character passages (the engine's chunk size), from NPL abstracts run together.
const passages: string[] = [];
for (let i = 0, text = ''; passages.length < 64; i++) {
  text += `${corpus[i].text} `;
  if (text.length >= 1000) (passages.push(text.slice(0, 1000)), (text = ''));
}

interface Figures {
  version: string;
  firstResultsMs: number;
  seededMs: number;
  hybridMs: number;
  passagesPerS: number;
  runtime: string;
  queryEmbedP50: number;
  sparseP50: number;
  hybridP50: number;
  bytesPerChunk: number;
  load: string;
}

const load = () => loadavg()[0].toFixed(1);
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Times `method` once per params in the page (performance.now around each round trip); the durations in ms. */
const timed = (tab: Tab, method: string, list: unknown[]): Promise<number[]> =>
  tab.evaluate(
    async (m: string, ps: unknown[]) => {
      const rcp = (window as unknown as { rcp(m: string, p: unknown): Promise<{ error?: unknown }> }).rcp;
      const out: number[] = [];
      for (const p of ps) {
        const t = performance.now();
        const r = await rcp(m, p);
        if (r.error) throw new Error(JSON.stringify(r.error));
        out.push(performance.now() - t);
      }
      return out;
    },
    method,
    list,
  );

async function measure(name: AnyBrowserName, app: Awaited<ReturnType<typeof startApp>>): Promise<Figures> {
  const b = await launchAny(name);
  const say = (line: string) => console.log(`${name}: ${line} · load ${load()}`);
  try {
    const { tab } = b;
    // 1. First open, as a visitor gets it.
    app.resetOverrides();
    await resetOrigin(tab, app.origin);
    const t0 = Date.now();
    await tab.goto(`${app.origin}/index.html`);
    await waitText(tab, '#status', 'Connected', { timeout: 120_000 });
    await search(tab, 'white whale', 120_000);
    await waitText(tab, '#hits li', /whale/i, { timeout: 120_000 });
    const firstResultsMs = Date.now() - t0;
    say(`first results ${firstResultsMs} ms after opening`);
    await waitForSeed(tab, 600_000);
    await waitText(tab, '#index-stats', `${SAMPLE_DOCUMENTS.toLocaleString('en')} documents`, { timeout: 120_000 });
    const seededMs = Date.now() - t0;
    say(`sample fully searchable ${seededMs} ms after opening`);
    await waitForVectors(tab, 600_000);
    const hybridMs = Date.now() - t0;
    say(`sample hybrid-searchable ${hybridMs} ms after opening`);

    // 2. The encoder, on the runtime this browser picks.
    app.override('/models/config.json', JSON.stringify({ embedder: 'minilm-l6-v2', dtype: 'q8', device: 'wasm', runtime: 'auto' }), 'application/json');
    await resetOrigin(tab, app.origin);
    await openBridge(tab, app.origin, `figures-${name}`, {}, '?deadline.embed=300000');
    await timed(tab, 'embed', [{ inputs: ['warm up'], encoding: 'json' }, { inputs: passages.slice(0, 32), kind: 'document', encoding: 'json' }]);
    const runtime = String((await call(tab, 'info', {})).result._meta?.models?.embed?.runtime);
    const batches = [passages.slice(0, 32), passages.slice(32, 64)].map((inputs) => ({ inputs, kind: 'document', encoding: 'json' }));
    const passagesPerS = (passages.length * 1000) / (await timed(tab, 'embed', batches)).reduce((a, c) => a + c, 0);
    say(`encoder ${passagesPerS.toFixed(1)} passages/s on ${runtime}`);
    const queryEmbedP50 = p50(await timed(tab, 'embed', queries.slice(0, 21).map((q) => ({ inputs: [q], kind: 'query', encoding: 'json' }))));
    say(`query embed p50 ${queryEmbedP50.toFixed(1)} ms`);

    // 3. 10,000 chunks.
    app.override('/models/config.json', JSON.stringify(STATIC_MODEL), 'application/json');
    await resetOrigin(tab, app.origin);
    await openBridge(tab, app.origin, `figures-${name}-10k`);
    await timed(tab, 'retrieve', [{ query: 'warm up', k: 10, mode: 'hybrid' }]);
    await new Promise((r) => setTimeout(r, 2000));
    const before = browserRss();
    for (let i = 0; i < corpus.length; i += 500) {
      const documents = corpus.slice(i, i + 500).map((d) => ({ id: d._id, text: d.text }));
      const r = await call(tab, 'index/add', { documents });
      if (r.error) throw new Error(`index/add: ${JSON.stringify(r.error)}`);
    }
    // Each mode its own 40 queries: the engine caches hit texts read from IndexedDB, so a query run
    // twice would be faster the second time whatever its mode.
    const sparse = await timed(tab, 'retrieve', queries.slice(0, 40).map((query) => ({ query, k: 10, mode: 'sparse' })));
    const hybrid = await timed(tab, 'retrieve', queries.slice(40, 80).map((query) => ({ query, k: 10, mode: 'hybrid' })));
    await new Promise((r) => setTimeout(r, 2000));
    const bytesPerChunk = (browserRss() - before) / corpus.length;
    // The first of each is a warm-up (a segment read in, a kernel compiled): left out of the p50.
    const figures: Figures = { version: b.version, firstResultsMs, seededMs, hybridMs, passagesPerS, runtime, queryEmbedP50, sparseP50: p50(sparse.slice(1)), hybridP50: p50(hybrid.slice(1)), bytesPerChunk, load: load() };
    say(`${corpus.length} chunks: sparse p50 ${figures.sparseP50.toFixed(1)} ms, hybrid p50 ${figures.hybridP50.toFixed(1)} ms, ${Math.round(bytesPerChunk)} resident bytes per chunk`);
    return figures;
  } finally {
    await b.close();
  }
}

const app = await startApp(Number(opts.port));
const results = new Map<AnyBrowserName, Figures>();
try {
  for (const name of browsers) results.set(name, await measure(name, app));
} finally {
  await app.close();
}

const rows: [string, (f: Figures) => string][] = [
  ['first results after opening (ms)', (f) => f.firstResultsMs.toLocaleString('en')],
  ['sample fully searchable (ms)', (f) => f.seededMs.toLocaleString('en')],
  ['sample hybrid-searchable (ms)', (f) => f.hybridMs.toLocaleString('en')],
  ['encoder passages/s (MiniLM q8)', (f) => f.passagesPerS.toFixed(1)],
  ['query embed p50 (ms)', (f) => f.queryEmbedP50.toFixed(1)],
  [`sparse p50 at ${CHUNKS.toLocaleString('en')} chunks (ms)`, (f) => f.sparseP50.toFixed(1)],
  [`hybrid p50 at ${CHUNKS.toLocaleString('en')} chunks (ms, GloVe vectors)`, (f) => f.hybridP50.toFixed(1)],
  ['resident bytes per chunk', (f) => Math.round(f.bytesPerChunk).toLocaleString('en')],
  ['encoder runtime', (f) => f.runtime],
  ['load average at the end', (f) => f.load],
];
const names = [...results.keys()];
console.log(`\n| figure | ${names.map((n) => results.get(n)!.version).join(' | ')} |\n|---|${names.map(() => '---').join('|')}|`);
for (const [label, cell] of rows) console.log(`| ${label} | ${names.map((n) => cell(results.get(n)!)).join(' | ')} |`);

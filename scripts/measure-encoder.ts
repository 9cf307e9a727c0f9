/**
 * Encoder speed, side by side on one machine (figures, not a test): for each dtype (fp32, q8) of
 * all-MiniLM-L6-v2,
 *   - ingest: passages/s embedding ≈1,000-character passages (the engine's chunk size), as
 *     `embed` kind `document` batches in the app's worker on WASM in Debian's Chromium, and as
 *     `loadEmbedder` on onnxruntime-node (the native ceiling) with the same ONNX file;
 *   - query: p50 (and p90) of embedding one 10-word query, in the worker (an RCP round trip from
 *     the page, so it includes the postMessage hop) and in onnxruntime-node.
 * The built app (dist/) is served by a small HTTP server on localhost (--port, default 4189) with
 * COOP/COEP headers, not by request interception: onnxruntime-web's threaded WASM starts nested
 * workers whose requests interception does not see (the model then never becomes ready).
 * /models/config.json is answered per dtype with `device: wasm`; every request outside the origin
 * is aborted. The 1-minute load average is printed before and after: on a
 * shared machine the figures are only comparable within one run.
 *
 * Usage: npm run build && node --import tsx scripts/measure-encoder.ts [--passages 96] [--queries 30] [--dtype q8|fp32] [--model minilm-l6-v2] [--port 4189]
 */
import { readFileSync } from 'node:fs';
import { loadavg, cpus, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../bridges/browser-host.ts';
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { resolveStatic } from '../bridges/static-server.ts';
import { loadEmbedder } from '../src/models/index.ts';
import { openTab } from '../e2e/support/rcp-page.ts';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string): string => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : dflt);
const PASSAGES = Number(opt('passages', '96'));
const QUERIES = Number(opt('queries', '30'));
const MODEL = opt('model', 'minilm-l6-v2');
const DTYPES = (argv.includes('--dtype') ? [opt('dtype', 'q8')] : ['fp32', 'q8']) as ('fp32' | 'q8')[];
const ROOT = join(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
const PORT = Number(opt('port', '4189'));
const ORIGIN = `http://localhost:${PORT}`;
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm', '.css': 'text/css' };

/** dist/ over HTTP with cross-origin isolation (threads), and this run's /models/config.json. */
function serve(config: () => unknown): Promise<Server> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', ORIGIN).pathname;
    const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp', 'Cache-Control': 'no-cache' };
    if (path === '/models/config.json') return res.writeHead(200, { ...headers, 'Content-Type': 'application/json' }).end(JSON.stringify(config()));
    const file = await resolveStatic(DIST, path);
    if (!file) return res.writeHead(404, headers).end('not found');
    res.writeHead(200, { ...headers, 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(await readFile(file));
  });
  return new Promise((ok) => server.listen(PORT, 'localhost', () => ok(server)));
}
const QUERY = 'what did the president say about railroads and the economy'; // 10 words

/** ≈1,000-character passages of the sample corpus (the engine's default chunk size). */
function passages(n: number): string[] {
  const corpus = JSON.parse(readFileSync(join(ROOT, 'public', 'sample', 'corpus.json'), 'utf8')) as { documents: { text: string }[] };
  const out: string[] = [];
  for (const d of corpus.documents) for (let i = 0; i + 1000 <= d.text.length && out.length < n; i += 850) out.push(d.text.slice(i, i + 1000));
  return out;
}

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** `loadMs`: the worker's cold load of the model (fetch, session creation, warm-up inference), from its ready log. */
interface Figures { ingest: number; p50: number; p90: number; threads?: number; loadMs?: number }

async function measureNode(dtype: 'fp32' | 'q8', texts: string[]): Promise<Figures> {
  const e = await loadEmbedder({ modelBase: `${join(DIST, 'models')}/`, model: MODEL, dtype });
  await e.embed(texts.slice(0, 4), 'document'); // warm
  const t0 = performance.now();
  for (let i = 0; i < texts.length; i += 32) await e.embed(texts.slice(i, i + 32), 'document');
  const ingest = texts.length / ((performance.now() - t0) / 1000);
  const q: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const t = performance.now();
    await e.embed([QUERY], 'query');
    q.push(performance.now() - t);
  }
  await e.dispose();
  return { ingest, p50: pct(q, 0.5), p90: pct(q, 0.9) };
}

/** Opens the bridge page with one initialized RCP session, logs on; `window.rcp(method, params)` calls it. */
async function openSession(page: Page): Promise<void> {
  const init = await openTab(page, 'measure-encoder', { capabilities: { log: {} }, _meta: { logLevel: 'debug' } });
  if (init.error) throw new Error(`initialize: ${JSON.stringify(init.error)}`);
}

async function measureWasm(dtype: 'fp32' | 'q8', texts: string[]): Promise<Figures> {
  const profile = mkdtempSync(join(tmpdir(), 'rcp-measure-encoder-'));
  const server = await serve(() => ({ embedder: MODEL, dtype, device: 'wasm' }));
  const context = await chromium.launchPersistentContext(profile, { baseURL: ORIGIN, executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, serviceWorkers: 'block' });
  try {
    await context.route((url) => url.origin !== ORIGIN && !/^(data|blob):/.test(url.protocol), (route) => route.abort('blockedbyclient'));
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
    page.on('crash', () => console.error('[page crashed]'));
    page.on('console', (m) => m.type() === 'error' && console.error(`[page console] ${m.text()}`));
    await openSession(page);
    const ready = await page
      .waitForFunction(
        (m) => (window as unknown as { __logs: { message: string; data?: Record<string, unknown> }[] }).__logs.find((l) => l.message.startsWith(`model ${m} ready on`)),
        MODEL,
        { timeout: Number(opt('ready-timeout', '300')) * 1000 },
      )
      .catch(async (e: Error) => {
        const logs = await page.evaluate(() => (window as unknown as { __logs: { message: string }[] }).__logs.map((l) => l.message)).catch(() => []);
        throw new Error(`${e.message}; worker log so far: ${JSON.stringify(logs)}`);
      });
    const info = (await ready.jsonValue()) as { data?: { device?: string; threads?: number; loadMs?: number } };
    if (info.data?.device !== 'wasm') throw new Error(`expected the model on wasm, got ${JSON.stringify(info.data)}`);
    // A string, not a function: tsx's name helpers (__name) do not exist in the page.
    const figures = (await page.evaluate(`(async (texts, query, queries) => {
      const embed = async (inputs, kind) => {
        const r = await window.rcp('embed', { inputs, kind, encoding: 'f32-base64' });
        if (r.error) throw new Error(JSON.stringify(r.error));
      };
      await embed(texts.slice(0, 4), 'document'); // warm
      const t0 = performance.now();
      for (let i = 0; i < texts.length; i += 32) await embed(texts.slice(i, i + 32), 'document');
      const ingest = texts.length / ((performance.now() - t0) / 1000);
      const q = [];
      for (let i = 0; i < queries; i++) {
        const t = performance.now();
        await embed([query], 'query');
        q.push(performance.now() - t);
      }
      q.sort((a, b) => a - b);
      return { ingest, p50: q[Math.floor(q.length / 2)], p90: q[Math.min(q.length - 1, Math.floor(q.length * 0.9))] };
    })(${JSON.stringify(texts)}, ${JSON.stringify(QUERY)}, ${QUERIES})`)) as Figures;
    return { ...figures, threads: info.data?.threads, loadMs: info.data?.loadMs };
  } finally {
    await context.close().catch(() => {});
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const texts = passages(PASSAGES);
  const load = () => loadavg()[0].toFixed(2);
  console.log(`# ${MODEL}: ${texts.length} passages of 1000 chars, ${QUERIES} queries of 10 words; ${cpus().length} cores; load average ${load()} at start`);
  const rows: string[] = [];
  for (const dtype of DTYPES) {
    const node = await measureNode(dtype, texts);
    console.log(`# ${dtype} onnxruntime-node: ${node.ingest.toFixed(1)} passages/s, query p50 ${node.p50.toFixed(1)} ms; load average ${load()}`);
    const wasm = await measureWasm(dtype, texts);
    rows.push(
      `| ${dtype} | ${wasm.loadMs ?? '?'} | ${wasm.ingest.toFixed(1)} (${wasm.threads ?? '?'} threads) | ${node.ingest.toFixed(1)} | ${((wasm.ingest / node.ingest) * 100).toFixed(0)}% | ${wasm.p50.toFixed(1)} / ${wasm.p90.toFixed(1)} | ${node.p50.toFixed(1)} / ${node.p90.toFixed(1)} |`,
    );
    console.log(rows.at(-1));
  }
  console.log(`\n# load average ${load()} at end`);
  console.log('| dtype | cold load in the worker (ms) | ingest WASM (passages/s) | ingest onnxruntime-node | WASM/node | query p50/p90 WASM (ms, RCP round trip) | query p50/p90 node (ms) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

await main();

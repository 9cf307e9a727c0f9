/**
 * Encoder speed, side by side on one machine (figures, not a test), for all-MiniLM-L6-v2:
 *   - ingest: passages/s embedding ≈1,000-character passages (the engine's chunk size), as
 *     `embed` kind `document` batches of 32 in the app's worker in Debian's Chromium — on our own
 *     WASM kernels (runtime `kernels`, encoder workers) and on transformers.js (onnxruntime-web
 *     WASM threads), each with and without cross-origin isolation — and as `loadEmbedder` on
 *     onnxruntime-node (the native ceiling) with the same ONNX file;
 *   - passages per CPU-second: the same ingest divided by the CPU time of the whole Chromium
 *     process tree (/proc), which a loaded machine moves far less than wall time;
 *   - query: p50 (and p90) of embedding one 10-word query, in the worker (an RCP round trip from
 *     the page, so it includes the postMessage hop) and in onnxruntime-node; and its p50 while the
 *     worker embeds documents (a query every 50 ms during a second pass over the passages);
 *   - parity: the minimum cosine, over the 20 reference texts, to upstream sentence-transformers
 *     (test/models/fixtures/reference-embeddings.json; MiniLM only).
 * The built app (dist/) is served by a small HTTP server on localhost (--port, default 4189), with
 * COOP/COEP headers for the isolated cases, not by request interception: onnxruntime-web's threaded
 * WASM starts nested workers whose requests interception does not see. /models/config.json is
 * answered per case (the case's device, dtype and runtime); every request outside the origin
 * is aborted. The 1-minute load average is printed with every row: on a shared machine the figures
 * are only comparable within one run.
 *
 * WebGPU (`--device webgpu`, or `webgpu,wasm` to measure it against WASM in the same run) runs
 * transformers.js on the GPU, fp32 and q8 (`npm run models` writes no fp16 graph), forced (no fallback
 * to WASM), and names the adapter it got: on a machine without a GPU that is a software fallback
 * (SwiftShader: minutes per call, so the embed deadline is raised). The prepared GPU run, one short
 * command on a machine with a GPU (Chromium may need `--chromium-arg` flags for it, e.g.
 * `--chromium-arg=--use-angle=vulkan --chromium-arg=--enable-features=Vulkan` on Linux):
 *
 *   npm run measure:webgpu   (= npm run build && node --import tsx scripts/measure-encoder.ts --device webgpu,wasm --isolated yes --passages 64 --queries 20)
 *
 * Usage: npm run build && node --import tsx scripts/measure-encoder.ts [--passages 96] [--queries 30]
 *   [--dtype q8|fp32] [--runtime kernels|transformers.js] [--isolated yes|no] [--device wasm|webgpu|webgpu,wasm]
 *   [--node no] [--model minilm-l6-v2] [--port 4189] [--chromium-arg=FLAG ...]
 */
import { readdirSync, readFileSync } from 'node:fs';
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
import { cosine } from '../src/engine/index/dense.ts';
import { openTab } from '../tools/lib/rcp-page.ts';
import { treeCpuSeconds } from '../tools/lib/cpu-time.ts';
import { cliArgs } from '../tools/lib/args.ts';

const { values } = cliArgs({
  usage: 'npm run build && node --import tsx scripts/measure-encoder.ts [--passages 96] [--queries 30] [--dtype q8|fp32] [--runtime kernels|transformers.js] [--isolated yes|no] [--device wasm|webgpu|webgpu,wasm] [--node no] [--model minilm-l6-v2] [--port 4189] [--ready-timeout S] [--chromium-arg=FLAG ...]',
  options: { passages: { type: 'string' }, queries: { type: 'string' }, model: { type: 'string' }, device: { type: 'string' }, dtype: { type: 'string' }, runtime: { type: 'string' }, isolated: { type: 'string' }, 'chromium-arg': { type: 'string', multiple: true }, port: { type: 'string' }, 'ready-timeout': { type: 'string' }, node: { type: 'string' } },
});
const PASSAGES = Number(values.passages ?? '96');
const QUERIES = Number(values.queries ?? '30');
const MODEL = values.model ?? 'minilm-l6-v2';
type Dtype = 'fp32' | 'q8';
type Runtime = 'kernels' | 'transformers.js';
type Device = 'wasm' | 'webgpu';
interface Case { dtype: Dtype; runtime: Runtime; isolated: boolean; device: Device }
const DEVICES = (values.device ?? 'wasm').split(',') as Device[];
/** Every case, filtered by the flags given. Our kernels run int8 weights on WASM only; WebGPU is transformers.js's. */
const CASES: Case[] = (
  [
    { dtype: 'q8', runtime: 'kernels', isolated: false, device: 'wasm' },
    { dtype: 'q8', runtime: 'kernels', isolated: true, device: 'wasm' },
    { dtype: 'q8', runtime: 'transformers.js', isolated: true, device: 'wasm' },
    { dtype: 'q8', runtime: 'transformers.js', isolated: false, device: 'wasm' },
    { dtype: 'fp32', runtime: 'transformers.js', isolated: true, device: 'wasm' },
    { dtype: 'fp32', runtime: 'transformers.js', isolated: true, device: 'webgpu' },
    { dtype: 'q8', runtime: 'transformers.js', isolated: true, device: 'webgpu' },
  ] as Case[]
).filter(
  (c) =>
    DEVICES.includes(c.device) &&
    (values.dtype === undefined || c.dtype === values.dtype) &&
    (values.runtime === undefined || c.runtime === values.runtime) &&
    (values.isolated === undefined || c.isolated === (values.isolated === 'yes')),
);
/** Extra Chromium flags (`--chromium-arg=FLAG`, repeatable; the `=` since FLAG starts with a dash): what a GPU machine's Chromium may need for WebGPU. */
const EXTRA_ARGS = values['chromium-arg'] ?? [];
const DTYPES = [...new Set(CASES.map((c) => c.dtype))];
const ROOT = join(import.meta.dirname, '..');
/** The sentence-transformers vectors of the parity texts (MiniLM's; none for another model). */
const REFERENCE =
  MODEL === 'minilm-l6-v2'
    ? (JSON.parse(readFileSync(join(ROOT, 'test/models/fixtures/reference-embeddings.json'), 'utf8')) as { texts: { text: string; embedding: number[] }[] }).texts
    : [];
const DIST = join(ROOT, 'dist');
const PORT = Number(values.port ?? '4189');
const ORIGIN = `http://localhost:${PORT}`;
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm', '.css': 'text/css' };

/** dist/ over HTTP, cross-origin isolated (threads) or not, and this run's /models/config.json. */
function serve(config: () => unknown, isolated: boolean): Promise<Server> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', ORIGIN).pathname;
    const headers = { ...(isolated ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {}), 'Cache-Control': 'no-cache' };
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
interface Figures { ingest: number; p50: number; p90: number; busyP50?: number; threads?: number; runtime?: string; perCpuSecond?: number; loadMs?: number; minCosine?: number; adapter?: string }

/** The Chromium browser process started with this profile (its children are found from it). */
function browserPid(profile: string): number | undefined {
  const withProfile = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(profile);
    } catch {
      return false;
    }
  });
  const ppid = (d: string) => readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1];
  return withProfile.map(Number).find((p) => !withProfile.includes(ppid(String(p))));
}

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
async function openSession(page: Page, device: Device): Promise<void> {
  // Software WebGPU (SwiftShader) takes minutes per call: the worker's 30 s embed deadline is raised there.
  const init = await openTab(page, 'measure-encoder', { capabilities: { log: {} }, _meta: { logLevel: 'debug' } }, device === 'webgpu' ? '?deadline.embed=600000' : '');
  if (init.error) throw new Error(`initialize: ${JSON.stringify(init.error)}`);
}

/** What `navigator.gpu.requestAdapter()` gives this page: vendor, architecture, and whether it is a software fallback. */
async function adapterOf(page: Page): Promise<string> {
  return page.evaluate(`(async () => {
    const a = await navigator.gpu?.requestAdapter();
    if (!a) return 'none';
    const i = a.info ?? {};
    return [i.vendor, i.architecture, i.device, i.description].filter(Boolean).join(' ') + ((i.isFallbackAdapter ?? a.isFallbackAdapter) ? ' (software fallback)' : '');
  })()`);
}

/** Minimum cosine of the case's vectors of the reference texts to sentence-transformers' (4 texts per call). */
async function parity(page: Page): Promise<number | undefined> {
  if (!REFERENCE.length) return undefined;
  const vectors = (await page.evaluate(`(async (texts) => {
    const out = [];
    for (let i = 0; i < texts.length; i += 4) {
      const r = await window.rcp('embed', { inputs: texts.slice(i, i + 4), encoding: 'json' });
      if (r.error) throw new Error(JSON.stringify(r.error));
      out.push(...r.result.vectors);
    }
    return out;
  })(${JSON.stringify(REFERENCE.map((t) => t.text))})`)) as number[][];
  return Math.min(...vectors.map((v, i) => cosine(Float32Array.from(v), Float32Array.from(REFERENCE[i].embedding))));
}

async function measureInBrowser(c: Case, texts: string[]): Promise<Figures> {
  const profile = mkdtempSync(join(tmpdir(), 'rcp-measure-encoder-'));
  const server = await serve(() => ({ embedder: MODEL, dtype: c.dtype, device: c.device, runtime: c.runtime }), c.isolated);
  const context = await chromium.launchPersistentContext(profile, { baseURL: ORIGIN, executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS, ...EXTRA_ARGS], serviceWorkers: 'block' });
  const pid = browserPid(profile);
  try {
    await context.route((url) => url.origin !== ORIGIN && !/^(data|blob):/.test(url.protocol), (route) => route.abort('blockedbyclient'));
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
    page.on('crash', () => console.error('[page crashed]'));
    page.on('console', (m) => m.type() === 'error' && console.error(`[page console] ${m.text()}`));
    const marks = { start: 0, end: 0 };
    await page.exposeFunction('__cpuMark', (which: 'start' | 'end') => void (marks[which] = pid ? treeCpuSeconds(pid) : 0));
    await openSession(page, c.device);
    const adapter = c.device === 'webgpu' ? await adapterOf(page) : undefined;
    const ready = await page
      .waitForFunction(
        (m) => (window as unknown as { __logs: { message: string; data?: Record<string, unknown> }[] }).__logs.find((l) => l.message.startsWith(`model ${m} ready on`) || l.message.startsWith(`model ${m} failed to load`)),
        MODEL,
        { timeout: Number(values['ready-timeout'] ?? '300') * 1000 },
      )
      .catch(async (e: Error) => {
        const logs = await page.evaluate(() => (window as unknown as { __logs: { message: string }[] }).__logs.map((l) => l.message)).catch(() => []);
        throw new Error(`${e.message}; worker log so far: ${JSON.stringify(logs)}`);
      });
    const info = (await ready.jsonValue()) as { message: string; data?: { device?: string; threads?: number; runtime?: string; loadMs?: number } };
    if (!info.message.includes(' ready on ')) throw new Error(info.message);
    if (info.data?.device !== c.device) throw new Error(`expected the model on ${c.device}, got ${JSON.stringify(info.data)}`);
    if (!info.data.runtime?.startsWith(c.runtime === 'kernels' ? 'rcp-kernels' : 'transformers.js')) throw new Error(`expected runtime ${c.runtime}, got ${info.data.runtime}`);
    // A string, not a function: tsx's name helpers (__name) do not exist in the page.
    const figures = (await page.evaluate(`(async (texts, query, queries) => {
      const embed = async (inputs, kind) => {
        const r = await window.rcp('embed', { inputs, kind, encoding: 'f32-base64' });
        if (r.error) throw new Error(JSON.stringify(r.error));
      };
      await embed(texts.slice(0, 8), 'document'); // warm (and tier up the kernels)
      window.__cpuMark && (await window.__cpuMark('start'));
      const t0 = performance.now();
      for (let i = 0; i < texts.length; i += 32) await embed(texts.slice(i, i + 32), 'document');
      const ingest = texts.length / ((performance.now() - t0) / 1000);
      window.__cpuMark && (await window.__cpuMark('end'));
      const q = [];
      for (let i = 0; i < queries; i++) {
        const t = performance.now();
        await embed([query], 'query');
        q.push(performance.now() - t);
      }
      q.sort((a, b) => a - b);
      // Queries while documents embed (background embedding after an import): one every 50 ms.
      let busy = true;
      const background = (async () => { for (let i = 0; i < texts.length; i += 32) await embed(texts.slice(i, i + 32), 'document'); busy = false; })();
      const b = [];
      await new Promise((r) => setTimeout(r, 200));
      while (busy && b.length < queries) {
        const t = performance.now();
        await embed([query], 'query');
        b.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 50));
      }
      await background;
      b.sort((x, y) => x - y);
      return { ingest, p50: q[Math.floor(q.length / 2)], p90: q[Math.min(q.length - 1, Math.floor(q.length * 0.9))], busyP50: b[Math.floor(b.length / 2)] };
    })(${JSON.stringify(texts)}, ${JSON.stringify(QUERY)}, ${QUERIES})`)) as Figures;
    const cpu = marks.end - marks.start;
    const minCosine = await parity(page);
    return { ...figures, threads: info.data?.threads, runtime: info.data?.runtime, loadMs: info.data?.loadMs, perCpuSecond: cpu > 0 ? texts.length / cpu : undefined, minCosine, adapter };
  } finally {
    await context.close().catch(() => {});
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const texts = passages(PASSAGES);
  const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`# ${MODEL}: ${texts.length} passages of 1000 chars, ${QUERIES} queries of 10 words; ${cpus().length} cores; load average ${load()} at start`);
  const node = new Map<Dtype, Figures>();
  if ((values.node ?? 'yes') !== 'no') {
    for (const dtype of DTYPES) {
      node.set(dtype, await measureNode(dtype, texts));
      console.log(`# ${dtype} onnxruntime-node: ${node.get(dtype)!.ingest.toFixed(1)} passages/s, query p50 ${node.get(dtype)!.p50.toFixed(1)} ms; load average ${load()}`);
    }
  }
  if (DEVICES.includes('webgpu')) console.log('# fp16: not offered (npm run models writes fp32 and q8 graphs only)');
  const header = '| dtype | device | runtime | isolated | cold load (ms) | ingest (passages/s) | passages per CPU-s | vs onnxruntime-node | query p50 / p90 (ms, RCP round trip) | query p50 while documents embed (ms) | min cosine to sentence-transformers | load average |';
  const rows: string[] = [];
  for (const c of CASES) {
    // A case that cannot run here (no WebGPU adapter, a model that does not load) is reported and the rest go on.
    const w = await measureInBrowser(c, texts).catch((e: Error) => {
      console.log(`# ${c.dtype} on ${c.device} (${c.runtime}${c.isolated ? ', isolated' : ''}): failed: ${e.message.split('\n')[0]}`);
      return undefined;
    });
    if (!w) continue;
    if (w.adapter) console.log(`# ${c.dtype} on webgpu: adapter ${w.adapter}`);
    const n = node.get(c.dtype);
    rows.push(
      `| ${c.dtype} | ${c.device} | ${w.runtime ?? c.runtime}${w.threads ? ` (${w.threads} threads)` : ''} | ${c.isolated ? 'yes' : 'no'} | ${w.loadMs ?? '?'} | ${w.ingest.toFixed(1)} | ${w.perCpuSecond?.toFixed(1) ?? '?'} | ${n ? `${((w.ingest / n.ingest) * 100).toFixed(0)}%` : '—'} | ${w.p50.toFixed(1)} / ${w.p90.toFixed(1)} | ${w.busyP50?.toFixed(1) ?? '?'} | ${w.minCosine?.toFixed(5) ?? '–'} | ${load()} |`,
    );
    console.log(rows.at(-1));
  }
  console.log(`\n# load average ${load()} at end`);
  for (const [dtype, n] of node) console.log(`# onnxruntime-node ${dtype}: ${n.ingest.toFixed(1)} passages/s, query p50 / p90 ${n.p50.toFixed(1)} / ${n.p90.toFixed(1)} ms`);
  console.log(header);
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

await main();

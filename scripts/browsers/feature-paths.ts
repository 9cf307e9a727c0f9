/**
 * `node --import tsx scripts/browsers/feature-paths.ts [--browsers chromium,firefox,firefox-private,webkit]`:
 * which path each runtime choice takes in each browser (issue 44), printed as a markdown table
 * (docs/browsers.md, "Which path each browser takes"), then the raw findings as JSON.
 *
 * Needs the built app (`npm run build`). Per browser, on a fresh profile, against the built app
 * behind e2e/browsers/server.ts's gate:
 *  1. on the origin's blank page, the engine's own detectors (scripts/browsers/feature-probe-entry.ts,
 *     bundled) run in the page and in a dedicated worker, where the engine runs;
 *  2. the engine itself starts on the bridge page with the default models config, and its
 *     `notifications/log` lines (the model's WebGPU and runtime choice) and console lines (the
 *     worker's `[rcp]` lines, where the driver sees worker consoles) are read;
 *  3. Chromium only: a bridge browser host is started on the SQLite IndexedDB flag and on LevelDB,
 *     and the profile's IndexedDB folder says which store Chromium actually wrote.
 * Chromium runs through playwright-core with the bridges' flags (bridges/browser-host.ts
 * CHROMIUM_ARGS); Firefox ESR and WebKitGTK through e2e/browsers/driver.ts.
 */
import { parseArgs } from 'node:util';
import { logsOf, openBridge, resetOrigin } from '../../e2e/browsers/app.ts';
import { launch, type PageScript, type Tab, type WaitOptions } from '../../e2e/browsers/driver.ts';
import { startApp } from '../../e2e/browsers/server.ts';
import { pageBundle } from '../../e2e/support/page-bundle.ts';
import { wasmThreads } from '../../src/models/support.ts';

/** `firefox-private`: Firefox ESR with every window private (browser.privatebrowsing.autostart). */
type Browser = 'chromium' | 'firefox' | 'firefox-private' | 'webkit';
const ALL: Browser[] = ['chromium', 'firefox', 'firefox-private', 'webkit'];

const { values } = parseArgs({ options: { browsers: { type: 'string' }, port: { type: 'string' } } });
const browsers = (values.browsers?.split(',') ?? ALL).filter((b): b is Browser => (ALL as string[]).includes(b));
const port = Number(values.port ?? process.env.FEATURES_PORT ?? 4391);

interface Findings {
  browser: Browser;
  version: string;
  page: Record<string, string>;
  worker: Record<string, string>;
  /** The engine's model log lines (notifications/log), in order. */
  modelLog: string[];
  /** Console lines of the page and, where the driver reports them, its workers, about these choices. */
  console: string[];
  bridgeIsolated?: string;
  /** Chromium: the store the profile shows when the bridge asked for each backend. */
  idb?: Record<string, string>;
  error?: string;
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 300);

/** A Chromium tab with the cross-browser driver's Tab interface (scripts given as function sources with JSON args). */
async function chromiumTab(): Promise<{ tab: Tab; version: string; console: string[]; close(): Promise<void> }> {
  const { chromium } = await import('playwright-core');
  const { CHROMIUM, CHROMIUM_ARGS } = await import('../../bridges/browser-host.ts');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const context = await browser.newContext();
  const page = await context.newPage();
  const lines: string[] = [];
  page.on('console', (m) => lines.push(`${m.type()}: ${m.text()}`));
  page.on('worker', (w) => w.on('console', (m) => lines.push(`worker ${m.type()}: ${m.text()}`)));
  const source = (script: PageScript<unknown>, args: unknown[]): string => {
    const fn = typeof script === 'string' ? (/^\s*(async\s*)?(\(|function\b|[\w$]+\s*=>)/.test(script) ? script : `() => (${script})`) : script.toString();
    return `(${fn})(...${JSON.stringify(args)})`;
  };
  const evaluate = <T>(script: PageScript<T>, ...args: unknown[]): Promise<T> => page.evaluate(source(script, args)) as Promise<T>;
  const waitFor = async <T>(script: PageScript<T>, o: WaitOptions = {}, ...args: unknown[]): Promise<NonNullable<T>> => {
    const end = Date.now() + (o.timeout ?? 60_000);
    for (;;) {
      const v = await evaluate(script, ...args).catch(() => undefined);
      if (v) return v as NonNullable<T>;
      if (Date.now() > end) throw new Error(`timed out waiting for ${o.what ?? 'a condition'}`);
      await new Promise((r) => setTimeout(r, o.interval ?? 200));
    }
  };
  const tab: Tab = {
    goto: async (url) => void (await page.goto(url)),
    reload: async () => void (await page.reload()),
    url: async () => page.url(),
    evaluate,
    waitFor,
    click: (s) => page.click(s),
    type: (s, text) => page.locator(s).pressSequentially(text),
    press: (k) => page.keyboard.press(k),
    keys: (text) => page.keyboard.type(text),
    setFiles: (s, paths) => page.setInputFiles(s, paths),
    front: () => page.bringToFront(),
    close: () => page.close(),
  };
  return { tab, version: `Chromium ${browser.version()}`, console: lines, close: () => browser.close() };
}

/** What the probe bundle finds in the page and in a worker started from it. */
async function probe(tab: Tab, origin: string, bundle: string): Promise<Pick<Findings, 'page' | 'worker'>> {
  await resetOrigin(tab, origin);
  await tab.evaluate((src: string) => {
    (0, eval)(src);
    (window as unknown as { __probeSrc: string }).__probeSrc = src;
  }, bundle);
  type Probe = { pagePaths(): Promise<Record<string, string>> };
  const page = await tab.evaluate(() => (globalThis as unknown as { featureProbe: Probe }).featureProbe.pagePaths());
  const worker = await tab.evaluate(
    () =>
      new Promise<Record<string, string>>((ok, fail) => {
        const src = `${(window as unknown as { __probeSrc: string }).__probeSrc}\n;self.onmessage = async () => postMessage(await featureProbe.workerPaths());`;
        const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
        const timer = setTimeout(() => fail(new Error('the worker probe did not answer in 120 s')), 120_000);
        w.onmessage = (e) => (clearTimeout(timer), w.terminate(), ok(e.data as Record<string, string>));
        w.onerror = (e) => (clearTimeout(timer), fail(new Error(`worker probe: ${e.message}`)));
        w.postMessage(0);
      }),
  );
  return { page, worker };
}

/** The engine's own account: its model log until the embedder is ready (or failed). */
async function engineLog(tab: Tab, origin: string): Promise<Pick<Findings, 'modelLog' | 'bridgeIsolated'>> {
  await resetOrigin(tab, origin);
  const init = await openBridge(tab, origin, 'feature-paths', { capabilities: { log: {} } });
  if (init.error) throw new Error(`initialize: ${init.error.message}`);
  // On an empty index the model loads by itself once the index opened and a short grace for a first write passed (src/worker.ts).
  type Log = { level: string; message: string };
  const text = (l: Log) => `${l.level}: ${l.message}`;
  const end = Date.now() + 300_000;
  let lines: string[] = [];
  while (Date.now() < end) {
    lines = (await logsOf<Log>(tab)).map(text);
    if (lines.some((l) => / ready on | failed to load/.test(l))) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  // The app is served with COOP + COEP (vite.config.ts); the blank page is not, so isolation is read here.
  const bridgeIsolated = String(await tab.evaluate(() => globalThis.crossOriginIsolated === true));
  return { modelLog: lines.filter((l) => !/: loaded /.test(l)), bridgeIsolated };
}

/** Chromium only: which store the bridge's profile shows for each backend it can ask for. */
async function idbBackends(): Promise<Record<string, string>> {
  const { launchHost } = await import('../../bridges/browser-host.ts');
  const out: Record<string, string> = {};
  for (const asked of ['sqlite', 'leveldb'] as const) {
    const host = await launchHost({ idb: asked, models: false });
    try {
      await host.indexLoss();
      out[asked] = host.storedBackend() ?? 'nothing stored';
    } finally {
      await host.close();
    }
  }
  return out;
}

async function run(name: Browser, origin: string, bundle: string): Promise<Findings> {
  const f: Findings = { browser: name, version: '?', page: {}, worker: {}, modelLog: [], console: [] };
  let session: { tab: Tab; console(): Promise<string[]>; close(): Promise<void> } | undefined;
  try {
    if (name === 'chromium') {
      const c = await chromiumTab();
      f.version = c.version;
      session = { tab: c.tab, console: async () => c.console, close: c.close };
    } else {
      const s = name === 'firefox-private' ? await launch('firefox', { prefs: { 'browser.privatebrowsing.autostart': true } }) : await launch(name);
      f.version = name === 'firefox-private' ? `${s.version}, private window` : s.version;
      session = { tab: s.tab, console: () => s.logs(), close: () => s.close() };
    }
    Object.assign(f, await probe(session.tab, origin, bundle));
    Object.assign(f, await engineLog(session.tab, origin));
    f.console = (await session.console()).filter((l) => /storage: |\[rcp\]|\[models\]/.test(l));
    if (name === 'chromium') f.idb = await idbBackends();
  } catch (e) {
    f.error = errorText(e);
  } finally {
    await session?.close().catch(() => undefined);
  }
  return f;
}

/** The model's ready line, shortened to its device and runtime. */
const readyLine = (f: Findings): string => {
  const l = f.modelLog.find((m) => / ready on | failed to load/.test(m));
  const m = l && / ready on (.+?) in \d+ ms, runtime (.+)$/.exec(l);
  return m ? `${m[2]} on ${m[1]}` : (l ?? 'no ready line');
};
const line = (f: Findings, re: RegExp): string => f.console.find((l) => re.test(l))?.replace(/^(worker )?\w+: (\[rcp\] )?/, '') ?? '(worker console not seen)';
const webgpuLine = (f: Findings): string => f.modelLog.find((l) => /WebGPU: /.test(l))?.replace(/^info: model [^:]+: WebGPU: /, '') ?? f.worker.webgpu ?? '?';

/** onnxruntime-web's threads follow the app page's isolation (wasmThreads); our kernels' workers follow the cores. */
const threadsCell = (f: Findings): string => {
  const cores = Number(f.worker.cores);
  const ort = wasmThreads({ crossOriginIsolated: f.bridgeIsolated === 'true', navigator: { hardwareConcurrency: cores } });
  return `app isolated: ${f.bridgeIsolated ?? '?'} → onnxruntime-web ${ort} thread${ort > 1 ? 's' : ''} (static models: 1); our kernels: ${f.worker.encoderWorkers} encoder worker(s) for ${f.worker.cores} cores`;
};

const ROWS: [string, string, (f: Findings) => string][] = [
  ['Relaxed SIMD (encoder kernels)', 'each GEMM variant compiled, self-tested, timed; fastest kept (src/models/encoder-runtime/kernel-module.ts)', (f) => `relaxed SIMD ${f.worker.relaxedSimd}; kernels: ${f.worker.kernels}`],
  ['Encoder runtime the engine took', 'the model log\'s ready line (src/models/model-loader.ts)', readyLine],
  ['Threads', 'crossOriginIsolated → onnxruntime-web threads; navigator.hardwareConcurrency → encoder workers (src/models/support.ts)', threadsCell],
  ['WebGPU', 'navigator.gpu.requestAdapter() and its isFallbackAdapter (src/models/support.ts)', webgpuLine],
  ['OPFS sync access (recovery log)', 'navigator.storage.getDirectory and createSyncAccessHandle present, then used (src/storage/recovery/log-files.ts)', (f) => f.worker.opfsSync ?? '?'],
  ['Storage manager (witness, notice)', 'navigator.storage present; getDirectory() refused with SecurityError (src/app/storage-notice.ts)', (f) => `storage: ${f.page.storage ?? '?'}`],
  ['Compression Streams', 'CompressionStream/DecompressionStream constructed per format (src/util/compression.ts)', (f) => f.worker.compression ?? '?'],
  ['Intl.Segmenter', 'Intl.Segmenter present (src/engine/analysis/analyzer.ts)', (f) => f.worker.segmenter ?? '?'],
  ['SQLite IndexedDB flag (bridges)', 'the profile\'s IndexedDB folder after the engine opened (bridges/profile-storage.ts storedBackend)', (f) => (f.idb ? `asked sqlite → ${f.idb.sqlite}; asked leveldb → ${f.idb.leveldb}` : 'not applicable: the page gets the browser\'s own store')],
];

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const app = await startApp(port);
const findings: Findings[] = [];
try {
  const bundle = await pageBundle(new URL('./feature-probe-entry.ts', import.meta.url), 'featureProbe');
  for (const b of browsers) {
    process.stderr.write(`feature-paths: ${b}…\n`);
    findings.push(await run(b, app.origin, bundle));
  }
} finally {
  await app.close();
}
const date = new Date().toISOString().slice(0, 10);
console.log(`Measured ${date} by \`node --import tsx scripts/browsers/feature-paths.ts\`: ${findings.map((f) => f.version).join(', ')}.\n`);
console.log(`| Choice | Detected by | ${findings.map((f) => f.version).join(' | ')} |`);
console.log(`|---|---|${findings.map(() => '---|').join('')}`);
for (const [what, how, value] of ROWS) console.log(`| ${what} | ${how} | ${findings.map((f) => cell(f.error && !f.worker.kernels ? `error: ${f.error}` : value(f))).join(' | ')} |`);
console.log('\nThe engine worker\'s own lines, where the driver sees worker consoles:\n');
for (const f of findings) {
  console.log(`- ${f.version}: ${[line(f, /word segmenter/), line(f, /compression streams/), line(f, /recovery log/)].join('; ')}${f.error ? ` (error: ${f.error})` : ''}`);
}
console.log(`\n<!-- raw findings\n${JSON.stringify(findings, null, 1)}\n-->`);

/**
 * First opens of the playground, each in a fresh profile, in one browser, watching the engine
 * worker's answers throughout (scripts/browsers/first-open-probe.ts): an RCP `ping` and a sparse
 * `retrieve` every 250 ms from the moment the page's session exists until the sample has seeded
 * and the model is ready. A run stalls when either waited over 1 s, or the watchdog said the
 * engine may have crashed. Prints one line per run and the counts.
 * Usage: npm run build && node --import tsx scripts/measure-first-open.ts --browser firefox|webkit|chromium [--runs 20] [--load] [--port 4221]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '../bridges/static-server.ts';
import { cliArgs } from '../tools/lib/args.ts';
import { startLoad, type Load } from '../tools/lib/load-run.ts';
import { FIRST_OPEN_PROBE, type FirstOpenRecord } from './browsers/first-open-probe.ts';
import { BROWSERS, openBrowser, type BrowserName } from './browsers/open-browser.ts';
import { loadavg } from 'node:os';

const root = join(import.meta.dirname, '..');
const { values: opts } = cliArgs({
  usage: 'node --import tsx scripts/measure-first-open.ts --browser firefox|webkit|chromium [--runs 20] [--load] [--port 4221] [--limit-ms 1000] [--timeout-s 180] [--dist DIR]',
  options: {
    browser: { type: 'string', default: 'chromium' },
    runs: { type: 'string', default: '20' },
    port: { type: 'string', default: '4221' },
    'limit-ms': { type: 'string', default: '1000' },
    'timeout-s': { type: 'string', default: '180' },
    dist: { type: 'string', default: join(root, 'dist') },
    load: { type: 'boolean' },
  },
});
const browser = opts.browser as BrowserName;
if (!BROWSERS.includes(browser)) throw new Error(`--browser must be one of ${BROWSERS.join(', ')}`);
const runs = Number(opts.runs);
const port = Number(opts.port);
const limitMs = Number(opts['limit-ms']);
const runTimeoutMs = Number(opts['timeout-s']) * 1000;
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

interface RunOutcome {
  stalled: boolean;
  maxPing: number;
  maxRetrieve: number;
  firstResultsMs?: number;
  seededMs?: number;
  readyMs?: number;
  fault?: string;
  note: string;
}

/** The three longest timed steps the worker reported. */
const topSteps = (steps: [number, string, number][]): string =>
  [...steps].sort((a, b) => b[2] - a[2]).slice(0, 3).map(([, label, ms]) => `${label} ${ms} ms`).join(', ') || 'none ≥ 50 ms';

/** The longest wait of one kind, counting a request still open with its age. */
const longest = (list: [number, number, unknown][], openSince: number | null | undefined, nowMs: number) => Math.max(0, ...list.map(([, ms]) => ms), openSince == null ? 0 : nowMs - openSince);

async function oneRun(url: string): Promise<RunOutcome> {
  const page = await openBrowser(browser);
  try {
    await page.goto(url);
    const t0 = Date.now();
    // The probe starts once the page's session exists.
    while (!(await page.evaluate<boolean>('!!window.rcpClient'))) {
      if (Date.now() - t0 > 60_000) throw new Error('no session after 60 s');
      await sleep(100);
    }
    await page.evaluate(FIRST_OPEN_PROBE);
    let r: FirstOpenRecord & { now: number };
    for (;;) {
      await sleep(1000);
      r = await page.evaluate('({ ...window.__firstOpen, now: performance.now() })');
      const finished = r.seededMs != null && r.readyMs != null; // WebDriver hands undefined back as null
      if (finished || r.fault || Date.now() - t0 > runTimeoutMs) break;
    }
    await page.evaluate('(window.__firstOpen.done = true)');
    if (process.env.RCP_TRACE) writeFileSync(process.env.RCP_TRACE, JSON.stringify({ ...r, console: page.console }, null, 1));
    const maxPing = longest(r.pings, r.open.pings, r.now);
    const maxRetrieve = longest(r.retrieves, r.open.retrieves, r.now);
    const stalled = maxPing > limitMs || maxRetrieve > limitMs || !!r.fault || r.seededMs == null || r.readyMs == null;
    const errors = [...r.pings, ...r.retrieves].filter(([, , o]) => typeof o === 'string' && o.startsWith('error')).length;
    return { stalled, maxPing, maxRetrieve, firstResultsMs: r.firstResultsMs, seededMs: r.seededMs, readyMs: r.readyMs, fault: r.fault, note: `${r.pings.length} pings, ${r.retrieves.length} retrieves, ${errors} errors; worker held ≤ ${r.maxLag} ms (${r.beats} beats); longest steps ${topSteps(r.steps)}; ${r.stats}` };
  } finally {
    if (process.env.RCP_CONSOLE) console.log(page.console.join('\n'));
    await page.close();
  }
}

async function main(): Promise<void> {
  const server = await serveStatic(opts.dist, port);
  let load: Load | undefined;
  if (opts.load) load = await startLoad((l: string) => console.log(l));
  const outcomes: RunOutcome[] = [];
  try {
    for (let i = 1; i <= runs; i++) {
      const load1 = loadavg()[0].toFixed(1);
      const o = await oneRun(`http://localhost:${port}/index.html`).catch((e: Error): RunOutcome => ({ stalled: true, maxPing: NaN, maxRetrieve: NaN, note: `run failed: ${e.message.slice(0, 200)}` }));
      outcomes.push(o);
      console.log(
        `${browser} run ${i}/${runs}: ${o.stalled ? 'STALL' : 'ok'} · max ping ${o.maxPing} ms · max sparse retrieve ${o.maxRetrieve} ms · first results ${o.firstResultsMs ?? '-'} ms · seeded ${o.seededMs ?? '-'} ms · ready ${o.readyMs ?? '-'} ms · load ${load1}${o.fault ? ` · notice: ${o.fault.slice(0, 120)}` : ''} · ${o.note}`,
      );
    }
  } finally {
    const report = await load?.stop();
    server.close();
    const stalls = outcomes.filter((o) => o.stalled).length;
    console.log(`${browser}: ${stalls} stalls in ${outcomes.length} first opens${load ? ' under the load generator' : ''} (limit ${limitMs} ms per ping / sparse retrieve); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}${report ? `; load generator ${report.adds} adds, ${report.retrieves} retrieves, ${report.failures.length} failures` : ''}`);
    process.exitCode = stalls ? 1 : 0;
  }
}

await main();

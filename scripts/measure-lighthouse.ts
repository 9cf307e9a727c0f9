/**
 * Prints Lighthouse 12.2.3 figures for the built playground (dist/, served by `vite preview`), in
 * Debian's Chromium, for the mobile and desktop presets, each on an empty index (the sample corpus
 * declined, as after "Clear index") and on a first visit while the sample corpus seeds:
 * performance, accessibility and best-practices scores, CLS, TBT, LCP, FCP, and the audits that
 * did not pass. Figures, not a test: the targets are printed beside them, with the load average.
 * Usage: npm run build && node --import tsx scripts/measure-lighthouse.ts [--port 4299] [--runs 1]
 *        [--preset mobile|desktop] [--state empty|seeding] [--json out.json] [--details] [--traces DIR]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { desktopConfig, type Flags, type Result } from 'lighthouse';
import puppeteer from 'puppeteer-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../bridges/browser-host.ts';
import { cliArgs } from '../tools/lib/args.ts';

const { values } = cliArgs({
  usage: 'npm run build && node --import tsx scripts/measure-lighthouse.ts [--port 4299] [--runs 1] [--preset mobile|desktop] [--state empty|seeding] [--json out.json] [--details] [--traces DIR]',
  options: { port: { type: 'string' }, runs: { type: 'string' }, preset: { type: 'string' }, state: { type: 'string' }, json: { type: 'string' }, details: { type: 'boolean' }, traces: { type: 'string' } },
});
const port = Number(values.port ?? '4299');
const runs = Math.max(1, Number(values.runs ?? '1'));
const presets = (values.preset ?? 'mobile,desktop').split(',') as ('mobile' | 'desktop')[];
const states = (values.state ?? 'empty,seeding').split(',') as ('empty' | 'seeding')[];
const jsonOut = values.json;
/** Also print where the time and the shifts went (long tasks, main-thread work, shifted elements). */
const details = values.details === true;
/** A folder to write each run's Chromium trace into (`<preset>-<state>-<run>.trace.json`), to read a bad run's tasks. */
const traceDir = values.traces;
const root = join(import.meta.dirname, '..');
const origin = `http://localhost:${port}`;
const TARGETS = { performance: 0.9, accessibility: 1, 'best-practices': 1, cls: 0.05, tbtMs: 200 };

async function startPreview(): Promise<ChildProcess> {
  // vite's own entry (not npx), so that killing the child stops the server.
  const child = spawn(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'preview', '--host', 'localhost', '--port', String(port), '--strictPort'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${origin}/index.html`)).ok) return child;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error(`vite preview did not start on ${origin}`);
}

const launch = (userDataDir: string) => chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: [...CHROMIUM_ARGS, '--headless=new'], userDataDir });

/**
 * An empty index: in a fresh profile, the "sample declined" flag is set from a page of the origin
 * that does not run the app (so no service worker or database exists before the run), by a
 * browser that is then closed; Lighthouse then runs in that profile without resetting storage.
 */
async function prepareEmpty(userDataDir: string): Promise<void> {
  const chrome = await launch(userDataDir);
  try {
    const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
    const page = await browser.newPage();
    await page.goto(`${origin}/models/config.json`);
    await page.evaluate(() => localStorage.setItem('rcp-playground:sample-declined', '1'));
    await browser.disconnect();
  } finally {
    await chrome.kill();
  }
}

interface Figures {
  preset: string;
  state: string;
  performance: number;
  accessibility: number;
  bestPractices: number;
  clsValue: number;
  tbtMs: number;
  lcpMs: number;
  fcpMs: number;
  failing: string[];
}

function figuresOf(lhr: Result, preset: string, state: string): Figures {
  const audit = (id: string) => lhr.audits[id]?.numericValue ?? NaN;
  const failing: string[] = [];
  for (const cat of ['accessibility', 'best-practices']) {
    for (const ref of lhr.categories[cat]?.auditRefs ?? []) {
      const a = lhr.audits[ref.id];
      if (ref.weight > 0 && a && a.score !== null && a.score < 1) failing.push(`${cat}: ${a.id} (${a.title})`);
    }
  }
  return {
    preset,
    state,
    performance: lhr.categories.performance?.score ?? NaN,
    accessibility: lhr.categories.accessibility?.score ?? NaN,
    bestPractices: lhr.categories['best-practices']?.score ?? NaN,
    clsValue: audit('cumulative-layout-shift'),
    tbtMs: audit('total-blocking-time'),
    lcpMs: audit('largest-contentful-paint'),
    fcpMs: audit('first-contentful-paint'),
    failing,
  };
}

/** The long tasks, the main-thread work by kind, and the elements that shifted. */
function whereItWent(lhr: Result): string[] {
  type Items = Record<string, unknown>[];
  const items = (id: string): Items => ((lhr.audits[id]?.details as { items?: Items } | undefined)?.items ?? []);
  const out: string[] = [];
  for (const t of items('long-tasks').slice(0, 8)) out.push(`long task ${Number(t.duration).toFixed(0)} ms at ${Number(t.startTime).toFixed(0)} ms: ${String(t.url)}`);
  out.push(`main-thread work: ${items('mainthread-work-breakdown').map((w) => `${String(w.groupLabel)} ${Number(w.duration).toFixed(0)} ms`).join(', ')}`);
  for (const s of items('layout-shifts').slice(0, 5)) out.push(`layout shift ${Number(s.score).toFixed(4)}: ${JSON.stringify((s.node as { snippet?: string } | undefined)?.snippet ?? s.node)}`);
  return out;
}

const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');

async function main(): Promise<void> {
  const preview = await startPreview();
  const all: Figures[] = [];
  try {
    for (const preset of presets) {
      for (const state of states) {
        for (let run = 0; run < runs; run++) {
          const profile = mkdtempSync(join(tmpdir(), 'rcp-lighthouse-'));
          if (state === 'empty') await prepareEmpty(profile);
          const chrome = await launch(profile);
          try {
            const flags: Flags = { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility', 'best-practices'], disableStorageReset: state === 'empty', ...(traceDir ? { additionalTraceCategories: 'disabled-by-default-v8.cpu_profiler' } : {}) };
            const load = loadavg()[0].toFixed(2);
            const result = await lighthouse(`${origin}/index.html`, flags, preset === 'desktop' ? desktopConfig : undefined);
            if (!result) throw new Error('Lighthouse returned no result');
            const f = figuresOf(result.lhr, preset, state);
            all.push(f);
            console.log(
              `${preset} ${state} (run ${run + 1}, load ${load}): performance ${f.performance.toFixed(2)} [${mark(f.performance >= TARGETS.performance)}], ` +
                `accessibility ${f.accessibility.toFixed(2)} [${mark(f.accessibility >= TARGETS.accessibility)}], best practices ${f.bestPractices.toFixed(2)} [${mark(f.bestPractices >= TARGETS['best-practices'])}], ` +
                `CLS ${f.clsValue.toFixed(3)} [${mark(f.clsValue <= TARGETS.cls)}], TBT ${f.tbtMs.toFixed(0)} ms [${mark(f.tbtMs <= TARGETS.tbtMs)}], LCP ${f.lcpMs.toFixed(0)} ms, FCP ${f.fcpMs.toFixed(0)} ms`,
            );
            for (const line of f.failing) console.log(`  not passed: ${line}`);
            if (details) for (const line of whereItWent(result.lhr)) console.log(`  ${line}`);
            const trace = (result.artifacts as { Trace?: unknown; traces?: { defaultPass?: unknown } }).Trace ?? (result.artifacts as { traces?: { defaultPass?: unknown } }).traces?.defaultPass;
            if (traceDir && trace) {
              mkdirSync(traceDir, { recursive: true });
              writeFileSync(join(traceDir, `${preset}-${state}-${run + 1}.trace.json`), JSON.stringify(trace));
            }
            if (result.lhr.runtimeError) console.log(`  runtime error: ${result.lhr.runtimeError.message}`);
          } finally {
            await chrome.kill();
            rmSync(profile, { recursive: true, force: true });
          }
        }
      }
    }
  } finally {
    preview.kill();
  }
  console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(all, null, 2));
}

await main();

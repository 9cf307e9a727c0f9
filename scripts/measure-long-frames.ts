/**
 * Which scripts block the playground's first open (issue 25's bimodal Total Blocking Time):
 * opens the built app (dist/, over a plain HTTP server on localhost) in a fresh Chromium profile
 * each run, with the CPU slowed as Lighthouse's mobile preset does (4×), and records the Long
 * Animation Frames API's entries (`long-animation-frame`, Chromium ≥ 123) for the first seconds:
 * each long frame's blocking duration and the scripts that ran in it — invoker, function, source
 * position and duration — which Lighthouse's trace did not attribute. Prints every run's frames over
 * 50 ms blocking and, over all runs, the blocking time per (invoker, function, source).
 * Figures, not a test; the load average is printed with each run.
 *
 * --profile adds a CDP sampling profile of the main thread over the same seconds: self time per
 * function, mapped to the original source when the served build has source maps
 * (`npx vite build --sourcemap --outDir /tmp/dist-sm`, then `--dist /tmp/dist-sm`).
 *
 * Usage: npm run build && node --import tsx scripts/measure-long-frames.ts [--runs 8] [--seconds 12]
 *        [--state seeding|empty] [--throttle 4] [--port 4311] [--dist DIR] [--profile [--lines]]
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { SourceMapConsumer } from 'source-map-js';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../bridges/browser-host.ts';
import { serveStatic } from '../bridges/static-server.ts';
import { cliArgs } from '../tools/lib/args.ts';

const { values } = cliArgs({
  usage: 'npm run build && node --import tsx scripts/measure-long-frames.ts [--runs 8] [--seconds 12] [--state seeding|empty] [--throttle 4] [--port 4311] [--dist DIR] [--profile [--lines]]',
  options: { runs: { type: 'string' }, seconds: { type: 'string' }, state: { type: 'string' }, throttle: { type: 'string' }, port: { type: 'string' }, dist: { type: 'string' }, profile: { type: 'boolean' }, lines: { type: 'boolean' } },
});
const RUNS = Number(values.runs ?? '8');
const SECONDS = Number(values.seconds ?? '12');
const STATE = (values.state ?? 'seeding') as 'seeding' | 'empty';
const THROTTLE = Number(values.throttle ?? '4');
const PORT = Number(values.port ?? '4311');
const ORIGIN = `http://localhost:${PORT}`;
const DIST = values.dist ?? join(import.meta.dirname, '..', 'dist');
const PROFILE = values.profile === true;
/** With --lines, top-level samples are listed per original line, not per file (use an unminified build: `--minify false`). */
const LINES = values.lines === true;
/** A frame blocking at least this long is listed (Lighthouse's TBT counts what exceeds 50 ms per task). */
const LIST_MS = 50;

interface ScriptTiming { invoker: string; fn: string; source: string; duration: number; forcedStyleAndLayout: number }
interface Frame { start: number; duration: number; blocking: number; render: number; styleAndLayout: number; scripts: ScriptTiming[] }

/** Installed before any page script: keeps every long animation frame with its script attribution. */
const RECORDER = `window.__frames = []; new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__frames.push({
  start: e.startTime, duration: e.duration, blocking: e.blockingDuration, render: e.renderStart ? e.duration - (e.renderStart - e.startTime) : 0,
  styleAndLayout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
  scripts: e.scripts.map((s) => ({ invoker: s.invokerType + ':' + s.invoker, fn: s.sourceFunctionName, source: (s.sourceURL || '').replace(location.origin, '') + ':' + s.sourceCharPosition, duration: s.duration, forcedStyleAndLayout: s.forcedStyleAndLayoutDuration })) }); }).observe({ type: 'long-animation-frame', buffered: true });`;

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; hitCount?: number; positionTicks?: { line: number; ticks: number }[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** `url:line:col` of a served file as its original source position, when a source map lies beside it. */
const consumers = new Map<string, SourceMapConsumer | undefined>();
function original(url: string, line: number, column: number): string {
  const path = url.startsWith(ORIGIN) ? url.slice(ORIGIN.length) : undefined;
  if (!path) return url || '(native)';
  if (!consumers.has(path)) {
    const map = join(DIST, `${path}.map`);
    consumers.set(path, existsSync(map) ? new SourceMapConsumer(JSON.parse(readFileSync(map, 'utf8'))) : undefined);
  }
  const pos = consumers.get(path)?.originalPositionFor({ line: line + 1, column });
  return pos?.source ? `${pos.source.replace(/^.*?(node_modules|src)\//, '$1/')}:${pos.line}${pos.name ? ` ${pos.name}` : ''}` : `${path}:${line + 1}:${column}`;
}

/** Self time (ms) per function of a CPU profile, at the callee's original position. */
function selfTimes(p: CpuProfile, into: Map<string, number>): void {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < p.samples.length; i++) {
    const f = byId.get(p.samples[i])!.callFrame;
    if (f.functionName === '(idle)' || f.functionName === '(program)') continue;
    const key = `${f.functionName || '(anonymous)'} ${f.url ? original(f.url, f.lineNumber, f.columnNumber) : ''}`.trim();
    into.set(key, (into.get(key) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  }
}
const self = new Map<string, number>();
/** Samples inside bundle-level code (a bundler hoists every module's top level into one function), by original source file. */
const topLevel = new Map<string, number>();

/** A bundle's top-level function's samples, per original source (its positionTicks mapped through the source map). */
function topLevelTicks(p: CpuProfile, into: Map<string, number>): void {
  for (const n of p.nodes) {
    const f = n.callFrame;
    if (f.lineNumber !== 0 || f.columnNumber !== 0 || !f.url.startsWith(ORIGIN) || !n.positionTicks) continue;
    for (const t of n.positionTicks) {
      const at = original(f.url, t.line - 1, 0);
      const where = LINES ? at : at.replace(/:\d+.*$/, '');
      into.set(where, (into.get(where) ?? 0) + t.ticks);
    }
  }
}

const server = await serveStatic(DIST, PORT);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const totals = new Map<string, { ms: number; runs: Set<number> }>();
try {
  for (let run = 1; run <= RUNS; run++) {
    const context = await browser.newContext({ viewport: { width: 412, height: 823 } });
    await context.route((url) => !url.href.startsWith(`${ORIGIN}/`), (route) => route.abort());
    await context.addInitScript(RECORDER);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
    if (PROFILE) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    // "empty": the sample corpus declined (as measure-lighthouse.ts sets it), before the app runs.
    if (STATE === 'empty') {
      await page.goto(`${ORIGIN}/models/config.json`);
      await page.evaluate(() => localStorage.setItem('rcp-playground:sample-declined', '1'));
    }
    await page.goto(`${ORIGIN}/index.html`);
    await page.waitForTimeout(SECONDS * 1000);
    const frames = (await page.evaluate('window.__frames')) as Frame[];
    if (PROFILE) {
      const { profile } = (await cdp.send('Profiler.stop')) as { profile: CpuProfile };
      selfTimes(profile, self);
      topLevelTicks(profile, topLevel);
    }
    await context.close();
    const blocking = frames.reduce((s, f) => s + Math.max(0, f.blocking), 0);
    console.log(`run ${run}: ${frames.length} long frames, blocking ${blocking.toFixed(0)} ms (load ${loadavg()[0].toFixed(2)})`);
    for (const f of frames.filter((x) => x.blocking >= LIST_MS)) {
      console.log(`  at ${f.start.toFixed(0)} ms: ${f.duration.toFixed(0)} ms, blocking ${f.blocking.toFixed(0)}, style+layout ${f.styleAndLayout.toFixed(0)}`);
      for (const s of [...f.scripts].sort((a, b) => b.duration - a.duration).slice(0, 4)) {
        console.log(`    ${s.duration.toFixed(0).padStart(5)} ms  ${s.invoker}  ${s.fn || '(anonymous)'}  ${s.source}${s.forcedStyleAndLayout > 1 ? `  forced layout ${s.forcedStyleAndLayout.toFixed(0)} ms` : ''}`);
      }
    }
    for (const f of frames) {
      for (const s of f.scripts) {
        const key = `${s.invoker} ${s.fn || '(anonymous)'} ${s.source}`;
        const t = totals.get(key) ?? { ms: 0, runs: new Set<number>() };
        t.ms += s.duration;
        t.runs.add(run);
        totals.set(key, t);
      }
    }
  }
  console.log(`\nscript time inside long frames, all ${RUNS} runs (${STATE}, CPU ${THROTTLE}× slower), top 15:`);
  for (const [key, t] of [...totals].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15)) console.log(`  ${t.ms.toFixed(0).padStart(6)} ms in ${t.runs.size} runs  ${key}`);
  if (PROFILE) {
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    console.log(`\nmain-thread self time, all runs (${total.toFixed(0)} ms of JS and its native callees, throttled), top 30:`);
    for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${key}`);
    console.log('\nsamples in module top-level code, by original source (the bundles\' hoisted top level), top 15:');
    for (const [where, ticks] of [...topLevel].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${String(ticks).padStart(6)}  ${where}`);
  }
} finally {
  await browser.close();
  server.close();
}

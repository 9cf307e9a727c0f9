/**
 * The page side of a first-open measurement (scripts/measure-first-open.ts): a script evaluated in
 * the playground once `window.rcpClient` exists. Every 250 ms it sends an RCP `ping` and a sparse
 * `retrieve` (each only when the previous one was answered) and records each one's latency; a
 * request still unanswered counts with its age so far, so a worker that never answers again is seen.
 * It also notes when the first results came, when seeding ended, when the model was ready and
 * whether the watchdog's notice appeared. The driver reads `window.__firstOpen` as JSON.
 *
 * A string, not a function: every driver (playwright, puppeteer over BiDi, selenium) evaluates it as is.
 */
export const FIRST_OPEN_PROBE = String.raw`(() => {
  if (window.__firstOpen) return;
  const t0 = performance.timeOrigin;
  const now = () => performance.now();
  const probe = { startedAt: now(), pings: [], retrieves: [], open: {}, firstResultsMs: undefined, seededMs: undefined, readyMs: undefined, fault: undefined, busyNotice: undefined, stats: '', done: false };
  window.__firstOpen = probe;
  const client = window.rcpClient;
  // The worker's own view: each beat says how long its thread was held, and which timed steps held it.
  probe.beats = 0; probe.maxLag = 0; probe.lags = []; probe.steps = [];
  client.control.heartbeat().then((port) => {
    port.onmessage = (ev) => {
      const b = ev.data;
      probe.beats++;
      probe.maxLag = Math.max(probe.maxLag, b.lagMs);
      if (b.lagMs >= 200) probe.lags.push([Math.round(now()), b.lagMs]);
      for (const st of b.steps) probe.steps.push([Math.round(now()), st[0], st[1]]);
    };
  }, () => { probe.beats = -1; });
  const loop = (kind, call) => {
    const tick = () => {
      if (probe.done) return;
      const at = now();
      probe.open[kind] = at;
      call().then(
        (r) => { probe[kind].push([Math.round(at), Math.round(now() - at), r]); },
        (e) => { probe[kind].push([Math.round(at), Math.round(now() - at), 'error: ' + (e && e.message)]); },
      ).finally(() => { delete probe.open[kind]; setTimeout(tick, 250); });
    };
    tick();
  };
  loop('pings', () => client.request('ping', {}).then(() => 'ok'));
  loop('retrieves', () => client.request('retrieve', { query: 'whale ship', k: 5, mode: 'sparse' }).then((r) => {
    const n = (r.hits || r.results || []).length;
    if (n > 0 && probe.firstResultsMs === undefined) probe.firstResultsMs = Math.round(now());
    return n;
  }));
  const watch = () => {
    const done = document.querySelector('#progress-done');
    const stats = document.querySelector('#index-stats');
    const fault = document.querySelector('#engine-fault');
    probe.stats = stats ? stats.textContent : '';
    if (probe.seededMs === undefined && done && /Imported \d[\d,]* documents/.test(done.textContent || '')) probe.seededMs = Math.round(now());
    if (probe.readyMs === undefined && /: ready/.test(probe.stats)) probe.readyMs = Math.round(now());
    if (fault && !fault.hidden && fault.textContent) {
      const text = fault.textContent;
      if (/crashed|stopped responding/.test(text)) probe.fault = probe.fault || text;
      else probe.busyNotice = probe.busyNotice || text;
    }
  };
  setInterval(watch, 100);
})()`;

/** What the probe recorded: [sent at (ms since navigation), latency ms, outcome]. */
export interface FirstOpenRecord {
  startedAt: number;
  pings: [number, number, unknown][];
  retrieves: [number, number, unknown][];
  /** Requests still unanswered: kind → sent at. */
  open: Record<string, number>;
  firstResultsMs?: number;
  seededMs?: number;
  readyMs?: number;
  fault?: string;
  busyNotice?: string;
  stats: string;
  /** Heartbeats received (-1: the worker has none), the longest lag one reported, lags ≥ 200 ms and timed steps [at, label, ms]. */
  beats: number;
  maxLag: number;
  lags: [number, number][];
  steps: [number, string, number][];
}

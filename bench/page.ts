/**
 * The bench page (bench.html): orchestrates the run and does only what must happen on the page —
 * booting the real app worker for cold start and RCP round trips, and measuring the bench worker's
 * JS heap with `performance.measureUserAgentSpecificMemory()` (a page-only API). Every timing of
 * an index or a search happens inside a worker.
 */
import { bootWorker } from '../src/client/boot.ts';
import { round, summarize } from './stats.ts';
import type {
  BenchConfig, BenchResult, ColdStartResult, EmbedderInfo, IngestOnlyResult, IngestStat, Latency, RcpOverheadResult, ScaleColdStart, SizeResult,
  StagePhase, SystemAtSize, WorkerReply, WorkerRequest,
} from './types.ts';

declare global {
  interface Window {
    benchReady?: boolean;
    runBench?(config: BenchConfig): Promise<BenchResult>;
    runIngest?(config: BenchConfig): Promise<IngestOnlyResult[]>;
    /** CPU ms the browser's processes have used so far (exposed by bench/run.ts; undefined where /proc is missing). */
    __benchCpuMs?(): Promise<number | undefined>;
  }
  interface Performance {
    measureUserAgentSpecificMemory?(): Promise<{
      bytes: number;
      breakdown: { bytes: number; types: string[]; attribution: { url: string; scope: string }[] }[];
    }>;
  }
}

/** The database the app worker (src/worker.ts) opens; the cold start and RCP rows use it. */
const APP_DB = 'rcp-engine';
const SCALE_DB = 'bench-scale';

type Req = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

class BenchWorker {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { ok(v: unknown): void; fail(e: Error): void }>();

  constructor(private readonly log: (line: string) => void) {
    this.worker = new Worker(new URL('./bench-worker.ts', import.meta.url), { type: 'module', name: 'bench-worker' });
    this.worker.onmessage = (e: MessageEvent<WorkerReply>) => {
      const m = e.data;
      if ('log' in m) return this.log(m.log);
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.ok) p?.ok(m.value);
      else p?.fail(new Error(m.error));
    };
    this.worker.onerror = (e) => {
      const err = new Error(`bench worker error: ${e.message}`);
      for (const p of this.pending.values()) p.fail(err);
      this.pending.clear();
    };
  }

  call<T>(req: Req): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((ok, fail) => {
      this.pending.set(id, { ok: ok as (v: unknown) => void, fail });
      this.worker.postMessage({ ...req, id });
    });
  }

  terminate(): void {
    this.worker.terminate();
  }
}

/** JS heap of the bench worker (bytes), after a GC in it. */
async function workerHeap(w: BenchWorker): Promise<number | undefined> {
  if (typeof performance.measureUserAgentSpecificMemory !== 'function') return undefined;
  await w.call({ cmd: 'gc' });
  const m = await performance.measureUserAgentSpecificMemory();
  let bytes = 0;
  for (const b of m.breakdown) {
    if (b.attribution.some((a) => a.scope === 'DedicatedWorkerGlobalScope' && a.url.includes('bench-worker'))) bytes += b.bytes;
  }
  return bytes;
}

async function coldStart(config: BenchConfig, query: string, withModel: boolean, log: (l: string) => void): Promise<ColdStartResult> {
  const runs: ColdStartResult['runs'] = [];
  for (let i = 0; i < config.coldRuns; i++) {
    const t0 = performance.now();
    const h = bootWorker();
    const client = await h.openClient();
    await client.connect();
    const t1 = performance.now();
    const r = await client.request('retrieve', { query, k: config.k, mode: 'sparse' });
    const t2 = performance.now();
    runs.push({ totalMs: round(t2 - t0, 1), initializeMs: round(t1 - t0, 1), firstRetrieveMs: round(t2 - t1, 1), hits: r.hits.length });
    client.close();
    h.terminate();
    log(`  cold start ${i + 1}: ${round(t2 - t0, 1)} ms (${r.hits.length} hits)`);
  }
  let hybrid: ColdStartResult['hybrid'];
  if (withModel) {
    const t0 = performance.now();
    const h = bootWorker();
    try {
      const client = await h.openClient();
      await client.connect();
      const r = await client.request('retrieve', { query, k: config.k, mode: 'hybrid' });
      hybrid = { totalMs: round(performance.now() - t0, 1), hits: r.hits.length };
      client.close();
    } catch (e) {
      hybrid = { totalMs: NaN, hits: 0, error: e instanceof Error ? e.message : String(e) };
    }
    h.terminate();
    log(`  cold start, first hybrid query: ${hybrid.totalMs} ms${hybrid.error ? ` (${hybrid.error})` : ''}`);
  }
  const inWorker: ColdStartResult['inWorker'] = [];
  for (let i = 0; i < config.coldRuns; i++) {
    const t0 = performance.now();
    const w = new BenchWorker(log);
    const parts = await w.call<Omit<ColdStartResult['inWorker'][number], 'totalMs'>>({ cmd: 'coldOpen', db: APP_DB, query, k: config.k });
    inWorker.push({ ...parts, totalMs: round(performance.now() - t0, 1) });
    w.terminate();
  }
  return { size: config.coldSize, runs, hybrid, inWorker };
}

/**
 * A fresh bench worker opens the scale database at this size (no corpus loaded): store open,
 * Engine.open, the first sparse answer, then the first dense one (which builds the vector blocks).
 */
async function scaleColdStart(bench: BenchWorker, size: number, query: string, log: (l: string) => void): Promise<ScaleColdStart> {
  const dense = await bench.call<{ identity: string; vector: Float32Array }>({ cmd: 'queryVector', query });
  const t0 = performance.now();
  const w = new BenchWorker(log);
  const r = await w.call<{ openStoreMs: number; loadMs: number; storeLoadMs: number; firstQueryMs: number; firstDenseMs: number; spans: string; at: number }>({
    cmd: 'coldOpen',
    db: SCALE_DB,
    query,
    k: config0.k,
    dense,
  });
  const end = r.at - performance.timeOrigin;
  w.terminate();
  const toDense = end - t0;
  const out: ScaleColdStart = {
    openStoreMs: r.openStoreMs,
    loadMs: r.loadMs,
    storeLoadMs: r.storeLoadMs,
    firstSparseMs: r.firstQueryMs,
    firstDenseMs: r.firstDenseMs,
    toFirstSparseMs: round(toDense - r.firstDenseMs, 1),
    toFirstDenseMs: round(toDense, 1),
  };
  log(`  cold start at ${size}: first sparse answer ${out.toFirstSparseMs} ms, first dense ${out.toFirstDenseMs} ms after new Worker`);
  log(`  cold start at ${size}, store calls (ms after Engine.open began): ${r.spans}`);
  return out;
}

let config0: BenchConfig;

async function rcpOverhead(config: BenchConfig, queries: string[], withModel: boolean, bench: BenchWorker): Promise<RcpOverheadResult> {
  const h = bootWorker();
  const client = await h.openClient();
  await client.connect();
  const params = (query: string) => ({ query, k: config.k, mode: 'sparse' as const, includeText: false });
  // The app worker loads its model in the background; let that finish so it does not share the timed window.
  if (withModel) await client.request('retrieve', { query: queries[0], k: 1, mode: 'hybrid' }).catch(() => undefined);
  for (const q of queries.slice(0, config.warmup)) await client.request('retrieve', params(q));
  const ms: number[] = [];
  const server: number[] = [];
  const hits: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const r = await client.request('retrieve', params(q));
    ms.push(performance.now() - t0);
    server.push(r.usage?.latencyMs ?? NaN);
    hits.push(r.hits.length);
  }
  client.close();
  h.terminate();
  const inWorker = await bench.call<Latency>({ cmd: 'queries', db: APP_DB, queries, k: config.k, warmup: config.warmup });
  return { size: config.coldSize, rcp: summarize(ms, hits), inWorker, serverReported: summarize(server, hits) };
}

async function run(config: BenchConfig): Promise<BenchResult> {
  const started = performance.now();
  config0 = config;
  const lines: string[] = [];
  const log = (l: string) => {
    lines.push(l);
    console.log(`[bench] ${l}`);
  };
  const bench = new BenchWorker(log);
  const loaded = await bench.call<{ passages: number; queries: number; ms: number }>({ cmd: 'load', corpusUrl: '/bench-corpus.json', config });
  await bench.call({ cmd: 'gc' });
  log(`corpus: ${loaded.passages} passages, ${loaded.queries} queries (loaded in ${loaded.ms} ms)`);
  const queries: string[] = await (await fetch('/bench-queries.json')).json();

  // 1. The embedder (dense/hybrid rows): loaded once, the corpus embedded once.
  log('embedder');
  const embedder = await bench.call<EmbedderInfo>({ cmd: 'embedder' });
  log(embedder.available ? `  ${embedder.identity} on ${embedder.device}, ${embedder.embedPerSec} passages/s` : `  n/a: ${embedder.reason}`);

  // 2. A persisted index for the app worker (with vectors, as the app builds it when it has a
  // model), then cold starts and RCP round trips against it.
  log(`populating '${APP_DB}' with ${config.coldSize} documents`);
  const populate = await bench.call<IngestStat>({ cmd: 'populate', db: APP_DB, size: config.coldSize, withVectors: true });
  log(`  ${populate.perSec} chunks/s`);
  const withModel = embedder.available;
  const cold = await coldStart(config, queries[0], withModel, log);
  log('RCP round trips');
  const rcp = await rcpOverhead(config, queries.slice(0, config.queries), withModel, bench);

  // 3. Heap baseline: corpus (and vectors) loaded, no index.
  const base = await workerHeap(bench);

  // 4. Scale runs: the engine grows in one database; baselines are rebuilt at each size.
  const sizes: SizeResult[] = [];
  const stage = <T>(size: number, phase: StagePhase) => bench.call<T>({ cmd: 'stage', db: SCALE_DB, size, phase });
  for (const size of config.sizes) {
    log(`size ${size}`);
    const notes: string[] = [];
    const ing = await stage<{ ingest: IngestStat; idbBytes: number; idbUsage: { usage: number; idb?: number } }>(size, 'engine-ingest');
    log(`  ingest ${ing.ingest.chunks} chunks: ${ing.ingest.perSec} chunks/s`);
    const heapAfterIngest = await workerHeap(bench);
    const q = await stage<{
      open: { openStoreMs: number; loadMs: number; storeLoadMs: number };
      chunks: number;
      latency: SystemAtSize['latency'];
      textFetchMs: number;
    }>(size, 'engine-query');
    const heapEngine = await workerHeap(bench);
    notes.push(
      `engine reopened from IndexedDB before querying (${q.chunks} chunks): Engine.open ${q.open.loadMs} ms, of which IndexStore.load ${q.open.storeLoadMs} ms ` +
        `(IndexedDB reads + structured clone) and ${round(q.open.loadMs - q.open.storeLoadMs, 1)} ms rebuilding the view; store open ${q.open.openStoreMs} ms`,
    );
    notes.push(
      `ingest: ${ing.ingest.perSec} chunks/s, of which IndexStore.commit took ${ing.ingest.commitMs} of ${ing.ingest.ms} ms ` +
        `(${round((100 * (ing.ingest.commitMs ?? 0)) / ing.ingest.ms, 0)}%); the rest is analysis, segment building and merges`,
    );
    notes.push(`sparse+text: ${q.textFetchMs} ms per query inside IndexStore.getDocuments/getChunks (the text of the hits)`);
    if (heapAfterIngest !== undefined && base !== undefined) {
      notes.push(`engine heap right after ingest (retained versions included): ${round((heapAfterIngest - base) / size, 1)} B/chunk`);
    }
    const engine: SystemAtSize = {
      ingest: ing.ingest,
      idbBytesPerChunk: round(ing.idbBytes / size, 1),
      heapBytesPerChunk: heapEngine !== undefined && base !== undefined ? round((heapEngine - base) / size, 1) : undefined,
      latency: q.latency,
    };
    const result: SizeResult = { size, engine, notes };
    if (embedder.available) result.cold = await scaleColdStart(bench, size, queries[0], log);
    if (config.baselines && size > config.peersMax) {
      notes.push(`MiniSearch, Orama, edgevec and EntityDB not run at this size (--peers-max ${config.peersMax}): see their build rates at the largest size they ran`);
    }
    if (config.baselines && size <= config.peersMax) {
      // A baseline that fails (e.g. out of stack at 100k) becomes a note, not a failed run.
      const baseline = async (phase: 'minisearch' | 'orama' | 'edgevec' | 'entitydb'): Promise<SystemAtSize | undefined> => {
        try {
          const x = await stage<{ ingest: IngestStat; latency: SystemAtSize['latency'] }>(size, phase);
          const heap = await workerHeap(bench);
          return { ...x, heapBytesPerChunk: heap !== undefined && heapEngine !== undefined ? round((heap - heapEngine) / size, 1) : undefined };
        } catch (e) {
          notes.push(`${phase} failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
          return undefined;
        } finally {
          await stage(size, 'drop');
        }
      };
      result.minisearch = await baseline('minisearch');
      result.orama = await baseline('orama');
      if (embedder.available) {
        result.edgevec = await baseline('edgevec');
        result.entitydb = await baseline('entitydb');
      }
    }
    sizes.push(result);
  }
  bench.terminate();
  return {
    userAgent: navigator.userAgent,
    hardwareConcurrency: navigator.hardwareConcurrency,
    heapMethod:
      typeof performance.measureUserAgentSpecificMemory === 'function'
        ? 'performance.measureUserAgentSpecificMemory() from the page, bench-worker entries only, after gc() in the worker'
        : 'unavailable',
    storageMethod: 'navigator.storage.estimate().usage delta (whole origin) in the worker',
    config,
    embedder,
    sizes,
    cold,
    rcp,
    totalMs: round(performance.now() - started, 0),
    log: lines,
  };
}

/**
 * `--ingest-only`: the engine's ingest alone (synthetic vectors given at add time, so no
 * embedding), size after size in one database, with the CPU time the whole browser spent on each
 * (a measure that other load on a shared machine inflates far less than wall time).
 */
async function runIngest(config: BenchConfig): Promise<IngestOnlyResult[]> {
  const log = (l: string) => console.log(`[bench] ${l}`);
  const bench = new BenchWorker(log);
  await bench.call({ cmd: 'load', corpusUrl: '/bench-corpus.json', config });
  await bench.call<EmbedderInfo>({ cmd: 'embedder' });
  const out: IngestOnlyResult[] = [];
  for (const size of config.sizes) {
    const cpu0 = await window.__benchCpuMs?.();
    const { ingest, witness } = await bench.call<{ ingest: IngestStat; witness: { writes: number; ms: number } }>({ cmd: 'stage', db: SCALE_DB, size, phase: 'engine-ingest' });
    const cpu1 = await window.__benchCpuMs?.();
    const firstSparseMs: number[] = [];
    for (let i = 0; i < (config.firstAnswerRuns ?? 0); i++) {
      // A new worker on this index as the ingest left it, as a reload gets it: from `new Worker` to its first sparse answer (the open's recovery-log check included).
      const t0 = performance.now();
      const w = new BenchWorker(log);
      const r = await w.call<{ firstQueryMs: number; at: number }>({ cmd: 'coldOpen', db: SCALE_DB, query: 'the people of the sea', k: config.k, recoveryLog: config.recoveryLog });
      w.terminate();
      firstSparseMs.push(round(r.at - performance.timeOrigin - t0, 1));
    }
    if (firstSparseMs.length) log(`  first sparse answer at ${size} after new Worker: ${firstSparseMs.join(' · ')} ms`);
    // Last: it compacts the log (to measure what a compaction leaves), which the ingest did not, and the CPU time is read before it.
    const bytes = await bench.call<IngestOnlyResult['bytes']>({ cmd: 'logBytes' });
    out.push({ size, ingest, witness, bytes, ...(firstSparseMs.length ? { firstSparseMs } : {}), ...(cpu0 !== undefined && cpu1 !== undefined ? { cpuMs: round(cpu1 - cpu0, 0) } : {}) });
    log(`  ingest to ${size}: ${ingest.chunks} chunks, ${ingest.perSec} chunks/s, ${cpu1 !== undefined && cpu0 !== undefined ? `${round(cpu1 - cpu0, 0)} ms CPU` : 'CPU n/a'}`);
  }
  bench.terminate();
  return out;
}

window.runBench = run;
window.runIngest = runIngest;
window.benchReady = true;

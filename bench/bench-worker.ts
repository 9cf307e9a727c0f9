/**
 * The bench worker: runs every measurement that needs the engine, MiniSearch or Orama inside one
 * dedicated worker, so the three systems share the same JS engine, thread and conditions and the
 * page's main thread stays free (it only orchestrates and measures memory).
 *
 * Our engine is the real one: `Engine` over `openIndexedDbStore` (IndexedDB), through its public
 * API only.
 */
import MiniSearch from 'minisearch';
import { create, insertMultiple, search, type AnyOrama } from '@orama/orama';
import { Engine } from '../src/engine/engine.ts';
import { retrieveInProcess } from '../src/server/front-door.ts';
import type { Embedder, IndexStore } from '../src/engine/contracts.ts';
import { openIndexedDbStore } from '../src/storage/index.ts';
import type { RetrieveParams } from '../src/protocol/types.ts';
import { round, timeQueries } from './stats.ts';
import type {
  BenchConfig, BenchCorpus, BenchPassage, EmbedderInfo, IngestStat, Latency, StagePhase, WorkerReply, WorkerRequest,
} from './types.ts';

declare const self: DedicatedWorkerGlobalScope;
const gc = (globalThis as { gc?: () => void }).gc;

let corpus: BenchCorpus | undefined;
let config: BenchConfig | undefined;

// Dense: the real embedder, the corpus vectors computed once with it, and a wrapper that serves
// those vectors to the engine at add time (queries always go to the real model).
let embedder: (Embedder & { device?: string }) | undefined;
let vectors: Float32Array | undefined;
let vectorOf: Map<string, number> | undefined;
let cached: Embedder | undefined;

// The engine under test (scale runs) and the other systems.
let engine: Engine | undefined;
let store: IndexStore | undefined;
let engineDb = '';
let engineCount = 0;
let idbBefore: number | undefined;
let mini: MiniSearch | undefined;
/** Mean time per sparse+text query spent in the store's text reads (last measured). */
let textFetchMs = NaN;
let orama: AnyOrama | undefined;

const log = (line: string): void => self.postMessage({ log: line } satisfies WorkerReply);
const passages = (): BenchPassage[] => corpus!.passages;
const cfg = (): BenchConfig => config!;

async function storageUsage(): Promise<{ usage: number; idb?: number }> {
  const e = (await navigator.storage.estimate()) as StorageEstimate & { usageDetails?: Record<string, number> };
  return { usage: e.usage ?? 0, idb: e.usageDetails?.indexedDB };
}

/** Timed queries for this size: all queries below `reducedAt`, else the reduced count. */
function queriesFor(size: number): string[] {
  const c = cfg();
  const qs = corpus!.queries;
  return size >= c.reducedAt ? qs.slice(0, c.reducedQueries) : qs.slice(0, c.queries);
}

/** Time spent inside the store, by method (ms), to split engine work from IndexedDB work. */
const storeMs = { load: 0, commit: 0, getDocuments: 0, getChunks: 0 };

/** The store with its calls timed into `storeMs` (the engine sees an ordinary IndexStore; other methods pass through). */
function timed(s: IndexStore): IndexStore {
  return new Proxy(s, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      const method = v as (...args: unknown[]) => unknown;
      if (typeof prop !== 'string' || !(prop in storeMs)) return method.bind(target);
      const key = prop as keyof typeof storeMs;
      return async (...args: unknown[]) => {
        const t0 = performance.now();
        try {
          return await method.apply(target, args);
        } finally {
          storeMs[key] += performance.now() - t0;
        }
      };
    },
  });
}

function resetStoreMs(): void {
  storeMs.load = storeMs.commit = storeMs.getDocuments = storeMs.getChunks = 0;
}

async function openEngine(db: string, withEmbedder: boolean): Promise<{ openStoreMs: number; loadMs: number; storeLoadMs: number }> {
  const t0 = performance.now();
  const s = timed(await openIndexedDbStore(db));
  const t1 = performance.now();
  const e = new Engine({ store: s, embedder: withEmbedder ? cached : undefined });
  resetStoreMs();
  await e.open();
  const t2 = performance.now();
  store = s;
  engine = e;
  engineDb = db;
  return { openStoreMs: round(t1 - t0), loadMs: round(t2 - t1), storeLoadMs: round(storeMs.load) };
}

function closeEngine(): void {
  store?.close();
  store = undefined;
  engine = undefined;
}

async function addRange(from: number, to: number, batch = cfg().addBatch): Promise<IngestStat> {
  resetStoreMs();
  const t0 = performance.now();
  for (let at = from; at < to; at += batch) {
    const docs = passages().slice(at, Math.min(to, at + batch)).map((p) => ({ id: p.id, text: p.text, meta: p.meta }));
    await engine!.add(docs);
  }
  const ms = performance.now() - t0;
  return { chunks: to - from, ms: round(ms, 1), perSec: round(((to - from) / ms) * 1000, 0), commitMs: round(storeMs.commit, 1) };
}

const retrieveHits = async (params: RetrieveParams): Promise<number> => (await retrieveInProcess(engine!, params)).hits.length;

async function engineLatencies(size: number): Promise<Record<string, Latency | string>> {
  const { k, warmup } = cfg();
  const qs = queriesFor(size);
  const out: Record<string, Latency | string> = {};
  log(`  engine sparse (${qs.length} queries)`);
  out['sparse'] = await timeQueries(qs, warmup, (query) => retrieveHits({ query, k, mode: 'sparse', includeText: false }));
  resetStoreMs();
  out['sparse+text'] = await timeQueries(qs, warmup, (query) => retrieveHits({ query, k, mode: 'sparse', includeText: true }));
  const reads = qs.length + Math.min(warmup, qs.length);
  textFetchMs = round((storeMs.getDocuments + storeMs.getChunks) / reads);
  const modes = engine!.capabilities().retrieve?.modes ?? [];
  for (const mode of ['dense', 'hybrid'] as const) {
    if (!modes.includes(mode)) {
      out[mode] = 'n/a (no embedder)';
      continue;
    }
    log(`  engine ${mode}`);
    out[mode] = await timeQueries(qs, warmup, (query) => retrieveHits({ query, k, mode, includeText: false }));
  }
  return out;
}

function buildMini(size: number): IngestStat {
  const t0 = performance.now();
  const m = new MiniSearch({ fields: ['text'], idField: 'id' });
  m.addAll(passages().slice(0, size).map((p) => ({ id: p.id, text: p.text })));
  const ms = performance.now() - t0;
  mini = m;
  return { chunks: size, ms: round(ms, 1), perSec: round((size / ms) * 1000, 0) };
}

async function buildOrama(size: number): Promise<IngestStat> {
  const dim = embedder?.dimension;
  const schema: Record<string, string> = { id: 'string', text: 'string' };
  if (vectors && dim) schema.embedding = `vector[${dim}]`;
  // Orama's schema check wants plain arrays; converting them is not counted.
  const docs = passages()
    .slice(0, size)
    .map((p, i) => (vectors && dim ? { id: p.id, text: p.text, embedding: Array.from(vectors.subarray(i * dim, (i + 1) * dim)) } : { id: p.id, text: p.text }));
  const t0 = performance.now();
  const db = create({ schema: schema as never });
  await insertMultiple(db, docs as never, 1000);
  const ms = performance.now() - t0;
  orama = db as AnyOrama;
  return { chunks: size, ms: round(ms, 1), perSec: round((size / ms) * 1000, 0) };
}

async function oramaLatencies(size: number): Promise<Record<string, Latency | string>> {
  const { k, warmup } = cfg();
  const qs = queriesFor(size);
  const db = orama!;
  const hitsOf = (r: unknown): number => (r as { hits: unknown[] }).hits.length;
  const out: Record<string, Latency | string> = {};
  out['lexical'] = await timeQueries(qs, warmup, async (term) => hitsOf(await search(db, { term, limit: k, properties: ['text'] } as never)));
  if (!vectors || !embedder) {
    out['hybrid'] = 'n/a (no embedder)';
    return out;
  }
  const e = embedder;
  log('  orama hybrid');
  // Same model as ours, query embedded per query (as our engine does inside retrieve).
  out['hybrid'] = await timeQueries(qs, warmup, async (term) => {
    const [value] = await e.embed([term], 'query');
    return hitsOf(await search(db, { mode: 'hybrid', term, vector: { value, property: 'embedding' }, limit: k } as never));
  });
  // The search alone, query vectors precomputed: Orama's own cost.
  const qv = new Map<string, Float32Array>();
  for (const q of qs) qv.set(q, (await e.embed([q], 'query'))[0]);
  out['hybrid (search only)'] = await timeQueries(qs, warmup, async (term) =>
    hitsOf(await search(db, { mode: 'hybrid', term, vector: { value: qv.get(term)!, property: 'embedding' }, limit: k } as never)),
  );
  return out;
}

async function loadEmbedder(): Promise<EmbedderInfo> {
  if (!cfg().dense) return { available: false, reason: 'disabled (--no-dense)' };
  const t0 = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const { TransformersEmbedder } = await import('../src/models/index.ts');
    const loading = TransformersEmbedder.load({ device: 'wasm' });
    const e = await Promise.race([
      loading,
      new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`load timed out after ${cfg().embedderTimeoutMs} ms`)), cfg().embedderTimeoutMs))),
    ]);
    clearTimeout(timer);
    const loadMs = performance.now() - t0;
    embedder = e;
    // Embed the whole corpus once (vectors shared with Orama); report its throughput.
    const ps = passages();
    const dim = e.dimension;
    const out = new Float32Array(ps.length * dim);
    const t1 = performance.now();
    const step = 512;
    for (let at = 0; at < ps.length; at += step) {
      const vs = await e.embed(ps.slice(at, at + step).map((p) => p.text), 'document');
      vs.forEach((v, j) => out.set(v, (at + j) * dim));
      if ((at / step) % 40 === 0) log(`  embedded ${at + vs.length}/${ps.length}`);
    }
    const embedMs = performance.now() - t1;
    vectors = out;
    vectorOf = new Map(ps.map((p, i) => [p.text, i]));
    const byText = vectorOf;
    cached = {
      identity: e.identity,
      dimension: dim,
      normalized: e.normalized,
      async embed(texts, kind, signal) {
        if (kind === 'document') {
          const idx = texts.map((t) => byText.get(t));
          if (idx.every((i) => i !== undefined)) return idx.map((i) => out.slice(i! * dim, (i! + 1) * dim));
        }
        return e.embed(texts, kind, signal);
      },
    };
    const qs = corpus!.queries.slice(0, 50);
    const t2 = performance.now();
    for (const q of qs) await e.embed([q], 'query');
    const queryEmbedMs = (performance.now() - t2) / qs.length;
    return {
      available: true,
      identity: e.identity,
      device: (e as { device?: string }).device,
      dimension: dim,
      loadMs: round(loadMs, 1),
      embedPerSec: round((ps.length / embedMs) * 1000, 0),
      queryEmbedMs: round(queryEmbedMs),
    };
  } catch (err) {
    clearTimeout(timer);
    embedder = undefined;
    vectors = undefined;
    return { available: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

async function stage(db: string, size: number, phase: StagePhase): Promise<unknown> {
  switch (phase) {
    case 'engine-ingest': {
      if (!engine || engineDb !== db) {
        await openEngine(db, cached !== undefined);
        engineCount = engine!.stats().chunks;
        idbBefore = (await storageUsage()).usage;
      }
      const ingest = await addRange(engineCount, size);
      engineCount = size;
      const u = await storageUsage();
      await new Promise((ok) => setTimeout(ok, 1000));
      const later = await storageUsage();
      log(`  storage estimate: ${u.usage - (idbBefore ?? 0)} B right after, ${later.usage - (idbBefore ?? 0)} B 1 s later`);
      return { ingest, idbBytes: later.usage - (idbBefore ?? 0), idbUsage: later };
    }
    case 'engine-query': {
      // Reopen from IndexedDB first: queries (and the heap) are measured on the state a reload gives.
      closeEngine();
      const open = await openEngine(db, cached !== undefined);
      const chunks = engine!.stats().chunks;
      const latency = await engineLatencies(size);
      return { open, chunks, latency, textFetchMs };
    }
    case 'minisearch': {
      log('  minisearch');
      const ingest = buildMini(size);
      const { k, warmup } = cfg();
      const latency = { lexical: await timeQueries(queriesFor(size), warmup, (q) => Math.min(k, mini!.search(q).length)) };
      return { ingest, latency };
    }
    case 'orama': {
      log('  orama');
      const ingest = await buildOrama(size);
      return { ingest, latency: await oramaLatencies(size) };
    }
    case 'drop':
      mini = undefined;
      orama = undefined;
      return null;
  }
}

async function handle(req: WorkerRequest): Promise<unknown> {
  switch (req.cmd) {
    case 'load': {
      config = req.config;
      const t0 = performance.now();
      corpus = (await (await fetch(req.corpusUrl)).json()) as BenchCorpus;
      return { passages: corpus.passages.length, queries: corpus.queries.length, ms: round(performance.now() - t0, 1) };
    }
    case 'populate': {
      // As the app's worker would have built it (with the model's vectors when there is one); closed afterwards.
      await openEngine(req.db, req.withVectors && cached !== undefined);
      const before = engine!.stats().chunks;
      const ingest = await addRange(before, req.size);
      closeEngine();
      return ingest;
    }
    case 'coldOpen': {
      const open = await openEngine(req.db, false);
      const t0 = performance.now();
      await retrieveInProcess(engine!, { query: req.query, k: req.k, mode: 'sparse' });
      const firstQueryMs = round(performance.now() - t0);
      closeEngine();
      return { ...open, firstQueryMs };
    }
    case 'queries': {
      await openEngine(req.db, false);
      const lat = await timeQueries(req.queries, req.warmup, (query) => retrieveHits({ query, k: req.k, mode: 'sparse', includeText: false }));
      closeEngine();
      return lat;
    }
    case 'embedder':
      return loadEmbedder();
    case 'stage':
      return stage(req.db, req.size, req.phase);
    case 'gc':
      gc?.();
      return gc !== undefined;
  }
}

self.onmessage = (e: MessageEvent<WorkerRequest>) => {
  const req = e.data;
  handle(req).then(
    (value) => self.postMessage({ id: req.id, ok: true, value } satisfies WorkerReply),
    (err: unknown) => self.postMessage({ id: req.id, ok: false, error: err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err) } satisfies WorkerReply),
  );
};

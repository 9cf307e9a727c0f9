/**
 * The bench worker: runs every measurement that needs the engine, MiniSearch or Orama inside one
 * dedicated worker, so the three systems share the same JS engine, thread and conditions and the
 * page's main thread stays free (it only orchestrates and measures memory).
 *
 * Our engine is the real one: `Engine` over `openIndexedDbStore` (IndexedDB), through its public
 * API only.
 */
import MiniSearch from 'minisearch';
import { search, type AnyOrama } from '@orama/orama';
import { Engine } from '../src/engine/engine.ts';
import { retrieveInProcess } from '../src/server/retrieve-plan.ts';
import type { Embedder, IndexStore } from '../src/engine/contracts.ts';
import { openIndexedDbStore } from '../src/storage/index.ts';
import { memoryWitnessFile, opfsWitnessFile, Witness, type WitnessFile } from '../src/storage/witness.ts';
import { opfsLogFolder } from '../src/storage/recovery/log-files.ts';
import { withRecoveryLog, type LoggedStore } from '../src/storage/recovery/logged-store.ts';
import type { RetrieveParams } from '../src/protocol/types.ts';
import { round, timeQueries } from './stats.ts';
import { denseTuning } from '../src/engine/index/vectors/tuning.ts';
import { presetKey, type PresetVectors } from '../src/engine/index/prepare.ts';
import { buildOramaVectors, oramaVector, recallAt10, runEdgevec, runEntityDb, type PeerInput } from './peers.ts';
import { SyntheticVectors, exactTopK, hash } from './vectors.ts';
import type {
  BenchConfig, BenchCorpus, BenchPassage, EmbedderInfo, IngestStat, Latency, StagePhase, WorkerReply, WorkerRequest,
} from './types.ts';

declare const self: DedicatedWorkerGlobalScope;
const gc = (globalThis as { gc?: () => void }).gc;

let corpus: BenchCorpus | undefined;
let config: BenchConfig | undefined;

// Dense: synthetic clustered 384-d vectors (bench/vectors.ts) for every passage and query, served
// to the engine by an Embedder that looks texts up, and given as they are to the other systems.
let embedder: Embedder | undefined;
let vectors: Float32Array | undefined;
let queryVectors: Float32Array[] = [];
let cached: Embedder | undefined;
/** Exact top-10 passage indices per recall query, per index size. */
const truths = new Map<number, Int32Array[]>();

// The engine under test (scale runs) and the other systems.
let engine: Engine | undefined;
let store: IndexStore | undefined;
/** The recovery log around the store, when the config keeps one (as the app's worker does). */
let logged: LoggedStore | undefined;
let engineDb = '';
let engineHasEmbedder = false;
let engineCount = 0;
/** A cold-start worker has no config: whether it keeps the recovery log, when the page said. */
let coldRecoveryLog: boolean | undefined;
let idbBefore: number | undefined;
let mini: MiniSearch | undefined;
/** Mean time per sparse+text query spent in the store's text reads (last measured). */
let textFetchMs = NaN;
let orama: AnyOrama | undefined;

const log = (line: string): void => self.postMessage({ log: line } satisfies WorkerReply);
const passages = (): BenchPassage[] => corpus!.passages;
const cfg = (): BenchConfig => config!;

/** The recovery log's bytes after the ingest, and its base snapshot's after a compaction (what the log holds at least). */
async function logBytes(): Promise<{ log: number; logBase: number }> {
  if (!logged) return { log: 0, logBase: 0 };
  await logged.flushed();
  const before = logged.backlog;
  await logged.compact();
  return { log: before.baseBytes + before.entryBytes, logBase: logged.backlog.baseBytes };
}

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
const storeMs = { load: 0, commit: 0, getDocuments: 0, getChunks: 0, loadVectors: 0 };
/** Start and end (performance.now()) of each timed store call, for the cold-start split. */
let storeSpans: { call: string; start: number; end: number }[] = [];

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
        const span = { call: key, start: t0, end: NaN }; // NaN: still running when reported
        storeSpans.push(span);
        try {
          return await method.apply(target, args);
        } finally {
          span.end = performance.now();
          storeMs[key] += span.end - t0;
        }
      };
    },
  });
}

function resetStoreMs(): void {
  storeMs.load = storeMs.commit = storeMs.getDocuments = storeMs.getChunks = storeMs.loadVectors = 0;
  storeSpans = [];
}

/** The witness's writes since the bench began (count, ms): what the record costs, off the commit's path. */
const witnessWrites = { count: 0, ms: 0 };
function timedWitness(file: WitnessFile): WitnessFile {
  return {
    read: () => file.read(),
    async write(text) {
      const t0 = performance.now();
      try {
        await file.write(text);
      } finally {
        witnessWrites.count++;
        witnessWrites.ms += performance.now() - t0;
      }
    },
  };
}

async function openEngine(db: string, withEmbedder: boolean): Promise<{ openStoreMs: number; loadMs: number; storeLoadMs: number }> {
  const t0 = performance.now();
  // A cold-start worker (coldOpen) gets no config, only reads, and keeps the app's defaults.
  const idb = await openIndexedDbStore(db, { durability: config?.durability ?? 'default' });
  logged = (config?.recoveryLog ?? coldRecoveryLog ?? true) ? withRecoveryLog(idb, { folder: opfsLogFolder(), database: db }) : undefined;
  const s = timed(logged ?? idb);
  const t1 = performance.now();
  // As the app's worker: the record of what the index holds, written after each commit.
  const witness = (config?.witness ?? true) ? new Witness(timedWitness(opfsWitnessFile(db) ?? memoryWitnessFile())) : undefined;
  const e = new Engine({ store: s, embedder: withEmbedder ? cached : undefined, onCommitted: witness && ((summary) => witness.note(summary)) });
  engineHasEmbedder = withEmbedder && cached !== undefined;
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

/**
 * Passages [from, to) with their own vectors, as the exact top 10 and the peers have them. The
 * embedder answers by text, so a text that recurs in another document (a duplicated mail, with
 * another title and so another vector) would get its first copy's vector: our index would hold
 * vectors the ground truth does not. Undefined when the engine runs without the synthetic embedder.
 */
function ownVectors(from: number, to: number): PresetVectors | undefined {
  const e = engine && cached && vectors ? cached : undefined;
  if (!e || !engineHasEmbedder) return undefined;
  const dim = e.dimension;
  const ps = passages();
  const rows = new Map<string, Float32Array>();
  for (let i = from; i < to; i++) rows.set(presetKey(ps[i].id, 0, ps[i].text.length), vectors!.subarray(i * dim, (i + 1) * dim));
  return { identity: e.identity, dimension: dim, vectors: rows };
}

async function addRange(from: number, to: number, batch = cfg().addBatch): Promise<IngestStat> {
  resetStoreMs();
  const t0 = performance.now();
  for (let at = from; at < to; at += batch) {
    const end = Math.min(to, at + batch);
    const docs = passages().slice(at, end).map((p) => ({ id: p.id, text: p.text, meta: p.meta }));
    const preset = ownVectors(at, end);
    const r = await engine!.add(docs, preset ? { vectors: preset } : {});
    if (preset && r.vectorsReused !== docs.length) throw new Error(`${r.vectorsReused} of ${docs.length} passage vectors were used`);
  }
  const ms = performance.now() - t0;
  return { chunks: to - from, ms: round(ms, 1), perSec: round(((to - from) / ms) * 1000, 0), commitMs: round(storeMs.commit, 1) };
}

const retrieveHits = async (params: RetrieveParams): Promise<number> => (await retrieveInProcess(engine!, params)).hits.length;

/** Passage index of a hit id (`p000123` → 123). */
const passageIndex = (id: string | number): number => Number(String(id).slice(1));

/** Exact float top 10 of the recall queries over the first `size` passages (computed once per size). */
function truthFor(size: number): Int32Array[] {
  let t = truths.get(size);
  if (!t) {
    const t0 = performance.now();
    const dim = embedder!.dimension;
    t = exactTopK(vectors!, size, dim, queryVectors.slice(0, Math.min(cfg().recallQueries, queryVectors.length)), 10);
    truths.set(size, t);
    log(`  exact top 10 of ${t.length} queries at ${size}: ${round(performance.now() - t0, 0)} ms`);
  }
  return t;
}

async function answers(qs: string[], mode: 'dense' | 'hybrid', count: number): Promise<number[][]> {
  const out: number[][] = [];
  for (const query of qs.slice(0, count)) {
    const r = await retrieveInProcess(engine!, { query, k: 10, mode, includeText: false });
    out.push(r.hits.map((h) => passageIndex(h.id)));
  }
  return out;
}

/** recall@10 of `mine` against `ref` answers (lists of passage indices). */
const recallVs = (mine: number[][], ref: number[][]): number => recallAt10(mine, ref.map((r) => Int32Array.from(r)));

/** Shortlist sizes of our dense frontier (bench/report.ts reads it at recall 0.90 / 0.95 / 0.99). */
export const SHORTLISTS = [50, 100, 200, 400, 800, 1600, 3200];

async function engineLatencies(size: number): Promise<Record<string, Latency | string>> {
  const { k, warmup } = cfg();
  const qs = queriesFor(size);
  const out: Record<string, Latency | string> = {};
  log(`  engine sparse (${qs.length} queries)`);
  out['sparse'] = await timeQueries(qs, warmup, (query) => retrieveHits({ query, k, mode: 'sparse', includeText: false }));
  resetStoreMs();
  out['sparse+text'] = await timeQueries(qs, warmup, (query) => retrieveHits({ query, k, mode: 'sparse', includeText: true }));
  const reads = qs.length * (warmup > 0 ? 2 : 1); // the warm-up pass reads as much as the timed one
  textFetchMs = round((storeMs.getDocuments + storeMs.getChunks) / reads);
  const modes = engine!.capabilities().retrieve?.modes ?? [];
  if (!modes.includes('dense')) {
    out['dense'] = out['hybrid'] = 'n/a (no embedder)';
    return out;
  }
  const truth = truthFor(size);
  const n = truth.length;
  const saved = { ...denseTuning };
  const timed = async (label: string, mode: 'dense' | 'hybrid', set: Partial<typeof denseTuning>, ref?: number[][]): Promise<number[][]> => {
    Object.assign(denseTuning, saved, set);
    log(`  engine ${label}`);
    const lat = await timeQueries(qs, warmup, (query) => retrieveHits({ query, k, mode, includeText: false }));
    const got = await answers(qs, mode, n);
    out[label] = { ...lat, recall10: ref ? recallVs(got, ref) : recallAt10(got, truth) };
    return got;
  };
  try {
    await timed('dense', 'dense', {});
    await timed('dense (exact int8 scan)', 'dense', { exactBelow: Infinity });
    // The recall–latency curve: the Hamming shortlist at fixed sizes (the default grows with k and
    // the index: max(minShortlist 400, 4k, 1000 per million)), each then scored exactly.
    if (size >= saved.exactBelow) { // `denseTuning` still holds the last timed setting here
      for (const n of SHORTLISTS) await timed(`dense (shortlist ${n})`, 'dense', { minShortlist: n, oversample: 0, perMillion: 0 });
    }
    if (size <= 100_000) {
      await timed('dense, JS kernels', 'dense', { kernel: 'js' });
      await timed('dense (exact int8 scan), JS kernel', 'dense', { exactBelow: Infinity, kernel: 'js' });
    }
    // Hybrid's reference: the same fusion over an exact dense scan.
    Object.assign(denseTuning, saved, { exactBelow: Infinity });
    const ref = await answers(qs, 'hybrid', n);
    await timed('hybrid', 'hybrid', {}, ref);
  } finally {
    Object.assign(denseTuning, saved);
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

function peerInput(size: number): PeerInput {
  return {
    size,
    dim: embedder!.dimension,
    vectors: vectors!,
    queries: queriesFor(size).map((_, i) => queryVectors[i]),
    truth: truthFor(size),
    warmup: cfg().warmup,
    k: cfg().k,
    log,
  };
}

async function buildOrama(size: number): Promise<IngestStat> {
  const built = await buildOramaVectors(passages().slice(0, size), peerInput(size));
  orama = built.db;
  return built.ingest;
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
  log('  orama vector');
  out['dense'] = await oramaVector(db, peerInput(size));
  log('  orama hybrid');
  // Query vectors as our engine gets them (looked up per query), Orama's default similarity threshold.
  const e = embedder;
  out['hybrid'] = await timeQueries(qs, warmup, async (term) => {
    const [value] = await e.embed([term], 'query');
    return hitsOf(await search(db, { mode: 'hybrid', term, vector: { value, property: 'embedding' }, limit: k } as never));
  });
  return out;
}

/** Synthetic 384-d vectors for every passage and query (see bench/vectors.ts); replaces a model. */
async function loadEmbedder(): Promise<EmbedderInfo> {
  if (!cfg().dense) return { available: false, reason: 'disabled (--no-dense)' };
  const synth = new SyntheticVectors();
  const dim = synth.dim;
  const ps = passages();
  const t0 = performance.now();
  const out = new Float32Array(ps.length * dim);
  ps.forEach((p, i) => synth.passage(hash(p.text), String(p.meta.title), out, i * dim));
  const genMs = performance.now() - t0;
  const sources = corpus!.querySources;
  queryVectors = corpus!.queries.map((_, j) => synth.query(hash(ps[sources[j]].text), String(ps[sources[j]].meta.title), j));
  vectors = out;
  const byText = new Map<string, number>();
  ps.forEach((p, i) => {
    if (!byText.has(p.text)) byText.set(p.text, i);
  });
  const byQuery = new Map(corpus!.queries.map((q, j) => [q, queryVectors[j]]));
  cached = embedder = {
    identity: 'synthetic-384-clustered@bench',
    dimension: dim,
    normalized: true,
    async embed(texts, kind) {
      return texts.map((t) => {
        if (kind === 'query') {
          const v = byQuery.get(t);
          if (!v) throw new Error(`no vector for query "${t}"`);
          return v;
        }
        const i = byText.get(t);
        if (i === undefined) throw new Error('no vector for a passage');
        return out.slice(i * dim, (i + 1) * dim);
      });
    },
  };
  log(`  ${ps.length} vectors generated in ${round(genMs, 0)} ms`);
  return {
    available: true,
    identity: embedder.identity,
    device: 'synthetic (no model)',
    dimension: dim,
    loadMs: round(genMs, 1),
    embedPerSec: round((ps.length / genMs) * 1000, 0),
    queryEmbedMs: 0,
  };
}

async function stage(db: string, size: number, phase: StagePhase): Promise<unknown> {
  switch (phase) {
    case 'engine-ingest': {
      if (!engine || engineDb !== db) {
        await openEngine(db, cached !== undefined);
        engineCount = engine!.stats().chunks;
        idbBefore = (await storageUsage()).usage;
      }
      const writes0 = { ...witnessWrites };
      const ingest = await addRange(engineCount, size);
      engineCount = size;
      const u = await storageUsage();
      await new Promise((ok) => setTimeout(ok, 1000));
      const later = await storageUsage();
      log(`  storage estimate: ${u.usage - (idbBefore ?? 0)} B right after, ${later.usage - (idbBefore ?? 0)} B 1 s later`);
      const witness = { writes: witnessWrites.count - writes0.count, ms: round(witnessWrites.ms - writes0.ms, 1) };
      return { ingest, idbBytes: later.usage - (idbBefore ?? 0), idbUsage: later, witness };
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
    case 'edgevec':
      log('  edgevec');
      return runEdgevec(peerInput(size));
    case 'entitydb':
      log('  entitydb');
      return runEntityDb(peerInput(size), cfg().entityDbQueries);
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
      // The passages come in parts (one JSON text of 1M passages would near the engine's string limit).
      const head = (await (await fetch(req.corpusUrl)).json()) as BenchCorpus & { parts: number };
      for (let i = 0; i < head.parts; i++) {
        const part = (await (await fetch(req.corpusUrl.replace('.json', `-${i}.json`))).json()) as BenchPassage[];
        for (const p of part) head.passages.push(p);
      }
      corpus = head;
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
      // With `dense`: an embedder that knows only the one query vector (no corpus in this worker).
      const d = req.dense;
      if (d) {
        cached = {
          identity: d.identity,
          dimension: d.vector.length,
          normalized: true,
          embed: async (texts) => texts.map(() => d.vector),
        };
      }
      coldRecoveryLog = req.recoveryLog;
      const opened = performance.now();
      const open = await openEngine(req.db, d !== undefined);
      const t0 = performance.now();
      await retrieveInProcess(engine!, { query: req.query, k: req.k, mode: 'sparse' });
      const firstQueryMs = round(performance.now() - t0);
      let firstDenseMs: number | undefined;
      let t1 = NaN;
      if (d) {
        t1 = performance.now();
        await retrieveInProcess(engine!, { query: req.query, k: req.k, mode: 'dense' });
        firstDenseMs = round(performance.now() - t1);
      }
      // Where the first answer's time went: the store calls since the open (ms after Engine.open began).
      const at = (t: number) => Math.round(t - opened);
      const spans = storeSpans.map((x) => `${x.call} ${at(x.start)}–${Number.isNaN(x.end) ? '…' : at(x.end)}`).join(', ') + `; first sparse ${at(t0)}–${at(t0 + firstQueryMs)}` + (d ? `; first dense ${at(t1)}–${at(t1 + firstDenseMs!)}` : '');
      closeEngine();
      return { ...open, firstQueryMs, firstDenseMs, spans, at: performance.timeOrigin + performance.now() };
    }
    case 'queries': {
      await openEngine(req.db, false);
      const lat = await timeQueries(req.queries, req.warmup, (query) => retrieveHits({ query, k: req.k, mode: 'sparse', includeText: false }));
      closeEngine();
      return lat;
    }
    case 'embedder':
      return loadEmbedder();
    case 'queryVector': {
      const [vector] = await embedder!.embed([req.query], 'query');
      return { identity: embedder!.identity, vector };
    }
    case 'stage':
      return stage(req.db, req.size, req.phase);
    case 'logBytes':
      return { ...(await logBytes()), idb: (await storageUsage()).idb };
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

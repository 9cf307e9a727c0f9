/**
 * Retrieval quality on BEIR-format collections, through the real Engine (in-memory store) and the
 * server's `retrieveInProcess` (the same validation and clamps as a `retrieve` over RCP).
 *
 *   npm run eval -- DIR [DIR ...] [--mode sparse|dense|hybrid] [--fusion rrf|weighted|convex]
 *                  [--k1 N] [--b N] [--stem porter|none] [--stop lucene|nltk|none] [--stop-at query|both]
 *                  [--cjk bigrams|words|both]  (Han/kana/Hangul terms: bigrams, Intl.Segmenter words, or both)
 *                  [--title-weight N] [--no-title] [--chunk] [--unit chunk|document] [--json]
 *                  (--mode local, or `local` in a grid: the `graph` op from the default retrieve's hits)
 *                  [--feedback-split]  (the top 10 default hits of every even query get `feedback` from the
 *                  qrels — helpful when relevant, else not — and only odd queries are evaluated; `prior::β`
 *                  rescores the default retrieve by score × (1 + β·(helpful − unhelpful)/(helpful + unhelpful + 1)))
 *                  [--dense-weight W]  (hybrid: weights {dense:W, sparse:1−W}; convex: alpha=W)
 *                  [--model FOLDER] [--dtype q8|fp32] [--floor COS] [--rerank colbert|cross-encoder]
 *                  [--grid [CONFIGS]] [--no-cache] [--per-query] [--set english|tatoeba|dev]
 *                  [--no-detect-lang]  (documents get no `meta.lang`, so no query-language gate: query/language-gate.ts)
 *
 * --set adds the development collections of ../shared/eval: `english` (cacm, npl, time),
 * `tatoeba` (the 16 cross-lingual tatoeba-<lang>-eng / tatoeba-eng-<lang> sets), `dev` (both). With
 * collections of both kinds, means are reported per group: English macro nDCG@10, tatoeba mean MRR@10.
 *
 * --grid indexes each collection once and runs every configuration of CONFIGS (comma-separated
 * `mode[:fusion[:w]]`, default: sparse, dense, and hybrid with rrf, weighted and convex at their
 * defaults) over it. `minisearch`, `orama` and `orama-hybrid` in CONFIGS are the engines people
 * would pick instead, with their defaults, behind the same RCP surface (src/peers; orama-hybrid
 * gets our model's vectors); the playground's quality harness runs the same code (src/eval). Document vectors are cached by model identity and text in
 * .cache/eval-vectors/ (a 6-layer encoder takes minutes per collection on 2 cores); --no-cache
 * turns that off. --floor sets the embedder's similarity floor (dense matches below it are dropped);
 * without it the model's catalog floor applies (src/models/catalog.ts), as in the worker, and so do
 * the catalog's default fusion weights. A grid's `mode:fusion:w:floor` with an empty floor keeps that.
 *                  [--dense-exact-below N]  (dense: the approximate path from N stored vectors on; 0 = always)
 *
 * Learned sparse (SPLADE-tiny, scripts/lib/splade-lane.ts; a measurement lane, not the product's
 * pipeline), in a grid: `splade` ranks by SPLADE alone; `sparse+splade:FUSION:w` fuses the BM25
 * list and SPLADE's, `hybrid+splade:FUSION:w` the BM25, dense and SPLADE lists (a third fused
 * list), each at depth 100, with `weighted` (BM25 0.6 / dense 0.4 — the engine's default — and
 * SPLADE w; for sparse+splade, BM25 1 − w) or `rrf` (SPLADE weighted w, default 1). w = 0 gives
 * the same fusion without SPLADE, the like-for-like baseline.
 *
 * DIR holds corpus.jsonl ({_id,title,text}), queries.jsonl ({_id,text}) and qrels/test.tsv (with
 * a header). Documents are added with `contextual:true` so `title` is indexed as the context
 * field (weight --title-weight). Every query runs with k=100 (with --rerank: k = --rerank-top, so
 * R@100 is then recall at that depth). Metrics are averaged over queries
 * with ≥ 1 relevant qrel: nDCG@10 (linear gain), Recall@50, Recall@100, MRR@10 — as shared/eval/bm25_eval.py
 * (src/eval/metrics.ts). --json --per-query adds every query's scores and top 10.
 * dense/hybrid load the project's embedder (src/models `loadEmbedder`) from public/models/
 * (built by `npm run models`); --dtype q8|fp32 picks its weights; --runtime kernels runs it on our
 * own WASM encoder kernels instead of onnxruntime-node (the worker's runtime for the models we build).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Engine, type EngineOptions } from '../src/engine/engine.ts';
import { readCollection } from './lib/beir-files.ts';
import { runConfig, type ConfigRun, type RunConfig as HarnessConfig } from '../src/eval/harness.ts';
import { isPeer, loadCollection, peerClient } from '../src/eval/engines.ts';
import { MemoryStore } from '../src/storage/memory-store.ts';
import { loadLanguageDetector } from '../src/engine/analysis/language.ts';
import type { Embedder } from '../src/engine/contracts.ts';
import type { TransformersEmbedder } from '../src/models/embedder.ts';
import type { Hit, RetrieveParams, RetrieveResult } from '../src/protocol/types.ts';
import { inProcessCapabilities, retrieveInProcess } from '../src/server/retrieve-plan.ts';
import { denseTuning } from '../src/engine/index/vectors/tuning.ts';
import type { BeirCollection, BeirQuery } from '../src/eval/beir.ts';
import { graphCapability } from '../src/engine/graph/plan.ts';
import { validateGraph } from '../src/protocol/validate-graph.ts';
import { validateFeedback } from '../src/protocol/validate-feedback.ts';
import { CachedEmbedder } from '../cli/vector-cache.ts';
import { fuseRrf, fuseWeighted, type RankedItem, type RankedList } from '../src/protocol/fusion.ts';
import { DEFAULT_FUSION } from '../src/engine/config.ts';
import { SpladeLane } from './lib/splade-lane.ts';
import type { SparseEncoder } from '../src/models/sparse-encoder.ts';
import type { CjkTerms } from '../src/engine/analysis/analyzer.ts';
import { cliArgs } from '../tools/lib/args.ts';

interface Args {
  dirs: string[];
  /**
   * `local`: the `graph` op (personalized PageRank from the default retrieve's hits), for comparison.
   * `prior`: the default retrieve rescored by a feedback prior (needs --feedback-split; `prior::β`).
   */
  mode: 'sparse' | 'dense' | 'hybrid' | 'local' | 'prior' | 'splade' | 'sparse+splade' | 'hybrid+splade';
  fusion?: 'rrf' | 'weighted' | 'convex';
  opts: Record<string, string>;
  flags: Set<string>;
}

const EVAL_DIR = fileURLToPath(new URL('../../shared/eval/', import.meta.url));
const ENGLISH_SETS = ['cacm', 'npl', 'time'];
const TATOEBA_LANGUAGES = ['deu', 'fra', 'spa', 'rus', 'cmn', 'jpn', 'ara', 'hin'];
const TATOEBA_SETS = TATOEBA_LANGUAGES.flatMap((l) => [`tatoeba-${l}-eng`, `tatoeba-eng-${l}`]);
const SETS: Readonly<Record<string, readonly string[]>> = { english: ENGLISH_SETS, tatoeba: TATOEBA_SETS, dev: [...ENGLISH_SETS, ...TATOEBA_SETS] };
const isTatoeba = (name: string): boolean => name.startsWith('tatoeba-');

const USAGE = 'npm run eval -- DIR [DIR ...] [--set english|tatoeba|dev] [--mode sparse|dense|hybrid|…] [--fusion rrf|weighted|convex] [--grid [CONFIGS]] [options above scripts/eval.ts]';
const STRING_OPTIONS = ['mode', 'fusion', 'grid', 'model', 'dtype', 'runtime', 'floor', 'rerank', 'rerank-top', 'dense-weight', 'dense-exact-below', 'k1', 'b', 'title-weight', 'stem', 'stop', 'stop-at', 'cjk', 'unit'] as const;
const BOOLEAN_OPTIONS = ['chunk', 'no-title', 'json', 'no-cache', 'feedback-split', 'per-query', 'no-detect-lang'] as const;

function parseArgs(argv: readonly string[]): Args {
  // A bare `--grid` (last, before another flag, or before a collection folder) means the default grid;
  // node:util's parseArgs has no optional values, so it is given its value here.
  const given = argv.map((a, i) => (a === '--grid' && (argv[i + 1] === undefined || argv[i + 1].startsWith('--') || existsSync(argv[i + 1])) ? `--grid=${DEFAULT_GRID}` : a));
  const { values, positionals } = cliArgs({
    usage: USAGE,
    argv: given,
    positionals: true,
    options: {
      ...Object.fromEntries(STRING_OPTIONS.map((n) => [n, { type: 'string' } as const])),
      ...Object.fromEntries(BOOLEAN_OPTIONS.map((n) => [n, { type: 'boolean' } as const])),
      set: { type: 'string', multiple: true },
    } as Record<(typeof STRING_OPTIONS)[number] | (typeof BOOLEAN_OPTIONS)[number] | 'set', { type: 'string' | 'boolean'; multiple?: boolean }>,
  });
  const dirs = positionals.slice();
  for (const name of (values.set as string[] | undefined) ?? []) {
    const set = SETS[name];
    if (!set) throw new Error(`--set ${name}: one of ${Object.keys(SETS).join(', ')}`);
    dirs.push(...set.map((n) => join(EVAL_DIR, n)));
  }
  const opts: Record<string, string> = {};
  for (const n of STRING_OPTIONS) if (typeof values[n] === 'string') opts[n] = values[n] as string;
  const flags = new Set<string>(BOOLEAN_OPTIONS.filter((n) => values[n] === true));
  return { dirs, mode: (opts.mode as Args['mode']) ?? 'sparse', fusion: opts.fusion as Args['fusion'], opts, flags };
}

/** Every mode, and hybrid with each fusion at its default parameters. */
const DEFAULT_GRID = 'sparse,dense,hybrid:rrf,hybrid:weighted,hybrid:convex';

/** One retrieval configuration of a grid: `mode[:fusion[:w[:floor|none]]]` (empty parts keep defaults, e.g. `dense::`+`:0.3`). */
interface RunConfig {
  label: string;
  mode: Args['mode'];
  fusion?: 'rrf' | 'weighted' | 'convex';
  weight?: number;
  /** The embedder's similarity floor for this configuration (else --floor, else the model's). */
  floor?: number;
}

function parseConfigs(list: string): RunConfig[] {
  return list.split(',').filter(Boolean).map((label) => {
    const [mode, fusion, w, floor] = label.split(':');
    const num = (x: string | undefined) => (x === undefined || x === '' ? undefined : Number(x));
    // floor `none`: no similarity floor at all (empty: the model's own).
    return { label, mode: mode as Args['mode'], fusion: (fusion || undefined) as RunConfig['fusion'], weight: num(w), floor: floor === 'none' ? -Infinity : num(floor) };
  });
}

export interface Metrics {
  ndcg10: number;
  recall50: number;
  recall100: number;
  mrr10: number;
  queries: number;
  docs: number;
  indexMs: number;
  queryMs: number;
  /** Per query (src/eval/harness.ts), for `--per-query`. */
  run: ConfigRun;
}

/** Indexes one collection and evaluates it with the command line's configuration. */
export async function evaluate(dir: string, args: Args, embedder?: Embedder): Promise<Metrics> {
  const w = args.opts['dense-weight'];
  const [m] = await evaluateGrid(dir, args, [{ label: args.mode, mode: args.mode, fusion: args.fusion, weight: w === undefined ? undefined : Number(w) }], embedder);
  return m;
}

/** Indexes one collection once and evaluates every configuration over it. */
export async function evaluateGrid(dir: string, args: Args, configs: RunConfig[], embedder?: Embedder, sparseEncoder?: SparseEncoder): Promise<Metrics[]> {
  const o = args.opts;
  const options: EngineOptions = { store: new MemoryStore(), embedder, limits: { maxDocumentsPerAdd: 1_000_000 } };
  // As the worker: documents get `meta.lang`, and a cross-lingual model's hybrid reads it (--no-detect-lang: neither).
  if (!args.flags.has('no-detect-lang')) options.detectLanguage = loadLanguageDetector;
  if (o.k1 || o.b) options.bm25 = { ...(o.k1 ? { k1: Number(o.k1) } : {}), ...(o.b ? { b: Number(o.b) } : {}) };
  if (o.stem || o.stop || o['stop-at'] || o.cjk) {
    options.analyzer = {
      ...(o.cjk ? { cjk: o.cjk as CjkTerms } : {}),
      ...(o.stem ? { stem: o.stem as 'porter' | 'none' } : {}),
      ...(o.stop ? { stopwords: o.stop as 'lucene' | 'nltk' | 'none' } : {}),
      ...(o['stop-at'] ? { stopwordsAt: o['stop-at'] as 'query' | 'both' } : {}),
    };
  }
  if (o.stem === 'snowball') {
    // Measurement only: Snowball English (Porter2) from the `snowball-stemmers` package.
    type Factory = { newStemmer(l: string): { stem(w: string): string } };
    let mod: Factory;
    try {
      mod = createRequire(import.meta.url)('snowball-stemmers') as Factory;
    } catch {
      throw new Error('--stem snowball needs `npm install --no-save snowball-stemmers` (measurement only)');
    }
    const s = mod.newStemmer('english');
    options.analyzer = { ...options.analyzer, stem: (w: string) => s.stem(w) };
  }
  if (o['title-weight']) options.contextWeight = Number(o['title-weight']);
  if (o.rerank) options.reranker = await loadReranker(o.rerank, embedder);
  const collection = readCollection(dir);
  const out: Metrics[] = [];
  // The engines people would pick instead, behind the same RCP surface (src/peers): indexed through index/add.
  const peerRun = async (cfg: RunConfig): Promise<Metrics> => {
    const name = cfg.label as Parameters<typeof peerClient>[0];
    if (name === 'orama-hybrid' && !embedder) throw new Error('orama-hybrid needs the embedder (a grid with a dense or hybrid config loads it)');
    const client = await peerClient(name, embedder && { fn: (texts, kind) => embedder.embed(texts, kind), dimension: embedder.dimension });
    const t = performance.now();
    await loadCollection(client, collection);
    const indexMs = performance.now() - t;
    const run = await runConfig(name, (p) => client.request('retrieve', p), evaluated, { label: name });
    client.close();
    return metricsOf(run, collection.corpus.length, indexMs);
  };
  const ours = configs.filter((c) => !isPeer(c.label));
  let engine: Engine | undefined;
  let indexMs = 0;
  if (ours.length) {
    engine = new Engine(options);
    await engine.open();
    const t0 = performance.now();
    await engine.add(
      collection.corpus.map((d) => ({ id: d.id, text: d.text, meta: args.flags.has('no-title') || !d.title ? {} : { title: d.title } })),
      { contextual: true, chunk: args.flags.has('chunk') },
    );
    indexMs = performance.now() - t0;
  }
  const lane =
    sparseEncoder && configs.some((c) => usesSplade(c.mode))
      ? await SpladeLane.index(sparseEncoder, collection.corpus.map((d) => ({ id: d.id, text: [d.title, d.text].filter(Boolean).join('\n') })), fileURLToPath(new URL('../.cache/eval-splade/', import.meta.url)))
      : undefined;
  const floor0 = embedder?.minSimilarity;
  const split = args.flags.has('feedback-split');
  if (split && engine) await simulateFeedback(engine, collection.queries.filter((_, i) => i % 2 === 0), collection.qrels);
  const evaluated: BeirCollection = split ? { ...collection, queries: collection.queries.filter((_, i) => i % 2 === 1) } : collection;
  const priors = new Map<string, number>();
  for (const cfg of configs) {
    if (isPeer(cfg.label)) {
      out.push(await peerRun(cfg));
      continue;
    }
    if (embedder) (embedder as { minSimilarity?: number }).minSimilarity = cfg.floor ?? floor0;
    const splade = usesSplade(cfg.mode);
    const plain = cfg.mode === 'sparse' || cfg.mode === 'dense' || cfg.mode === 'hybrid' ? cfg.mode : undefined;
    const run: HarnessConfig = splade ? { label: cfg.label } : { label: cfg.label, mode: plain, fusion: cfg.fusion, weight: cfg.weight };
    // With a rerank: k = topN (rerank.topN must be ≥ k, §3.3), so R@100 is recall at that depth.
    if (o.rerank) run.rerank = { method: o.rerank as 'colbert' | 'cross-encoder', topN: Number(o['rerank-top'] ?? 30) };
    if (o.unit) run.unit = o.unit as 'chunk' | 'document';
    else if (args.flags.has('chunk')) run.unit = 'document';
    const e = engine!;
    // Validated and clamped as over RCP (the server's front door); `local` is the graph op from the same query.
    const retrieve = async (p: RetrieveParams): Promise<RetrieveResult> => {
      if (splade) return spladeRetrieve(e, lane!, cfg, p, embedder);
      if (cfg.mode === 'local') return (await e.graph(validateGraph({ op: 'local', query: p.query, k: p.k }, { ...inProcessCapabilities(e), graph: graphCapability() }))) as RetrieveResult;
      const res = await retrieveInProcess(e, p);
      if (cfg.mode === 'prior') await rescoreByFeedback(e, res.hits ?? [], cfg.weight ?? 0.25, priors);
      return res;
    };
    out.push(metricsOf(await runConfig('rcp-in-page', retrieve, evaluated, run), collection.corpus.length, indexMs));
  }
  return out;
}

const usesSplade = (mode: Args['mode']): boolean => mode === 'splade' || mode.endsWith('+splade');

/** Documents of a retrieve's hits, best rank first, as a ranked list (passage hits count once per document). */
const documentList = (hits: readonly Hit[]): RankedItem[] => {
  const seen = new Set<string>();
  return hits.flatMap((h) => {
    const id = String(h.citation?.source ?? h.id);
    return seen.has(id) ? [] : (seen.add(id), [{ id, score: h.score }]);
  });
};

/** A SPLADE configuration's answer (see the header): SPLADE alone, or fused with the engine's BM25 (and dense) lists. */
async function spladeRetrieve(engine: Engine, lane: SpladeLane, cfg: RunConfig, params: RetrieveParams, embedder: Embedder | undefined): Promise<RetrieveResult> {
  const splade = await lane.search(params.query as string, params.k ?? 100);
  let ranked: RankedItem[] = splade;
  if (cfg.mode !== 'splade') {
    const w = cfg.weight ?? 1;
    const list = async (mode: 'sparse' | 'dense', weight: number): Promise<RankedList> => ({ name: mode, weight, items: documentList((await retrieveInProcess(engine, { ...params, mode, fusion: undefined })).hits) });
    const hybrid = cfg.mode === 'hybrid+splade';
    const weights = embedder?.fusionWeights ?? DEFAULT_FUSION.weights;
    const rrf = cfg.fusion === 'rrf';
    const lists = [
      await list('sparse', rrf ? 1 : hybrid ? weights.sparse : 1 - w),
      ...(hybrid ? [await list('dense', rrf ? 1 : weights.dense)] : []),
      { name: 'splade', weight: w, items: splade },
    ];
    ranked = rrf ? fuseRrf(lists) : fuseWeighted(lists);
  }
  return { hits: ranked.slice(0, params.k ?? 100).map((x) => ({ id: x.id, score: x.score })) } as RetrieveResult;
}

/** Feedback from the qrels on `queries`' top 10 default hits: helpful when relevant, else not. */
async function simulateFeedback(engine: Engine, queries: BeirQuery[], qrels: Map<string, Map<string, number>>): Promise<void> {
  for (const q of queries) {
    const rel = qrels.get(q.id);
    if (!rel) continue;
    const res = await retrieveInProcess(engine, { query: q.text, k: 10, includeText: false });
    const signals = res.hits.map((h) => ({ hitId: String(h.id), helpful: (rel.get(String(h.citation?.source ?? h.id)) ?? 0) > 0 }));
    if (signals.length) await engine.feedback(validateFeedback({ query: q.text, signals }));
  }
}

/** Sorts `hits` by score × (1 + β·prior), prior = (helpful − unhelpful) / (helpful + unhelpful + 1) of the document. */
async function rescoreByFeedback(engine: Engine, hits: Hit[], beta: number, priors: Map<string, number>): Promise<void> {
  for (const h of hits) {
    const doc = String(h.citation?.source ?? h.id);
    if (!priors.has(doc)) {
      const f = await engine.documentFeedback(doc);
      let up = 0;
      let down = 0;
      for (const x of Object.values(f?.hits ?? {})) (up += x.helpful), (down += x.unhelpful);
      priors.set(doc, (up - down) / (up + down + 1));
    }
    h.score *= 1 + beta * priors.get(doc)!;
  }
  hits.sort((a, b) => b.score - a.score);
}

const metricsOf = (run: ConfigRun, docs: number, indexMs: number): Metrics => {
  if (run.failed) throw new Error(`${run.config.label}: ${run.failed} queries failed: ${run.error}`);
  return { ...run.mean, queries: run.queries.length, docs, indexMs, queryMs: run.queryMs, run };
};

/** The reranker a `--rerank` method names: colbert = MaxSim over the embedder's token vectors; cross-encoder from public/models/config.json. */
async function loadReranker(method: string, embedder: Embedder | undefined): Promise<EngineOptions['reranker']> {
  const models = await import('../src/models/index.ts');
  const modelBase = fileURLToPath(new URL('../public/models/', import.meta.url));
  if (method === 'colbert') {
    const { ColbertReranker } = await import('../src/models/colbert-reranker.ts');
    const inner = (embedder as { inner?: unknown } | undefined)?.inner ?? embedder;
    if (!inner || !('tokenVectors' in (inner as object))) throw new Error('--rerank colbert needs --mode dense|hybrid (the embedder gives the token vectors)');
    const e = inner as TransformersEmbedder;
    return new ColbertReranker(e.identity, async () => e);
  }
  const { config } = await models.readModelConfig(modelBase, true);
  if (!config.crossEncoder) throw new Error('--rerank cross-encoder: public/models/config.json names no crossEncoder');
  return models.CrossEncoderReranker.load({ modelBase, model: config.crossEncoder });
}

/** Our kernels' vectors differ in the last bits between their SIMD variants: each gets its own cache. */
const cacheFolderOf = (runtime: string) => runtime.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '');

/**
 * `--runtime kernels`: the model on our own WASM encoder kernels (this thread, no workers), as the
 * worker runs it when they cover the model — so the page's quality harness and this CLI embed with
 * the same arithmetic and agree to 4 decimals (scripts/measure-quality-page.ts).
 */
async function loadOurKernels(settings: { modelBase: string; model?: string; dtype?: 'q8' | 'fp32' }): Promise<Embedder> {
  const { resolveModelFolder, DEFAULT_MODEL } = await import('../src/models/index.ts');
  const { loadEncoder } = await import('../src/models/encoder-choice.ts');
  const folder = await resolveModelFolder(settings.modelBase, settings.model ?? DEFAULT_MODEL, settings.dtype ?? 'q8', true);
  return loadEncoder({ ...settings, runtime: 'kernels', encoderWorkers: 0 }, folder, (_level, message) => console.log(`# ${message}`));
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.dirs.length === 0) {
    console.error(`usage: ${USAGE}`);
    process.exit(2);
  }
  const w = args.opts['dense-weight'];
  const configs = args.opts.grid
    ? parseConfigs(args.opts.grid)
    : [{ label: `${args.mode}${args.fusion ? `:${args.fusion}` : ''}`, mode: args.mode, fusion: args.fusion, weight: w === undefined ? undefined : Number(w) }];
  if (args.opts['dense-exact-below'] !== undefined) denseTuning.exactBelow = Number(args.opts['dense-exact-below']);
  let embedder: Embedder | undefined;
  let cached: CachedEmbedder | undefined;
  if (configs.some((c) => (isPeer(c.label) ? c.label === 'orama-hybrid' : !['sparse', 'splade', 'sparse+splade'].includes(c.mode)))) {
    // The project's embedder (src/models) on the locally built model files (`npm run models`).
    const { loadEmbedder } = await import('../src/models/index.ts');
    const modelBase = fileURLToPath(new URL('../public/models/', import.meta.url));
    const settings = {
      modelBase,
      ...(args.opts.model ? { model: args.opts.model } : {}),
      ...(args.opts.dtype ? { dtype: args.opts.dtype as 'q8' | 'fp32' } : {}),
    };
    const runtime = args.opts.runtime ?? 'transformers.js';
    if (runtime !== 'transformers.js' && runtime !== 'kernels') {
      console.error(`--runtime must be transformers.js or kernels, not '${runtime}'`);
      process.exit(2);
    }
    try {
      embedder = runtime === 'kernels' ? await loadOurKernels(settings) : await loadEmbedder(settings);
    } catch (e) {
      console.error(`dense/hybrid: could not load the embedder from ${modelBase} (run \`npm run models\` first): ${(e as Error).message}`);
      process.exit(2);
    }
    // The product's per-model defaults (src/models/catalog.ts), as the worker applies them; --floor overrides.
    const { catalogEntry } = await import('../src/models/catalog.ts');
    const { DEFAULT_MODEL } = await import('../src/models/settings.ts');
    const entry = catalogEntry(args.opts.model ?? DEFAULT_MODEL);
    const tuned = embedder as { minSimilarity?: number; fusionWeights?: Embedder['fusionWeights']; crossLingual?: boolean };
    tuned.minSimilarity = args.opts.floor !== undefined ? Number(args.opts.floor) : entry?.minSimilarity;
    tuned.fusionWeights = entry?.fusionWeights;
    tuned.crossLingual = entry?.crossLingual;
    const runsOn = (embedder as Embedder & { runtime?: string }).runtime ?? runtime;
    console.log(`# embedder ${embedder.identity} on ${runsOn}${embedder.minSimilarity !== undefined ? ` floor ${embedder.minSimilarity}` : ''}`);
    const cacheDir = `../.cache/eval-vectors/${runtime === 'kernels' ? `${cacheFolderOf(runsOn)}/` : ''}`;
    if (!args.flags.has('no-cache')) embedder = cached = new CachedEmbedder(embedder, fileURLToPath(new URL(cacheDir, import.meta.url)), { queries: true, saveEveryMs: 120_000 });
  }
  const sparseEncoder = configs.some((c) => usesSplade(c.mode)) ? await SpladeLane.encoder(fileURLToPath(new URL('../public/models/', import.meta.url))) : undefined;
  if (sparseEncoder) console.log(`# sparse encoder ${sparseEncoder.identity}`);
  const results: [string, Metrics[]][] = [];
  for (const dir of args.dirs) {
    const name = basename(dir.replace(/\/+$/, ''));
    results.push([name, await evaluateGrid(dir, args, configs, embedder, sparseEncoder)]);
    cached?.save();
    // Each collection's figures as soon as it is done (a grid over an encoder runs for a long time).
    if (!args.flags.has('json')) for (const [i, c] of configs.entries()) console.error(`${name}\t${c.label}\t${results.at(-1)![1][i].ndcg10.toFixed(4)}`);
  }
  if (args.flags.has('json')) {
    const shown = (m: Metrics) => {
      const { run, ...rest } = m;
      return args.flags.has('per-query') ? { ...rest, perQuery: run.queries } : rest;
    };
    console.log(JSON.stringify(Object.fromEntries(configs.map((c, i) => [c.label, Object.fromEntries(results.map(([n, ms]) => [n, shown(ms[i])]))]))));
    return;
  }
  const cfg = Object.entries(args.opts)
    .filter(([k]) => !['mode', 'fusion', 'grid'].includes(k))
    .map(([k, v]) => `${k}=${v}`).concat([...args.flags]).join(' ') || 'defaults';
  const f = (x: number): string => x.toFixed(4).padStart(8);
  const groups = (['english', 'tatoeba'] as const)
    .map((g) => [g, results.filter(([n]) => isTatoeba(n) === (g === 'tatoeba'))] as const)
    .filter(([, rs]) => rs.length > 0);
  configs.forEach((c, i) => {
    console.log(`# ${c.label} ${cfg}`);
    console.log('dataset         docs queries  nDCG@10     R@50    R@100   MRR@10  index(ms) query(ms)');
    for (const [name, ms] of results) {
      const m = ms[i];
      console.log(`${name.padEnd(12)} ${String(m.docs).padStart(7)} ${String(m.queries).padStart(7)} ${f(m.ndcg10)} ${f(m.recall50)} ${f(m.recall100)} ${f(m.mrr10)} ${m.indexMs.toFixed(0).padStart(10)} ${m.queryMs.toFixed(2).padStart(9)}`);
    }
    for (const [group, rs] of groups) {
      if (rs.length < 2) continue;
      const mean = (g: (m: Metrics) => number): number => rs.reduce((s, [, ms]) => s + g(ms[i]), 0) / rs.length;
      console.log(`${`macro-mean${groups.length > 1 ? ` ${group}` : ''}`.padEnd(28)} ${f(mean((m) => m.ndcg10))} ${f(mean((m) => m.recall50))} ${f(mean((m) => m.recall100))} ${f(mean((m) => m.mrr10))}`);
    }
  });
  // One table per group: English collections by nDCG@10, tatoeba by MRR@10 (one relevant document per query).
  for (const [group, rs] of groups) {
    if (rs.length < 2 || configs.length < 2) continue;
    const metric = group === 'tatoeba' ? 'mrr10' : 'ndcg10';
    console.log(`\n| config (${metric === 'mrr10' ? 'MRR@10' : 'nDCG@10'}) | ${rs.map(([n]) => n).join(' | ')} | mean |`);
    console.log(`|---|${rs.map(() => '---|').join('')}---|`);
    configs.forEach((c, i) => {
      const xs = rs.map(([, ms]) => ms[i][metric]);
      console.log(`| ${c.label} | ${xs.map((x) => x.toFixed(4)).join(' | ')} | ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(4)} |`);
    });
  }
}

// Run only as a program, so other scripts can import `evaluate`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();

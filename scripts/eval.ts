/**
 * Retrieval quality on BEIR-format collections, through the real Engine (in-memory store).
 *
 *   npm run eval -- DIR [DIR ...] [--mode sparse|dense|hybrid] [--fusion rrf|weighted|convex]
 *                  [--k1 N] [--b N] [--stem porter|none] [--stop lucene|nltk|none] [--stop-at query|both]
 *                  [--title-weight N] [--no-title] [--chunk] [--unit chunk|document] [--json]
 *                  [--dense-weight W]  (hybrid: weights {dense:W, sparse:1−W}; convex: alpha=W)
 *                  [--dense-exact-below N]  (dense: the approximate path from N stored vectors on; 0 = always)
 *
 * DIR holds corpus.jsonl ({_id,title,text}), queries.jsonl ({_id,text}) and qrels/test.tsv (with
 * a header). Documents are added with `contextual:true` so `title` is indexed as the context
 * field (weight --title-weight). Every query runs with k=100. Metrics are averaged over queries
 * with ≥ 1 relevant qrel: nDCG@10 (linear gain), Recall@100, MRR@10 — as shared/eval/bm25_eval.py.
 * dense/hybrid load the project's embedder (src/models `loadEmbedder`) from public/models/
 * (built by `npm run models`); --dtype q8|fp32 picks its weights.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Engine, type EngineOptions } from '../src/engine/engine.ts';
import { MemoryStore } from '../src/storage/memory-store.ts';
import type { Embedder } from '../src/engine/contracts.ts';
import type { RetrieveParams } from '../src/protocol/types.ts';
import { denseTuning } from '../src/engine/index/vectors/tuning.ts';

interface Args {
  dirs: string[];
  mode: 'sparse' | 'dense' | 'hybrid';
  fusion?: 'rrf' | 'weighted' | 'convex';
  opts: Record<string, string>;
  flags: Set<string>;
}

function parseArgs(argv: string[]): Args {
  const dirs: string[] = [];
  const opts: Record<string, string> = {};
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) dirs.push(a);
    else if (['--chunk', '--no-title', '--json'].includes(a)) flags.add(a.slice(2));
    else opts[a.slice(2)] = argv[++i];
  }
  return { dirs, mode: (opts.mode as Args['mode']) ?? 'sparse', fusion: opts.fusion as Args['fusion'], opts, flags };
}

const readJsonl = (path: string): Record<string, string>[] =>
  readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

function readQrels(path: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  const lines = readFileSync(path, 'utf8').split('\n').slice(1);
  for (const line of lines) {
    const [q, d, s] = line.trim().split('\t');
    if (!q || !d) continue;
    if (!out.has(q)) out.set(q, new Map());
    out.get(q)!.set(d, Number(s));
  }
  return out;
}

export interface Metrics {
  ndcg10: number;
  recall100: number;
  mrr10: number;
  queries: number;
  docs: number;
  indexMs: number;
  queryMs: number;
}

function scoreRun(ranked: string[], rel: Map<string, number>): [number, number, number] {
  let dcg = 0;
  for (let i = 0; i < Math.min(10, ranked.length); i++) dcg += (rel.get(ranked[i]) ?? 0) / Math.log2(i + 2);
  const gains = [...rel.values()].filter((g) => g > 0).sort((a, b) => b - a);
  let idcg = 0;
  gains.slice(0, 10).forEach((g, i) => (idcg += g / Math.log2(i + 2)));
  const relevant = gains.length;
  const found = ranked.slice(0, 100).filter((d) => (rel.get(d) ?? 0) > 0).length;
  const first = ranked.slice(0, 10).findIndex((d) => (rel.get(d) ?? 0) > 0);
  return [idcg > 0 ? dcg / idcg : 0, relevant ? found / relevant : 0, first >= 0 ? 1 / (first + 1) : 0];
}

/** Indexes one collection and evaluates it. */
export async function evaluate(dir: string, args: Args, embedder?: Embedder): Promise<Metrics> {
  const o = args.opts;
  const options: EngineOptions = { store: new MemoryStore(), embedder, limits: { maxDocumentsPerAdd: 1_000_000 } };
  if (o.k1 || o.b) options.bm25 = { ...(o.k1 ? { k1: Number(o.k1) } : {}), ...(o.b ? { b: Number(o.b) } : {}) };
  if (o.stem || o.stop || o['stop-at']) {
    options.analyzer = {
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
  const engine = new Engine(options);
  await engine.open();
  const corpus = readJsonl(join(dir, 'corpus.jsonl'));
  const queries = readJsonl(join(dir, 'queries.jsonl'));
  const qrels = readQrels(join(dir, 'qrels', 'test.tsv'));
  const t0 = performance.now();
  await engine.add(
    corpus.map((d) => ({ id: String(d._id), text: d.text ?? '', meta: args.flags.has('no-title') || !d.title ? {} : { title: d.title } })),
    { contextual: true, chunk: args.flags.has('chunk') },
  );
  const indexMs = performance.now() - t0;
  const sums = [0, 0, 0];
  let n = 0;
  let qms = 0;
  for (const q of queries) {
    const rel = qrels.get(String(q._id));
    if (!rel || ![...rel.values()].some((g) => g > 0)) continue;
    const params: RetrieveParams = { query: q.text ?? '', k: 100, mode: args.mode, includeText: false };
    if (args.fusion) params.fusion = { method: args.fusion };
    if (params.fusion && o['dense-weight']) {
      const w = Number(o['dense-weight']);
      params.fusion = args.fusion === 'convex' ? { ...params.fusion, alpha: w } : { ...params.fusion, weights: { dense: w, sparse: 1 - w } };
    }
    if (o.unit) params.unit = o.unit as 'chunk' | 'document';
    else if (args.flags.has('chunk')) params.unit = 'document';
    const t = performance.now();
    const res = await engine.retrieve(params);
    qms += performance.now() - t;
    const ranked = res.hits.map((h) => String(h.citation?.source ?? h.id));
    scoreRun(ranked, rel).forEach((v, i) => (sums[i] += v));
    n++;
  }
  return { ndcg10: sums[0] / n, recall100: sums[1] / n, mrr10: sums[2] / n, queries: n, docs: corpus.length, indexMs, queryMs: qms / n };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.dirs.length === 0) {
    console.error('usage: npm run eval -- DIR [DIR ...] [--mode sparse|dense|hybrid] [--fusion rrf|weighted|convex]');
    process.exit(2);
  }
  if (args.opts['dense-exact-below'] !== undefined) denseTuning.exactBelow = Number(args.opts['dense-exact-below']);
  let embedder: Embedder | undefined;
  if (args.mode !== 'sparse') {
    // The project's embedder (src/models) on the locally built model files (`npm run models`).
    const { loadEmbedder } = await import('../src/models/index.ts');
    const modelBase = fileURLToPath(new URL('../public/models/', import.meta.url));
    try {
      embedder = await loadEmbedder({ modelBase, ...(args.opts.dtype ? { dtype: args.opts.dtype as 'q8' | 'fp32' } : {}) });
    } catch (e) {
      console.error(`--mode ${args.mode}: could not load the embedder from ${modelBase} (run \`npm run models\` first): ${(e as Error).message}`);
      process.exit(2);
    }
    console.log(`# embedder ${embedder.identity}`);
  }
  const rows: [string, Metrics][] = [];
  for (const dir of args.dirs) rows.push([basename(dir.replace(/\/+$/, '')), await evaluate(dir, args, embedder)]);
  if (args.flags.has('json')) {
    console.log(JSON.stringify(Object.fromEntries(rows)));
    return;
  }
  const cfg = Object.entries(args.opts)
    .filter(([k]) => k !== 'mode' && k !== 'fusion')
    .map(([k, v]) => `${k}=${v}`).concat([...args.flags]).join(' ') || 'defaults';
  console.log(`# mode=${args.mode}${args.fusion ? ` fusion=${args.fusion}` : ''} ${cfg}`);
  console.log('dataset         docs queries  nDCG@10    R@100   MRR@10  index(ms) query(ms)');
  const f = (x: number): string => x.toFixed(4).padStart(8);
  for (const [name, m] of rows) {
    console.log(`${name.padEnd(12)} ${String(m.docs).padStart(7)} ${String(m.queries).padStart(7)} ${f(m.ndcg10)} ${f(m.recall100)} ${f(m.mrr10)} ${m.indexMs.toFixed(0).padStart(10)} ${m.queryMs.toFixed(2).padStart(9)}`);
  }
  if (rows.length > 1) {
    const mean = (g: (m: Metrics) => number): number => rows.reduce((s, [, m]) => s + g(m), 0) / rows.length;
    console.log(`${'macro-mean'.padEnd(28)} ${f(mean((m) => m.ndcg10))} ${f(mean((m) => m.recall100))} ${f(mean((m) => m.mrr10))}`);
  }
}

// Run only as a program, so other scripts can import `evaluate`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();

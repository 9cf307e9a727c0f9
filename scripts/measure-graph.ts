/**
 * The `graph` figures on the sample corpus (public/sample, ≈ 14,500 passages) in Node, through the
 * real Engine on an in-memory store: the first build (dense neighbour lists + graph), Louvain
 * communities with their summaries, `neighbors` p50/p95, `local` and `global`, the neighbour lists'
 * recall against an exact scan, an incremental update (one document re-added), and the size the
 * graph would add to the stored index. Document vectors come from the precomputed sample table;
 * queries use the real encoder (onnxruntime-node). CPU time is printed beside wall time (the
 * machine is shared).
 *
 *   node --import tsx scripts/measure-graph.ts [--limit N] [--runs 200]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { serialize } from 'node:v8';
import { cliArgs } from '../tools/lib/args.ts';
import { Engine } from '../src/engine/engine.ts';
import type { Embedder } from '../src/engine/contracts.ts';
import { graphCapability } from '../src/engine/graph/plan.ts';
import { KNN_DEFAULTS } from '../src/engine/graph/knn.ts';
import { denseModel, segmentVectors } from '../src/engine/index/dense.ts';
import { catalogEntry } from '../src/models/catalog.ts';
import { loadEmbedder } from '../src/models/index.ts';
import { decodePrecomputed, lookupPrecomputed } from '../src/models/precomputed.ts';
import { validateGraph } from '../src/protocol/validate-graph.ts';
import { inProcessCapabilities } from '../src/server/retrieve-plan.ts';
import type { IndexDocument } from '../src/protocol/types.ts';
import { MemoryStore } from '../src/storage/memory-store.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = cliArgs({ usage: 'node --import tsx scripts/measure-graph.ts [--limit N] [--runs N]', options: { limit: { type: 'string' }, runs: { type: 'string' } } });
const limit = args.values.limit !== undefined ? Number(args.values.limit) : Infinity;
const runs = Number(args.values.runs ?? 200);

/** Document vectors from the precomputed table (the encoder for what it lacks), queries from the encoder. */
class SampleEmbedder implements Embedder {
  readonly identity: string;
  readonly dimension: number;
  readonly normalized = true;
  readonly minSimilarity?: number;
  constructor(private readonly inner: Embedder, private readonly table: ReturnType<typeof decodePrecomputed>) {
    this.identity = inner.identity;
    this.dimension = inner.dimension;
    this.minSimilarity = catalogEntry('minilm-l6-v2')?.minSimilarity;
  }
  async embed(texts: string[], kind: 'query' | 'document'): Promise<Float32Array[]> {
    if (kind === 'query') return this.inner.embed(texts, kind);
    const found = await lookupPrecomputed(this.table, texts);
    const missing = texts.filter((_, i) => !found[i]);
    const more = missing.length ? await this.inner.embed(missing, 'document') : [];
    let j = 0;
    return found.map((v) => v ?? more[j++]);
  }
}

const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number }> {
  const c0 = cpu();
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0, cpuMs: cpu() - c0 };
}
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const f = (ms: number): string => `${ms.toFixed(1)} ms`;

async function main(): Promise<void> {
  console.log(`# uptime: load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const corpus = JSON.parse(readFileSync(`${ROOT}public/sample/corpus.json`, 'utf8')) as { documents: IndexDocument[] };
  const docs = corpus.documents.slice(0, limit);
  const encoder = await loadEmbedder({ modelBase: `${ROOT}public/models/` });
  const table = decodePrecomputed(new Uint8Array(readFileSync(`${ROOT}public/sample/vectors-minilm-l6-v2.bin`)));
  const embedder = new SampleEmbedder(encoder, table);
  const store = new MemoryStore();
  const engine = new Engine({ store, embedder, limits: { maxDocumentsPerAdd: 100_000 } });
  await engine.open();
  await engine.add(docs.map((d, i) => ({ ...d, id: d.id ?? `d${i}` })), { chunk: true, contextual: true });
  const stats = engine.stats();
  console.log(`# corpus: ${stats.documents} documents, ${stats.chunks} passages`);
  const caps = { ...inProcessCapabilities(engine), graph: graphCapability() };
  const g = (p: Record<string, unknown>) => engine.graph(validateGraph(p, caps));

  // The hit id of every passage, for seeds.
  const map = await engine.corpusMap({ limit: 5000 });
  const seeds = map.points.map((p) => p.id);

  const first = await timed(() => g({ op: 'neighbors', seedIds: [seeds[0]] }));
  const meta = first.value._meta?.graph as { passages: number; edges: number; buildMs: number };
  console.log(`first build (neighbour lists m=${KNN_DEFAULTS.m}, shortlist ${KNN_DEFAULTS.shortlist}, + graph): ${f(first.ms)} wall, ${f(first.cpuMs)} CPU; ${meta.passages} passages, ${meta.edges} edges`);

  const comm = await timed(() => g({ op: 'communities' }));
  const levels = comm.value._meta as { levels: number; communities: number; modularity: number };
  console.log(`communities (Louvain + summaries of the top 50): ${f(comm.ms)} wall, ${f(comm.cpuMs)} CPU; ${levels.levels} levels, ${levels.communities} at level 0, modularity ${levels.modularity.toFixed(3)}`);
  for (const c of comm.value.communities!.slice(0, 8)) console.log(`  ${c.id} (${c['x-inpage-size']}): ${(c['x-inpage-terms'] as string[]).join(', ')}`);
  const again = await timed(() => g({ op: 'communities' }));
  console.log(`communities again (cached partition, summaries read): ${f(again.ms)}`);

  const nb: number[] = [];
  const nb2: number[] = [];
  for (let i = 0; i < runs; i++) {
    const seed = seeds[(i * 7919) % seeds.length];
    nb.push((await timed(() => g({ op: 'neighbors', seedIds: [seed], k: 10 }))).ms);
    nb2.push((await timed(() => g({ op: 'neighbors', seedIds: [seed], k: 10, hops: 2, _meta: { 'x-inpage-text': true } }))).ms);
  }
  console.log(`neighbors (k 10, 1 hop) over ${runs} seeds: p50 ${f(pct(nb, 0.5))}, p95 ${f(pct(nb, 0.95))}`);
  console.log(`neighbors (k 10, 2 hops, with text): p50 ${f(pct(nb2, 0.5))}, p95 ${f(pct(nb2, 0.95))}`);

  const queries = ['white whale', 'the slave trade', 'railroads and the west', 'harpoon line', 'income tax', 'war with spain'];
  const loc: number[] = [];
  const glob: number[] = [];
  for (const query of queries) {
    loc.push((await timed(() => g({ op: 'local', query, k: 10 }))).ms);
    glob.push((await timed(() => g({ op: 'global', query, k: 5 }))).ms);
  }
  console.log(`local (k 10) p50 ${f(pct(loc, 0.5))}; global (k 5) p50 ${f(pct(glob, 0.5))} over ${queries.length} queries`);
  const gl = await g({ op: 'global', query: 'white whale', k: 3 });
  console.log(`  global 'white whale': ${gl.summary}`);

  // Recall of the neighbour lists against an exact scan of every int8 vector, on a sample.
  console.log(`neighbour-list recall@${KNN_DEFAULTS.m} vs exact: ${exactRecall(engine).toFixed(3)}`);

  // Incremental: one document re-added with new text; the next request updates only its passages.
  const victim = docs[Math.floor(docs.length / 2)];
  await engine.add([{ ...victim, text: `${victim.text}\n\nA new closing paragraph about whales and congress.` }], { chunk: true, contextual: true });
  const inc = await timed(() => g({ op: 'neighbors', seedIds: [seeds[1]] }));
  const incMeta = inc.value._meta?.graph as { buildMs: number };
  console.log(`after re-adding one document (${victim.id}): next request ${f(inc.ms)} (graph rebuild ${incMeta.buildMs} ms)`);

  // Stored size: what persisting the neighbour lists would add, against the index as stored.
  const index = serialize(store).byteLength;
  const graphBytes = meta.passages * KNN_DEFAULTS.m * (4 + 4) + meta.passages * 4;
  console.log(`stored index ≈ ${(index / 1e6).toFixed(1)} MB (structured clone); neighbour lists as typed arrays ≈ ${(graphBytes / 1e6).toFixed(2)} MB = ${((100 * graphBytes) / index).toFixed(1)}%`);
  console.log(`# uptime: load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}

/** Share of each sampled passage's exact top-m (by int8 cosine over every vector) found in its list. */
function exactRecall(engine: Engine): number {
  const internals = engine as unknown as { graphs: { index: { knn: { lists: Map<number, { keys: number[] }> } } }; state: { current(): import('../src/engine/index/view.ts').IndexView } };
  const lists = internals.graphs.index.knn.lists;
  const view = internals.state.current();
  const model = denseModel(engine.embedder!);
  const rows: { key: number; block: NonNullable<ReturnType<typeof segmentVectors>>; local: number }[] = [];
  view.segments.forEach((seg, si) => {
    const b = segmentVectors(seg, model);
    if (!b) return;
    for (let local = 0; local < seg.size; local++) if (!view.dead[si][local] && b.q.invNorms[local] > 0) rows.push({ key: seg.record.chunkKeys[local], block: b, local });
  });
  const m = KNN_DEFAULTS.m;
  let found = 0;
  let total = 0;
  for (let s = 0; s < 200; s++) {
    const me = rows[(s * 104729) % rows.length];
    const list = lists.get(me.key);
    if (!list) continue;
    const q = me.block.vector(me.local);
    const qn = Math.hypot(...q);
    const scored = rows.filter((r) => r.key !== me.key).map((r) => ({ key: r.key, s: r.block.cosine(q, qn, r.local) }));
    scored.sort((a, b) => b.s - a.s);
    const floor = model.minSimilarity ?? -Infinity;
    const truth = scored.filter((x) => x.s >= floor).slice(0, m).map((x) => x.key);
    total += truth.length;
    found += truth.filter((k) => list.keys.includes(k)).length;
  }
  return total ? found / total : 1;
}

main().then(() => process.exit(0), (e: unknown) => {
  console.error(e);
  process.exit(1);
});

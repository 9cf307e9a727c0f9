/**
 * Dense recall@10 of the engine on the bench's corpus and synthetic clustered vectors, in Node over
 * the in-memory store (no browser: a quick check while tuning; `npm run bench` is the real figure).
 * Prints recall against exact float cosine for the default path (sign-bit shortlist, int8 rescoring,
 * fine rescoring), without the fine stage, and for the exact int8 scan, with the median time of each.
 *
 *   node --import tsx scripts/measure-dense-recall.ts --size 100000 [--queries 100]
 */
import { buildCorpus } from '../bench/corpus.ts';
import { SyntheticVectors, exactTopK, hash } from '../bench/vectors.ts';
import { Engine } from '../src/engine/engine.ts';
import { denseTuning } from '../src/engine/index/vectors/tuning.ts';
import { retrieveInProcess } from '../src/server/retrieve-plan.ts';
import { MemoryStore } from '../src/storage/memory-store.ts';
import { presetKey } from '../src/engine/index/prepare.ts';
import { cliArgs } from '../tools/lib/args.ts';

const { values } = cliArgs({
  usage: 'node --import tsx scripts/measure-dense-recall.ts [--size N] [--queries N] [--by-text] [--debug]',
  options: { size: { type: 'string' }, queries: { type: 'string' }, 'by-text': { type: 'boolean' }, debug: { type: 'boolean' } },
});
const size = Number(values.size ?? 100_000);
const nq = Number(values.queries ?? 100);
const bySelf = !values['by-text'];
const corpus = buildCorpus({ size, queries: nq, queryPool: Math.min(size, 1000) });
const ps = corpus.passages;
const synth = new SyntheticVectors();
const dim = synth.dim;
const vectors = new Float32Array(ps.length * dim);
ps.forEach((p, i) => synth.passage(hash(p.text), String(p.meta.title), vectors, i * dim));
const queries = corpus.queries.slice(0, nq).map((_, j) => synth.query(hash(ps[corpus.querySources[j]].text), String(ps[corpus.querySources[j]].meta.title), j));
const byText = new Map<string, number>();
ps.forEach((p, i) => void (byText.has(p.text) || byText.set(p.text, i)));
const queryByText = new Map(corpus.queries.slice(0, nq).map((q, j) => [q, queries[j]]));

const engine = new Engine({
  store: new MemoryStore(),
  embedder: {
    identity: 'synthetic-384@measure',
    dimension: dim,
    normalized: true,
    embed: async (texts) => texts.map((t) => queryByText.get(t) ?? vectors.slice(byText.get(t)! * dim, (byText.get(t)! + 1) * dim)),
  },
});
await engine.open();
const t0 = performance.now();
for (let at = 0; at < ps.length; at += 2000) {
  const batch = ps.slice(at, at + 2000).map((p, i) => ({ id: `p${at + i}`, text: p.text, meta: p.meta }));
  // Each passage's own vector (as the truth and the peers have it); embedding by text would give
  // duplicated texts of other documents the first copy's vector.
  const vectorsOf = bySelf && new Map(batch.map((d, i) => [presetKey(d.id, 0, d.text.length), vectors.subarray((at + i) * dim, (at + i + 1) * dim)]));
  const r = await engine.add(batch, vectorsOf ? { vectors: { identity: 'synthetic-384@measure', dimension: dim, vectors: vectorsOf } } : {});
  if (vectorsOf && r.vectorsReused !== batch.length) throw new Error(`only ${r.vectorsReused} of ${batch.length} vectors reused`);
}
process.stderr.write(`ingested ${ps.length} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
const truth = exactTopK(vectors, ps.length, dim, queries, 10);

async function run(label: string): Promise<void> {
  let hit = 0;
  const ms: number[] = [];
  for (let j = 0; j < nq; j++) {
    const t = performance.now();
    const r = await retrieveInProcess(engine, { query: corpus.queries[j], k: 10, mode: 'dense', includeText: false });
    ms.push(performance.now() - t);
    const want = new Set(truth[j]);
    hit += r.hits.filter((h) => want.has(Number(String(h.id).slice(1)))).length;
  }
  ms.sort((a, b) => a - b);
  console.log(`${label}: recall@10 ${(hit / (10 * nq)).toFixed(3)}, p50 ${ms[ms.length >> 1].toFixed(2)} ms`);
}
console.log(`${size} chunks × ${dim}, ${nq} queries`);
await run('default (sign bits → int8 → fine)');
denseTuning.refine = false;
await run('without the fine stage');
denseTuning.exactBelow = Infinity;
await run('exact int8 scan, no fine stage');
denseTuning.refine = true;
await run('exact int8 scan + fine stage');
if (values.debug === true) {
  for (let j = 0; j < 5; j++) {
    const r = await retrieveInProcess(engine, { query: corpus.queries[j], k: 10, mode: 'dense', includeText: false });
    const cos = (i: number) => { let s = 0; for (let d = 0; d < dim; d++) s += queries[j][d] * vectors[i * dim + d]; return s; };
    console.log('got ', r.hits.map((h) => `${String(h.id).slice(1)}:${h.score.toFixed(5)}/${cos(Number(String(h.id).slice(1))).toFixed(5)}`).join(' '));
    console.log('want', Array.from(truth[j], (i) => `${i}:${cos(i).toFixed(5)}`).join(' '));
  }
}

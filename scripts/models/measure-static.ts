/**
 * Standalone quality measurement for static-model variants on the BEIR dev collections
 * (shared/eval): dense-only and BM25+dense fusion, nDCG@10. Embeds directly from the derived
 * matrix (the ONNX graph computes exactly normalize(mean(rows)); see test/models for the check).
 *
 *   node --import tsx scripts/models/measure-static.ts [--eval /work/shared/eval] [--grid]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readGlove, type GloveTable } from './read-glove.ts';
import { deriveStaticModel, type StaticModel, type StaticModelOptions } from './static-model.ts';
import { DEFAULT_OPTIONS, GLOVE_JSON } from './config.ts';
import { fuseConvex, fuseRrf, fuseWeighted, type RankedList } from '../../src/protocol/fusion.ts';
import { hasRelevant, ndcgAt, type Judgments } from '../../src/eval/metrics.ts';
import { readCollection as readBeir } from '../lib/beir-files.ts';
import { cliArgs } from '../../tools/lib/args.ts';

interface Collection {
  name: string;
  docIds: string[];
  docs: string[];
  queries: { id: string; text: string }[];
  qrels: Map<string, Map<string, number>>;
}

function loadCollection(dir: string, name: string): Collection {
  const { corpus, queries, qrels } = readBeir(join(dir, name));
  return {
    name,
    docIds: corpus.map((d) => d.id),
    docs: corpus.map((d) => `${d.title ?? ''} ${d.text}`),
    queries: queries.filter((q) => hasRelevant(qrels.get(q.id))).map((q) => ({ id: q.id, text: q.text })),
    qrels,
  };
}

// ---- BM25, identical to shared/eval/bm25_eval.py (k1 0.9, b 0.4, [a-z0-9]+, no stopwords) ----
class Bm25 {
  private postings = new Map<string, [number, number][]>();
  private norm: Float64Array;
  private idf = new Map<string, number>();
  constructor(docs: string[], k1 = 0.9, b = 0.4) {
    const lens = docs.map((text, i) => {
      const toks = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
      const tf = new Map<string, number>();
      for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, c] of tf) {
        if (!this.postings.has(t)) this.postings.set(t, []);
        this.postings.get(t)!.push([i, c]);
      }
      return toks.length;
    });
    const avg = lens.reduce((a, x) => a + x, 0) / docs.length;
    this.norm = Float64Array.from(lens, (dl) => k1 * (1 - b + (b * dl) / avg));
    for (const [t, p] of this.postings) this.idf.set(t, Math.log(1 + (docs.length - p.length + 0.5) / (p.length + 0.5)));
    this.k1 = k1;
  }
  private k1: number;
  scores(query: string): Map<number, number> {
    const qtf = new Map<string, number>();
    for (const t of query.toLowerCase().match(/[a-z0-9]+/g) ?? []) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    const s = new Map<number, number>();
    for (const [t, c] of qtf) {
      const p = this.postings.get(t);
      if (!p) continue;
      const w = c * this.idf.get(t)!;
      for (const [i, tf] of p) s.set(i, (s.get(i) ?? 0) + (w * tf * (this.k1 + 1)) / (tf + this.norm[i]));
    }
    return s;
  }
}

// ---- static encoder (mirrors the tokenizer.json: lowercase, strip accents, Bert pre-tokenizer) ----
export class MatrixEncoder {
  private vocab = new Map<string, number>();
  constructor(private model: StaticModel) {
    model.tokens.forEach((t, i) => this.vocab.set(t, i));
  }
  tokenize(text: string): number[] {
    const norm = text.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '');
    return (norm.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []).map((t) => this.vocab.get(t) ?? 1);
  }
  embed(text: string): Float32Array {
    const d = this.model.dimension;
    const v = new Float32Array(d);
    for (const id of this.tokenize(text)) {
      const base = id * d;
      for (let j = 0; j < d; j++) v[j] += this.model.matrix[base + j];
    }
    let n = 0;
    for (let j = 0; j < d; j++) n += v[j] * v[j];
    n = Math.sqrt(n) || 1;
    for (let j = 0; j < d; j++) v[j] /= n;
    return v;
  }
}

const ndcg10 = (ranked: string[], rels: Judgments): number => ndcgAt(10, ranked, rels);

function topK(scores: Map<number, number>, k: number): [number, number][] {
  return [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, k);
}

/** Fusion variants over the top `depth` of each list, using the engine's own §16.3 fusion code. */
type Fusion = (lex: [number, number][], den: [number, number][]) => [number, number][];
const asList = (name: string, l: [number, number][], scoreFloor: number, weight?: number): RankedList => ({
  name,
  weight,
  scoreFloor,
  items: l.map(([i, score]) => ({ id: String(i), score })),
});
const back = (f: { id: string; score: number }[]): [number, number][] => f.map(({ id, score }) => [Number(id), score]);
export const FUSIONS: Record<string, Fusion> = {
  rrf: (lex, den) => back(fuseRrf([asList('sparse', lex, 0), asList('dense', den, -1)])),
  ...Object.fromEntries(
    [0.2, 0.3, 0.4].map((w) => [`weighted${w}`, ((lex, den) => back(fuseWeighted([asList('sparse', lex, 0, 1 - w), asList('dense', den, -1, w)]))) as Fusion]),
  ),
  ...Object.fromEntries(
    [0.3, 0.5, 0.6, 0.7, 0.8].map((a) => [`convex${a}`, ((lex, den) => back(fuseConvex([asList('sparse', lex, 0), asList('dense', den, -1)], a))) as Fusion]),
  ),
};

interface Prepared {
  col: Collection;
  bm25: Bm25;
}

/** nDCG@10 per collection for dense-only, BM25 and each fusion. */
export function evaluate(model: StaticModel, prepared: Prepared[], depth = 100): Record<string, Record<string, number>> {
  const enc = new MatrixEncoder(model);
  const out: Record<string, Record<string, number>> = {};
  for (const { col, bm25 } of prepared) {
    const d = model.dimension;
    const dm = new Float32Array(col.docs.length * d);
    col.docs.forEach((t, i) => dm.set(enc.embed(t), i * d));
    const sums: Record<string, number> = { bm25: 0, dense: 0 };
    for (const q of col.queries) {
      const rels = col.qrels.get(q.id)!;
      const qv = enc.embed(q.text);
      const dense = new Map<number, number>();
      for (let i = 0; i < col.docs.length; i++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += qv[j] * dm[i * d + j];
        dense.set(i, s);
      }
      const lex = topK(bm25.scores(q.text), depth);
      const den = topK(dense, depth);
      const ids = (l: [number, number][]) => l.map(([i]) => col.docIds[i]);
      sums.bm25 += ndcg10(ids(lex), rels);
      sums.dense += ndcg10(ids(den), rels);
      for (const [name, f] of Object.entries(FUSIONS)) {
        sums[name] = (sums[name] ?? 0) + ndcg10(ids(f(lex, den).slice(0, 10)), rels);
      }
    }
    out[col.name] = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v / col.queries.length]));
  }
  return out;
}

function report(label: string, r: Record<string, Record<string, number>>): void {
  const cols = Object.keys(r);
  const methods = Object.keys(r[cols[0]]);
  console.log(`\n## ${label}`);
  console.log(`method       ${cols.map((c) => c.padStart(7)).join(' ')}    mean  vsBM25`);
  const base = cols.reduce((s, c) => s + r[c].bm25, 0) / cols.length;
  for (const m of methods) {
    const mean = cols.reduce((s, c) => s + r[c][m], 0) / cols.length;
    const worst = Math.min(...cols.map((c) => r[c][m] - r[c].bm25));
    console.log(
      `${m.padEnd(12)} ${cols.map((c) => r[c][m].toFixed(4).padStart(7)).join(' ')}  ${mean.toFixed(4)}  ${(((mean - base) / base) * 100).toFixed(1).padStart(5)}%  worstΔ ${worst.toFixed(4)}`,
    );
  }
}

async function main(): Promise<void> {
  const { values } = cliArgs({
    usage: 'node --import tsx scripts/models/measure-static.ts [--eval DIR] [--grid FILE]',
    options: { eval: { type: 'string' }, grid: { type: 'string' } },
  });
  const evalDir = values.eval ?? '/work/shared/eval';
  const prepared = ['cacm', 'npl', 'time'].map((n) => {
    const col = loadCollection(evalDir, n);
    return { col, bm25: new Bm25(col.docs) };
  });
  const table: GloveTable = await readGlove(GLOVE_JSON);
  const grid: [string, StaticModelOptions][] = values.grid !== undefined
    ? JSON.parse(readFileSync(values.grid, 'utf8'))
    : [['default', DEFAULT_OPTIONS]];
  for (const [label, opts] of grid) {
    const t0 = performance.now();
    const model = deriveStaticModel(table, opts);
    report(`${label} ${JSON.stringify(opts)} (${Math.round(performance.now() - t0)} ms derive)`, evaluate(model, prepared));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

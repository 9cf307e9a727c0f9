/**
 * How much retrieval quality spelling correction (`rewrite: "rewrite"`, §7.8) recovers on queries
 * misspelled by a seeded generator, through the real Engine (in-memory store, sparse mode).
 *
 *   node --import tsx scripts/eval-typos.ts DIR [DIR ...] [--seed N] [--rate P]
 *
 * DIR is a BEIR collection (corpus.jsonl, queries.jsonl, qrels/test.tsv), e.g. ../shared/eval/cacm.
 * Each content word (≥ 4 letters, not a stopword) of each query is misspelled with probability P
 * (default 0.5; at least one word per query) by one random edit after its first letter: a deletion,
 * an insertion, a substitution or a transposition of neighbours. Prints nDCG@10 of the clean and
 * misspelled queries, each without and with rewrite (and multi-query), the share of the lost nDCG
 * that rewrite recovers, and word-level figures: misspelled words restored to their original term,
 * and clean words changed by mistake.
 */
import { retrieveInProcess } from '../src/server/retrieve-plan.ts';
// mulberry32, seeded: the misspellings are the same on every run.
import { rng as prng } from '../src/util/prng.ts';
import { basename } from 'node:path';
import { Engine } from '../src/engine/engine.ts';
import { NLTK_STOPWORDS } from '../src/engine/analysis/stopwords.ts';
import type { RetrieveParams } from '../src/protocol/types.ts';
import { MemoryStore } from '../src/storage/memory-store.ts';
import { hasRelevant, ndcgAt, type Judgments } from '../src/eval/metrics.ts';
import { readCollection as readBeir } from './lib/beir-files.ts';
import { cliArgs } from '../tools/lib/args.ts';

const ndcg10 = (ranked: string[], rel: Judgments): number => ndcgAt(10, ranked, rel);

const STOP = new Set(NLTK_STOPWORDS);
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** One random edit of `w` after its first letter. */
function misspell(w: string, rand: () => number): string {
  const pick = (n: number): number => Math.floor(rand() * n);
  const upper = w === w.toUpperCase();
  const letter = (): string => (upper ? LETTERS[pick(26)].toUpperCase() : LETTERS[pick(26)]); // in the word's case
  for (;;) {
    const i = 1 + pick(w.length - 1); // 1 … len-1
    let out: string;
    switch (pick(4)) {
      case 0: out = w.slice(0, i) + w.slice(i + 1); break; // deletion
      case 1: out = w.slice(0, i) + letter() + w.slice(i); break; // insertion
      case 2: out = w.slice(0, i) + letter() + w.slice(i + 1); break; // substitution
      default: out = i + 1 < w.length ? w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2) : w; // transposition
    }
    if (out.toLowerCase() !== w.toLowerCase()) return out;
  }
}

/** The query with content words misspelled at `rate` (at least one when it has any); the changed words. */
function misspellQuery(q: string, rate: number, rand: () => number): { text: string; changed: [string, string][] } {
  const words = [...q.matchAll(/[A-Za-z]+/g)].filter((m) => m[0].length >= 4 && !STOP.has(m[0].toLowerCase()));
  if (words.length === 0) return { text: q, changed: [] };
  let chosen = words.filter(() => rand() < rate);
  if (chosen.length === 0) chosen = [words[Math.floor(rand() * words.length)]];
  let text = '';
  let at = 0;
  const changed: [string, string][] = [];
  for (const m of chosen) {
    const typo = misspell(m[0], rand);
    changed.push([m[0], typo]);
    text += q.slice(at, m.index) + typo;
    at = m.index! + m[0].length;
  }
  return { text: text + q.slice(at), changed };
}

interface Row {
  name: string;
  queries: number;
  clean: number;
  cleanRewrite: number;
  typo: number;
  typoRewrite: number;
  typoMulti: number;
  cleanMulti: number;
  restored: number;
  misspelled: number;
  cleanWordsChanged: number;
  cleanWords: number;
}

async function evaluate(dir: string, seed: number, rate: number): Promise<Row> {
  const engine = new Engine({ store: new MemoryStore(), limits: { maxDocumentsPerAdd: 1_000_000 } });
  await engine.open();
  const { corpus, queries, qrels } = readBeir(dir);
  await engine.add(corpus.map((d) => ({ id: d.id, text: d.text, meta: d.title ? { title: d.title } : {} })), { contextual: true });
  const rand = prng(seed);
  const row: Row = {
    name: basename(dir.replace(/\/+$/, '')), queries: 0, clean: 0, cleanRewrite: 0, typo: 0, typoRewrite: 0, typoMulti: 0, cleanMulti: 0,
    restored: 0, misspelled: 0, cleanWordsChanged: 0, cleanWords: 0,
  };
  const run = async (query: string, rewrite?: RetrieveParams['rewrite']) => {
    const r = await retrieveInProcess(engine, { query, k: 100, includeText: false, ...(rewrite ? { rewrite } : {}) });
    return { ranked: r.hits.map((h) => String(h.citation?.source ?? h.id)), rewritten: r.rewrittenQuery };
  };
  const termOf = (w: string): string => engine.analyzer.indexTerms(w).join(' ');
  for (const q of queries) {
    const rel = qrels.get(q.id);
    if (!hasRelevant(rel)) continue;
    const clean = q.text;
    const typo = misspellQuery(clean, rate, rand);
    row.queries++;
    row.clean += ndcg10((await run(clean)).ranked, rel);
    const cleanRw = await run(clean, 'rewrite');
    row.cleanRewrite += ndcg10(cleanRw.ranked, rel);
    row.typo += ndcg10((await run(typo.text)).ranked, rel);
    const typoRw = await run(typo.text, 'rewrite');
    row.typoRewrite += ndcg10(typoRw.ranked, rel);
    row.typoMulti += ndcg10((await run(typo.text, 'multi-query')).ranked, rel);
    row.cleanMulti += ndcg10((await run(clean, 'multi-query')).ranked, rel);
    // Word level: is each misspelled word back to its original term?
    const fixedTerms = new Set(engine.analyzer.indexTerms(typoRw.rewritten ?? typo.text));
    for (const [orig] of typo.changed) {
      row.misspelled++;
      if (fixedTerms.has(termOf(orig))) row.restored++;
    }
    const before = engine.analyzer.indexTerms(clean);
    const after = engine.analyzer.indexTerms(cleanRw.rewritten ?? clean);
    row.cleanWords += before.length;
    row.cleanWordsChanged += before.filter((t, i) => after[i] !== t).length;
  }
  for (const k of ['clean', 'cleanRewrite', 'typo', 'typoRewrite', 'typoMulti', 'cleanMulti'] as const) row[k] /= row.queries;
  return row;
}

async function main(): Promise<void> {
  const usage = 'node --import tsx scripts/eval-typos.ts DIR [DIR ...] [--seed N] [--rate P]';
  const { values, positionals: dirs } = cliArgs({ usage, options: { seed: { type: 'string' }, rate: { type: 'string' } }, positionals: true });
  const seed = Number(values.seed ?? 42);
  const rate = Number(values.rate ?? 0.5);
  if (dirs.length === 0) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  console.log(`# seed=${seed} rate=${rate}; nDCG@10, sparse mode`);
  console.log('dataset  queries   clean  clean+rw clean+mq    typo  typo+rw  typo+mq  recovered  words fixed  clean words changed');
  const f = (x: number): string => x.toFixed(4).padStart(8);
  const rows: Row[] = [];
  for (const dir of dirs) {
    const r = await evaluate(dir, seed, rate);
    rows.push(r);
    const recovered = r.clean > r.typo ? (r.typoRewrite - r.typo) / (r.clean - r.typo) : NaN;
    console.log(
      `${r.name.padEnd(8)} ${String(r.queries).padStart(7)} ${f(r.clean)} ${f(r.cleanRewrite)} ${f(r.cleanMulti)} ${f(r.typo)} ${f(r.typoRewrite)} ${f(r.typoMulti)}` +
        `   ${(recovered * 100).toFixed(1).padStart(6)}%  ${r.restored}/${r.misspelled} (${((r.restored / r.misspelled) * 100).toFixed(1)}%)` +
        `  ${r.cleanWordsChanged}/${r.cleanWords} (${((r.cleanWordsChanged / r.cleanWords) * 100).toFixed(1)}%)`,
    );
  }
  if (rows.length > 1) {
    const mean = (g: (r: Row) => number): number => rows.reduce((s, r) => s + g(r), 0) / rows.length;
    const [c, t, tr] = [mean((r) => r.clean), mean((r) => r.typo), mean((r) => r.typoRewrite)];
    console.log(
      `${'mean'.padEnd(16)} ${f(c)} ${f(mean((r) => r.cleanRewrite))} ${f(mean((r) => r.cleanMulti))} ${f(t)} ${f(tr)} ${f(mean((r) => r.typoMulti))}   ${(((tr - t) / (c - t)) * 100).toFixed(1).padStart(6)}%`,
    );
  }
}

await main();

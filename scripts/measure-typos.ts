/**
 * `node --import tsx scripts/measure-typos.ts [DIR …] [--model NAME|none] [--seed N] [--words N] [--show] [--json FILE]`:
 * typo tolerance of a bundle (src/bundle/typo-format.ts, src/engine/query/typos.ts), in Node over
 * the built bundle as a static host serves it. DIR is a BEIR collection (default: ../shared/eval/npl
 * and cacm), turned into a site as scripts/measure-site-search.ts does (one HTML page per document)
 * and built with `rcp-in-page index` (default model: minilm-l6-v2-static-256d, so dense and hybrid
 * are served from the bundle with no model runtime; `none`: sparse only).
 *
 * A seeded generator makes one-edit typos (a deletion, an insertion, a substitution or a
 * transposition of neighbours, anywhere in the word, uniformly) of words the corpus holds (≥ 4
 * letters, not stopwords), and the script prints, per mode:
 *   - queries: every judged query with one of its words misspelt; the share whose intended page
 *     (the clean query's first page, same mode) is in the top 5, with typo tolerance (the default)
 *     and without (`rewrite: false`), and nDCG@10 of the clean and misspelt queries both ways;
 *   - words: each distinct content word of the queries (up to --words) alone, misspelt: the share
 *     whose intended page (the clean word's first page) is in the top 5, both ways;
 * then the bundle's growth (the typo files against the rest) and the bytes a cold query fetches
 * for the correction (the typo listing and shards), from a fresh store per query. --show lists the
 * clean queries typo tolerance changed (a word the corpus lacks or barely has), with their nDCG@10.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { BundleStore, type FetchLike } from '../src/bundle/bundle-store.ts';
import { staticEmbedder } from '../src/bundle/static-dense.ts';
import { Engine } from '../src/engine/engine.ts';
import { NLTK_STOPWORDS } from '../src/engine/analysis/stopwords.ts';
import type { Embedder } from '../src/engine/contracts.ts';
import type { RetrieveMode, RetrieveParams } from '../src/protocol/types.ts';
import { loadEmbedder } from '../src/models/index.ts';
import { retrieveInProcess } from '../src/server/retrieve-plan.ts';
import { rng } from '../src/util/prng.ts';
import { buildIndex } from '../cli/build-index.ts';
import { judgedQueries } from '../src/eval/beir.ts';
import { ndcgAt } from '../src/eval/metrics.ts';
import { readCollection } from './lib/beir-files.ts';

const root = join(import.meta.dirname, '..');
const { values, positionals } = parseArgs({ allowPositionals: true, options: { model: { type: 'string' }, show: { type: 'boolean' }, seed: { type: 'string' }, words: { type: 'string' }, json: { type: 'string' } } });
const dirs = positionals.length ? positionals : ['npl', 'cacm'].map((c) => join(root, '..', 'shared', 'eval', c));
const model = values.model ?? 'minilm-l6-v2-static-256d';
const seed = Number(values.seed ?? 49);
const maxWords = Number(values.words ?? 300);
const modelBase = join(root, 'public', 'models') + '/';
const STOP = new Set(NLTK_STOPWORDS);
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const pageOf = (id: string): string => `${encodeURIComponent(id).replace(/%/g, '_')}.html`;

/** One random edit of `w` (lowercase), anywhere in it: never `w` itself. */
function misspell(w: string, rand: () => number): string {
  const pick = (n: number): number => Math.floor(rand() * n);
  for (;;) {
    const kind = pick(4);
    const i = pick(kind === 1 ? w.length + 1 : kind === 3 ? w.length - 1 : w.length);
    const c = LETTERS[pick(26)];
    const out =
      kind === 0 ? w.slice(0, i) + w.slice(i + 1) :
      kind === 1 ? w.slice(0, i) + c + w.slice(i) :
      kind === 2 ? w.slice(0, i) + c + w.slice(i + 1) :
      w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
    if (out !== w) return out;
  }
}

const fileFetch = (count?: { typo: number; all: number }): FetchLike => async (url) => {
  try {
    const bytes = readFileSync(new URL(url));
    if (count) {
      count.all += bytes.byteLength;
      if (/\/typos[-/]/.test(url)) count.typo += bytes.byteLength;
    }
    return new Response(bytes);
  } catch {
    return new Response('not found', { status: 404 });
  }
};

function folderBytes(dir: string, match: (path: string) => boolean): number {
  let bytes = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const rel = join(e.parentPath, e.name).slice(dir.length + 1);
    if (e.isFile() && !rel.startsWith('.rcp-cache') && match(rel)) bytes += statSync(join(e.parentPath, e.name)).size;
  }
  return bytes;
}

const pct = (n: number, of: number): string => `${((100 * n) / Math.max(1, of)).toFixed(1)}%`;
const rows: Record<string, unknown>[] = [];

for (const dir of dirs) {
  const name = basename(dir);
  const collection = readCollection(dir);
  const { corpus, qrels } = collection;
  const judged = judgedQueries(collection);
  const site = mkdtempSync(join(tmpdir(), `rcp-typos-${name}-`));
  const out = join(site, 'bundle');
  const idOf = new Map<string, string>();
  for (const d of corpus) {
    idOf.set(pageOf(d.id), d.id);
    const body = (d.text ?? '').split(/\n\s*\n/).map((p) => `<p>${escape(p)}</p>`).join('\n');
    writeFileSync(join(site, pageOf(d.id)), `<!doctype html><html lang="en"><head><title>${escape(d.title || `Document ${d.id}`)}</title></head><body><main><h1>${escape(d.title || '')}</h1>\n${body}</main></body></html>\n`);
  }
  const t0 = performance.now();
  const modelOption = model === 'none' ? undefined : { name: model, folder: join(modelBase, model), dtype: 'q8' as const, load: () => loadEmbedder({ modelBase, model, dtype: 'q8' }) };
  await buildIndex({ input: site, out, baseUrl: '', model: modelOption, log: () => undefined });
  const buildS = (performance.now() - t0) / 1000;
  const url = pathToFileURL(out).href;
  const typoBytes = folderBytes(out, (p) => p.startsWith('typos'));
  const allBytes = folderBytes(out, () => true);

  const open = async (count?: { typo: number; all: number }): Promise<{ engine: Engine; store: BundleStore }> => {
    const store = await BundleStore.open(url, { fetch: fileFetch(count), cache: false });
    const embedder: Embedder | undefined = store.staticDense ? staticEmbedder(store.staticDense, store.manifest) : undefined;
    const engine = new Engine({ store, embedder, readOnly: true, fields: store.manifest.fields });
    await engine.open();
    return { engine, store };
  };
  const { engine, store } = await open();
  const modes: RetrieveMode[] = store.staticDense ? ['sparse', 'hybrid', 'dense'] : ['sparse'];
  const pages = async (query: string, mode: RetrieveMode, typos: boolean, k = 5): Promise<{ ids: string[]; rewritten?: string }> => {
    const params: RetrieveParams = { query, k, unit: 'document', mode, ...(typos ? {} : { rewrite: false }) };
    const r = await retrieveInProcess(engine, params);
    return { ids: r.hits.map((h) => idOf.get(String(h.id)) ?? String(h.id)), rewritten: r.rewrittenQuery };
  };
  // "Indexed" words: the corpus holds them (the typo shards list every corpus word with its count).
  const corpusCount = async (words: string[]): Promise<Map<string, number>> => {
    const near = await store.partial.nearWords!(words);
    return new Map(words.map((w) => [w, near.get(w)?.find((n) => n.word === w)?.count ?? 0]));
  };

  // The misspelt queries: one content word of each judged query, chosen and misspelt by the seeded generator.
  const rand = rng(seed);
  const contentOf = (text: string): RegExpMatchArray[] => [...text.matchAll(/[A-Za-z]+/g)].filter((m) => m[0].length >= 4 && !STOP.has(m[0].toLowerCase()));
  const allWords = [...new Set(judged.flatMap((q) => contentOf(q.text).map((m) => m[0].toLowerCase())))];
  const counts = await corpusCount(allWords);
  const misspelt = judged.flatMap((q) => {
    const words = contentOf(q.text).filter((m) => (counts.get(m[0].toLowerCase()) ?? 0) > 0);
    if (words.length === 0) return [];
    const m = words[Math.floor(rand() * words.length)];
    const typo = misspell(m[0].toLowerCase(), rand);
    return [{ q, word: m[0].toLowerCase(), typo, text: q.text.slice(0, m.index!) + typo + q.text.slice(m.index! + m[0].length) }];
  });
  const realWord = await corpusCount(misspelt.map((m) => m.typo));
  const words = allWords.filter((w) => (counts.get(w) ?? 0) > 0).slice(0, maxWords).map((w) => ({ word: w, typo: misspell(w, rand) }));
  const wordReal = await corpusCount(words.map((w) => w.typo));

  console.log(`\n## ${name}: ${corpus.length} pages, ${judged.length} judged queries (${misspelt.length} misspelt), ${words.length} words; model ${model}; seed ${seed}; built in ${buildS.toFixed(1)} s`);
  console.log(`typos the corpus itself holds (real-word errors, left alone by design): ${misspelt.filter((m) => (realWord.get(m.typo) ?? 0) > 0).length} of ${misspelt.length} queries, ${words.filter((w) => (wordReal.get(w.typo) ?? 0) > 0).length} of ${words.length} words`);
  const listing = store.manifest.typos!.core;
  const shardCount = readdirSync(join(out, 'typos')).length;
  console.log(`bundle: ${(allBytes / 1024).toFixed(0)} KB, of which typo files ${(typoBytes / 1024).toFixed(0)} KB (+${pct(typoBytes, allBytes - typoBytes)} over the bundle without them): a ${(listing.bytes / 1024).toFixed(1)} KB listing and ${shardCount} shards of ${((typoBytes - listing.bytes) / shardCount / 1024).toFixed(1)} KB on average`);
  console.log('\n| mode | queries: intended page in top 5, typo tolerance / without | clean nDCG@10, with / without | misspelt nDCG@10, with / without | words alone: intended page in top 5, with / without | typo corrected back to the word (queries / words) |');
  console.log('|---|---|---|---|---|---|');
  for (const mode of modes) {
    let inTop = 0, inTopOff = 0, restored = 0, counted = 0;
    let cleanOn = 0, cleanOff = 0, typoOn = 0, typoOff = 0, changedClean = 0;
    for (const m of misspelt) {
      const rel = qrels.get(m.q.id)!;
      const clean = await pages(m.q.text, mode, true, 10);
      const cleanNo = await pages(m.q.text, mode, false, 10);
      const on = await pages(m.text, mode, true, 10);
      const off = await pages(m.text, mode, false, 10);
      cleanOn += ndcgAt(10, clean.ids, rel);
      cleanOff += ndcgAt(10, cleanNo.ids, rel);
      if (clean.rewritten !== undefined) {
        changedClean++;
        if (values.show) console.log(`  clean query ${m.q.id} searched as "${clean.rewritten}" (nDCG@10 ${ndcgAt(10, cleanNo.ids, rel).toFixed(3)} → ${ndcgAt(10, clean.ids, rel).toFixed(3)})`);
      }
      typoOn += ndcgAt(10, on.ids, rel);
      typoOff += ndcgAt(10, off.ids, rel);
      const intended = clean.ids[0];
      if (intended === undefined) continue;
      counted++;
      if (on.ids.slice(0, 5).includes(intended)) inTop++;
      if (off.ids.slice(0, 5).includes(intended)) inTopOff++;
      if (on.rewritten?.toLowerCase().includes(m.word)) restored++;
    }
    if (changedClean > 0) console.log(`  ${mode}: ${changedClean} of ${misspelt.length} clean queries had a word corrected`);
    let wTop = 0, wTopOff = 0, wRestored = 0, wCounted = 0;
    for (const w of words) {
      const intended = (await pages(w.word, mode, true)).ids[0];
      if (intended === undefined) continue;
      wCounted++;
      const on = await pages(w.typo, mode, true);
      if (on.ids.includes(intended)) wTop++;
      else if (process.env.TYPO_DEBUG) console.log(`  missed: ${w.word} → ${w.typo} searched as ${on.rewritten ?? '(as typed)'}`);
      if ((await pages(w.typo, mode, false)).ids.includes(intended)) wTopOff++;
      if (on.rewritten?.toLowerCase().split(/\s+/).includes(w.word)) wRestored++;
    }
    const n = misspelt.length;
    console.log(`| ${mode} | **${pct(inTop, counted)}** / ${pct(inTopOff, counted)} (of ${counted}) | ${(cleanOn / n).toFixed(4)} / ${(cleanOff / n).toFixed(4)} | ${(typoOn / n).toFixed(4)} / ${(typoOff / n).toFixed(4)} | **${pct(wTop, wCounted)}** / ${pct(wTopOff, wCounted)} (of ${wCounted}) | ${pct(restored, n)} / ${pct(wRestored, words.length)} |`);
    rows.push({ site: name, mode, queries: counted, top5: inTop / counted, top5Without: inTopOff / counted, ndcgClean: cleanOn / n, ndcgCleanWithout: cleanOff / n, ndcgTypo: typoOn / n, ndcgTypoWithout: typoOff / n, words: wCounted, wordTop5: wTop / wCounted, wordTop5Without: wTopOff / wCounted, typoBytes, bundleBytes: allBytes });
  }
  engine.close();

  // Bytes a cold query fetches for its correction (sparse): a fresh store per misspelt query.
  const perQuery: number[] = [];
  const extra: number[] = [];
  for (const m of misspelt) {
    const count = { typo: 0, all: 0 };
    const cold = await open(count);
    await retrieveInProcess(cold.engine, { query: m.text, k: 10, unit: 'document', mode: 'sparse' });
    cold.engine.close();
    const cleanCount = { typo: 0, all: 0 };
    const clean = await open(cleanCount);
    await retrieveInProcess(clean.engine, { query: m.text, k: 10, unit: 'document', mode: 'sparse', rewrite: false });
    clean.engine.close();
    perQuery.push(count.typo);
    extra.push(count.all - cleanCount.all);
  }
  const corrected = perQuery.filter((b) => b > 0);
  const avg = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const sorted = [...corrected].sort((a, b) => a - b);
  console.log(`\ncold sparse query, bytes fetched for the correction (typo listing + shards, as served: gzip by the writer): mean ${(avg(corrected) / 1024).toFixed(1)} KB, median ${((sorted[sorted.length >> 1] ?? 0) / 1024).toFixed(1)} KB, max ${((sorted[sorted.length - 1] ?? 0) / 1024).toFixed(1)} KB over the ${corrected.length} queries that read any; all bytes of the query beyond the same query without typo tolerance (the corrected word's term shard and other hits' texts included): mean ${(avg(extra) / 1024).toFixed(1)} KB`);
  rows.push({ site: name, correctionBytes: { mean: avg(corrected), median: sorted[sorted.length >> 1] ?? 0, max: sorted[sorted.length - 1] ?? 0, queries: corrected.length }, extraBytesMean: avg(extra) });
  rmSync(site, { recursive: true, force: true });
}
if (values.json) writeFileSync(values.json, JSON.stringify({ seed, model, rows }, null, 1));

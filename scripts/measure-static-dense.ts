/**
 * `node --import tsx scripts/measure-static-dense.ts DIR [--model NAME]`: what the approximation
 * of a static-model bundle's on-demand dense recall costs in quality. Builds DIR (a dev
 * collection) as a bundle with the static model, then runs every judged query over it, in Node,
 * three ways — sparse; dense and hybrid on demand (the bundle's rows and nearest clusters, what a
 * first visit runs, probing 2 to every cluster); dense and hybrid exact (every vector read, the query embedded by the model)
 * — and prints nDCG@10 at page level (`unit: "document"`) for each, with the bytes read.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { BundleStore, type FetchLike } from '../src/bundle/bundle-store.ts';
import { staticEmbedder } from '../src/bundle/static-dense.ts';
import { Engine } from '../src/engine/engine.ts';
import type { Embedder, IndexStore } from '../src/engine/contracts.ts';
import { loadEmbedder } from '../src/models/index.ts';
import { retrieveInProcess } from '../src/server/retrieve-plan.ts';
import { buildIndex } from '../cli/build-index.ts';
import { judgedQueries } from '../src/eval/beir.ts';
import { ndcgAt } from '../src/eval/metrics.ts';
import { readCollection } from './lib/beir-files.ts';

const root = join(import.meta.dirname, '..');
const { values, positionals } = parseArgs({ allowPositionals: true, options: { model: { type: 'string' } } });
const dir = positionals[0] ?? join(root, '..', 'shared', 'eval', 'npl');
const model = values.model ?? 'minilm-l6-v2-static-256d';
const modelBase = join(root, 'public', 'models') + '/';

const collection = readCollection(dir);
const { corpus, qrels } = collection;
const judged = judgedQueries(collection);

// The collection as a site: one page per document, named by its id (the page id is the path).
const site = mkdtempSync(join(tmpdir(), 'rcp-static-dense-'));
const out = join(site, 'bundle');
const pageOf = (id: string): string => `${encodeURIComponent(id).replace(/%/g, '_')}.html`;
const idOf = new Map<string, string>();
const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
for (const d of corpus) {
  idOf.set(pageOf(d.id), d.id);
  const body = (d.text ?? '').split(/\n\s*\n/).map((p) => `<p>${escape(p)}</p>`).join('\n');
  writeFileSync(join(site, pageOf(d.id)), `<!doctype html><html lang="en"><head><title>${escape(d.title || `Document ${d.id}`)}</title></head><body><main><h1>${escape(d.title || '')}</h1>\n${body}</main></body></html>\n`);
}
await buildIndex({ input: site, out, baseUrl: '', model: { name: model, folder: join(modelBase, model), dtype: 'q8', load: () => loadEmbedder({ modelBase, model, dtype: 'q8' }) }, log: () => undefined });

const fileFetch: FetchLike = async (url) => {
  try {
    return new Response(readFileSync(new URL(url)));
  } catch {
    return new Response('not found', { status: 404 });
  }
};

async function run(label: string, mode: 'sparse' | 'dense' | 'hybrid', exact: boolean, denseProbe?: number): Promise<void> {
  const bundle = await BundleStore.open(pathToFileURL(out).href, { fetch: fileFetch, cache: false, denseProbe });
  let store: IndexStore = bundle;
  let embedder: Embedder = staticEmbedder(bundle.staticDense!, bundle.manifest);
  if (exact) {
    // The same bundle read the way a non-static bundle is: every vector, the model's own query vectors.
    const { denseNearest: _unused, ...partial } = bundle.partial;
    store = Object.create(bundle, { partial: { value: partial } }) as IndexStore;
    embedder = await loadEmbedder({ modelBase, model, dtype: 'q8' });
  }
  const engine = new Engine({ store, embedder, readOnly: true, fields: bundle.manifest.fields });
  await engine.open();
  let sum = 0;
  let firstBytes = 0;
  for (const [i, q] of judged.entries()) {
    const r = await retrieveInProcess(engine, { query: q.text, k: 10, unit: 'document', mode });
    if (i === 0) firstBytes = bundle.bytesRead;
    sum += ndcgAt(10, r.hits.map((h) => idOf.get(String(h.id)) ?? String(h.id)), qrels.get(q.id)!);
  }
  console.log(`| ${label} | ${(sum / judged.length).toFixed(4)} | ${(firstBytes / 1024).toFixed(0)} KB |`);
  engine.close();
}

console.log(`${dir}: ${corpus.length} pages, ${judged.length} judged queries, model ${model}\n\n| path | nDCG@10 | bundle bytes before the first answer (index only, no code) |\n|---|---|---|`);
await run('sparse', 'sparse', false);
// More than there are clusters: every one is probed (nearest() clamps to the count).
const every = (JSON.parse(readFileSync(join(out, 'rcp-bundle.json'), 'utf8')) as { chunks: number }).chunks;
for (const probe of [2, 4, 8, 16, Infinity]) {
  const p = Number.isFinite(probe) ? String(probe) : 'every';
  await run(`dense on demand (rows + ${p} nearest clusters${probe === 4 ? ', the default' : ''})`, 'dense', false, Number.isFinite(probe) ? probe : every);
  await run(`hybrid on demand (${p} clusters)`, 'hybrid', false, Number.isFinite(probe) ? probe : every);
}
await run('dense exact (every vector, the model)', 'dense', true);
await run('hybrid exact', 'hybrid', true);
rmSync(site, { recursive: true, force: true });

/**
 * Precomputed encoder vectors for the sample corpus, so the playground's first open is
 * hybrid-searchable without embedding ≈ 14,500 passages on WASM (src/models/precomputed.ts reads
 * them in the worker). Embeds every chunk of public/sample/corpus.json exactly as the engine would
 * on `index/add` with `chunk: true, contextual: true` (src/engine/chunker.ts with the engine's
 * default size/overlap, text = indexedText(contextOf(meta, headings), body)) with the runtime's own
 * embedder (transformers.js on onnxruntime-node), and writes public/sample/vectors-<folder>.bin
 * (format: src/models/precomputed.ts) for the model public/models/config.json names.
 *
 * Cached: nothing is done when the file was made by the same model identity, embedding runtime,
 * chunker, corpus version and part. A static model (no background embedding) needs no table: skipped.
 * Run by `npm run sample` (and so by `npm run setup`, scripts/install.sh): for the configured model
 * over the whole corpus, and for the multilingual model over the declarations only (`--source udhr`:
 * ≈ 400 passages, so a switch to that model searches across languages at once while the English
 * books re-embed in the background; the lookup is by text, so a partial table serves what it has).
 * `--source` for the configured model itself is skipped: its table covers the whole corpus.
 *
 *   node --import tsx scripts/build-sample-vectors.ts [--model F] [--source S] [--dtype q8|fp32] [--limit N] [--batch 32] [--threads N] [--force]
 * With --limit it embeds only the first N chunks, prints the rate and the projected full time, and
 * writes nothing.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg as loadAvg } from 'node:os';
import { join } from 'node:path';
import { cliArgs } from '../tools/lib/args.ts';
import { chunkText } from '../src/engine/analysis/chunker.ts';
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from '../src/engine/config.ts';
import { contextOf, indexedText } from '../src/engine/index/prepare.ts';
import { catalogEntry } from '../src/models/catalog.ts';
import { lengthOrder } from '../src/models/embedder.ts';
import { loadEmbedder, readModelConfig, resolveModelFolder } from '../src/models/index.ts';
import { decodePrecomputed, decodePrecomputedHeader, EMBEDDING_RUNTIME_VERSION, encodePrecomputed, lookupPrecomputed, precomputedFileName, precomputedMismatch, type PrecomputedHeader } from '../src/models/precomputed.ts';
import type { EmbedDtype } from '../src/models/settings.ts';
import type { SampleCorpus } from './build-sample.ts';

const ROOT = join(import.meta.dirname, '..');

/** The texts the engine embeds for the sample corpus, in index order, and chunks per document. */
export function sampleChunkTexts(corpus: SampleCorpus, size = DEFAULT_CHUNK_SIZE, overlap = DEFAULT_CHUNK_OVERLAP): { texts: string[]; perDocument: number[] } {
  const texts: string[] = [];
  const perDocument: number[] = [];
  for (const d of corpus.documents) {
    const spans = chunkText(d.text, size, overlap);
    for (const s of spans) texts.push(indexedText(contextOf(d.meta as unknown as Record<string, unknown>, s.headings), d.text.slice(s.start, s.end)));
    perDocument.push(spans.length);
  }
  return { texts, perDocument };
}

/** What a table must have been made from to be current (the header fields the cache compares). */
function cacheKey(h: Record<string, unknown>): string {
  return JSON.stringify([h.model, h.runtime, h.chunker, h.corpusVersion, h.source ?? 'all', h.dimension, h.count]);
}

function currentHeader(path: string): PrecomputedHeader | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const fd = openSync(path, 'r');
    const head = Buffer.alloc(12);
    readSync(fd, head, 0, 12, 0);
    const n = head.readUInt32LE(8);
    const bytes = Buffer.alloc(12 + n);
    readSync(fd, bytes, 0, 12 + n, 0);
    closeSync(fd);
    return decodePrecomputedHeader(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}

const log = (line: string) => process.stderr.write(`sample vectors: ${line}\n`);

async function main(): Promise<void> {
  const { values } = cliArgs({
    usage: 'node --import tsx scripts/build-sample-vectors.ts [--model F] [--source S] [--dtype q8|fp32] [--limit N] [--batch 32] [--threads N] [--force]',
    options: { model: { type: 'string' }, source: { type: 'string' }, dtype: { type: 'string' }, limit: { type: 'string' }, batch: { type: 'string' }, threads: { type: 'string' }, force: { type: 'boolean' } },
  });
  const base = join(ROOT, 'public/models/');
  const { config } = await readModelConfig(base, true);
  const folder = values.model ?? config.embedder;
  const source = values.source;
  if (source !== undefined && folder === config.embedder && !values.force) {
    log(`${folder} is the configured model: its table covers the whole corpus, not only '${source}'`);
    return;
  }
  const dtype = (values.dtype ?? config.dtype) as EmbedDtype;
  const limit = values.limit !== undefined ? Number(values.limit) : undefined;
  const batch = Number(values.batch ?? 32);
  const threads = Number(values.threads ?? availableParallelism());
  if (!values.force && catalogEntry(folder)?.backgroundEmbedding !== true) {
    log(`${folder} embeds as fast as it indexes (no background embedding): no precomputed vectors needed`);
    return;
  }
  let resolved;
  try {
    resolved = await resolveModelFolder(base, folder, dtype, true);
  } catch (e) {
    log(`skipped: model ${folder} is not built (${e instanceof Error ? e.message : String(e)}); run npm run models`);
    return;
  }
  const corpusPath = join(ROOT, 'public/sample/corpus.json');
  const whole = JSON.parse(readFileSync(corpusPath, 'utf8')) as SampleCorpus;
  const corpus = source === undefined ? whole : { ...whole, documents: whole.documents.filter((d) => d.meta.source === source) };
  if (corpus.documents.length === 0) throw new Error(`--source ${source}: no document of the sample has that source`);
  const { texts, perDocument } = sampleChunkTexts(corpus);
  const path = join(ROOT, 'public/sample', precomputedFileName(folder));
  const meta = {
    model: resolved.identity, folder, dtype: resolved.dtype, onnxFile: resolved.onnxFile, onnxSha256: resolved.manifest?.files[resolved.onnxFile],
    dimension: resolved.dimension, chunker: { size: DEFAULT_CHUNK_SIZE, overlap: DEFAULT_CHUNK_OVERLAP, contextual: true },
    corpusVersion: corpus.version, source: source ?? 'all', documents: corpus.documents.length, perDocument,
  };
  const existing = currentHeader(path);
  if (!limit && !values.force && existing && cacheKey(existing) === cacheKey({ ...meta, runtime: EMBEDDING_RUNTIME_VERSION, count: texts.length })) {
    log(`${path} up to date (${existing.count} chunks, ${existing.model})`);
    return;
  }
  // Rows of the previous table that the same model and runtime made are reused (looked up by text,
  // as the worker does): a corpus change embeds only the passages it changed.
  const reusable = !limit && !values.force && existing !== undefined && resolved.dimension !== undefined
    && !precomputedMismatch(existing, { identity: resolved.identity, dimension: resolved.dimension });
  const reused = reusable
    ? await lookupPrecomputed(decodePrecomputed(new Uint8Array(readFileSync(path))), texts)
    : texts.map(() => undefined);
  const vectors = reused.slice() as Float32Array[];
  const missing = texts.map((_, i) => i).filter((i) => !reused[i]);
  const todo = limit ? texts.slice(0, limit) : missing.map((i) => texts[i]);
  const load = loadAvg()[0];
  if (!limit && missing.length < texts.length) log(`${texts.length - missing.length} of ${texts.length} chunks reused from ${path}`);
  log(`embedding ${todo.length} chunks with ${resolved.identity} (${resolved.dtype}, ${threads} threads, batch ${batch}; load average ${load.toFixed(2)} on ${availableParallelism()} cores)…`);
  const embedder = await loadEmbedder({ modelBase: base, model: folder, dtype: resolved.dtype, batchSize: batch, threads }, resolved);
  if (embedder.identity !== resolved.identity) throw new Error(`identity ${embedder.identity} differs from the folder's ${resolved.identity}`);
  // Globally length-sorted slices: batches pad little, and progress shows as they finish.
  const order = lengthOrder(todo);
  const fresh = new Array<Float32Array>(todo.length);
  const t0 = performance.now();
  const slice = batch * 8;
  for (let at = 0; at < order.length; at += slice) {
    const ids = order.slice(at, at + slice);
    const out = await embedder.embed(ids.map((i) => todo[i]), 'document');
    ids.forEach((i, j) => (fresh[i] = out[j]));
    const done = Math.min(order.length, at + slice);
    const s = (performance.now() - t0) / 1000;
    // Sorted by length, so the rate falls as texts grow: the ETA is by characters.
    const charsDone = order.slice(0, done).reduce((n, i) => n + todo[i].length, 0);
    const charsAll = charsDone + order.slice(done).reduce((n, i) => n + todo[i].length, 0);
    const eta = charsDone ? (s / charsDone) * (charsAll - charsDone) : 0;
    process.stderr.write(`\rsample vectors: ${done}/${todo.length} chunks, ${s.toFixed(0)} s, about ${eta.toFixed(0)} s left   `);
  }
  const seconds = (performance.now() - t0) / 1000;
  const rate = todo.length / seconds;
  missing.forEach((i, j) => (vectors[i] = fresh[j]));
  const chars = todo.reduce((n, t) => n + t.length, 0) / Math.max(1, todo.length);
  process.stderr.write('\n');
  log(`${embedder.identity} ${embedder.folder.dtype}: ${todo.length} chunks (mean ${chars.toFixed(0)} chars) in ${seconds.toFixed(1)} s = ${rate.toFixed(1)} chunks/s${limit ? `; all ${texts.length} chunks ≈ ${(texts.length / rate / 60).toFixed(1)} min` : ''}`);
  await embedder.dispose();
  if (limit) return;
  const bytes = await encodePrecomputed({ ...meta, dimension: embedder.dimension }, texts, vectors);
  writeFileSync(`${path}.tmp`, bytes);
  renameSync(`${path}.tmp`, path);
  log(`wrote ${path} (${(bytes.length / 1e6).toFixed(1)} MB)`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

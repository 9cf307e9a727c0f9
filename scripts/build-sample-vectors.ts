/**
 * Precomputed encoder vectors for the sample corpus (design; not run by `prepare`, not read by the
 * worker yet). Embeds every chunk of public/sample/corpus.json exactly as the engine would on
 * `index/add` with `chunk: true, contextual: true` (src/engine/chunker.ts with the engine's default
 * size/overlap, text = indexedText(contextOf(meta, headings), body)), in document order then chunk
 * order, and writes public/sample/vectors-<model folder>.bin:
 *
 *   bytes 0..7   magic "RCPVEC1\n"
 *   bytes 8..11  uint32 LE header length N
 *   N bytes      UTF-8 JSON header (below), space-padded so the vectors start at a multiple of 4
 *   then         count × dimension float32 LE, row i = chunk i (L2-normalised, as the runtime stores them)
 *
 * header: { format: 1, model: "<folder>@sha256:<12 hex>" (the runtime's identity, src/models/manifest.ts),
 *   folder, onnxFile, onnxSha256 (full), dtype, dimension, normalized, pooling,
 *   chunker: { size, overlap, contextual: true }, corpusVersion (corpus.json's version), documents,
 *   count, perDocument: [chunk count per document, in corpus order] }
 * A reader uses the vectors only when model, chunker and corpusVersion all match its own.
 *
 *   node --import tsx scripts/build-sample-vectors.ts [--model minilm-l6-v2] [--dtype q8|fp32] [--limit N] [--batch 32]
 * With --limit it embeds only the first N chunks, prints the rate and the projected full time, and
 * writes nothing.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from './lib/args.ts';
import { chunkText } from '../src/engine/analysis/chunker.ts';
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from '../src/engine/config.ts';
import { contextOf, indexedText } from '../src/engine/index/prepare.ts';
import { loadEmbedder } from '../src/models/index.ts';
import type { EmbedDtype } from '../src/models/settings.ts';
import type { SampleCorpus } from './build-sample.ts';

const ROOT = join(import.meta.dirname, '..');
export const VECTORS_MAGIC = 'RCPVEC1\n';

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

export function encodeVectorsFile(header: Record<string, unknown>, vectors: Float32Array[], dimension: number): Uint8Array {
  let json = JSON.stringify(header);
  while ((8 + 4 + Buffer.byteLength(json)) % 4) json += ' ';
  const head = Buffer.from(json);
  const out = new Uint8Array(12 + head.length + vectors.length * dimension * 4);
  out.set(Buffer.from(VECTORS_MAGIC), 0);
  new DataView(out.buffer).setUint32(8, head.length, true);
  out.set(head, 12);
  const body = new Float32Array(out.buffer, 12 + head.length, vectors.length * dimension);
  vectors.forEach((v, i) => body.set(v, i * dimension));
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs(process.argv.slice(2));
  const folder = values.get('model') ?? 'minilm-l6-v2';
  const dtype = (values.get('dtype') ?? 'q8') as EmbedDtype;
  const limit = values.has('limit') ? Number(values.get('limit')) : undefined;
  const batch = Number(values.get('batch') ?? 32);
  const corpus = JSON.parse(readFileSync(join(ROOT, 'public/sample/corpus.json'), 'utf8')) as SampleCorpus;
  const { texts, perDocument } = sampleChunkTexts(corpus);
  const todo = limit ? texts.slice(0, limit) : texts;
  const embedder = await loadEmbedder({ modelBase: join(ROOT, 'public/models/'), model: folder, dtype, batchSize: batch });
  const t0 = performance.now();
  const vectors: Float32Array[] = [];
  for (let at = 0; at < todo.length; at += batch * 8) {
    vectors.push(...(await embedder.embed(todo.slice(at, at + batch * 8), 'document')));
    const s = (performance.now() - t0) / 1000;
    process.stderr.write(`\r${vectors.length}/${todo.length} chunks, ${(vectors.length / s).toFixed(1)}/s`);
  }
  const seconds = (performance.now() - t0) / 1000;
  const rate = todo.length / seconds;
  const chars = todo.reduce((n, t) => n + t.length, 0) / todo.length;
  console.error(`\n${embedder.identity} ${embedder.folder.dtype}: ${todo.length} chunks (mean ${chars.toFixed(0)} chars) in ${seconds.toFixed(1)} s = ${rate.toFixed(1)} chunks/s; all ${texts.length} chunks ≈ ${(texts.length / rate / 60).toFixed(1)} min`);
  if (!limit) {
    const onnxSha256 = embedder.manifest?.files[embedder.folder.onnxFile];
    const header = {
      format: 1, model: embedder.identity, folder, onnxFile: embedder.folder.onnxFile, onnxSha256, dtype: embedder.folder.dtype,
      dimension: embedder.dimension, normalized: true, pooling: 'mean',
      chunker: { size: DEFAULT_CHUNK_SIZE, overlap: DEFAULT_CHUNK_OVERLAP, contextual: true },
      corpusVersion: corpus.version, documents: corpus.documents.length, count: vectors.length, perDocument,
    };
    const path = join(ROOT, `public/sample/vectors-${folder}.bin`);
    writeFileSync(`${path}.tmp`, encodeVectorsFile(header, vectors, embedder.dimension));
    renameSync(`${path}.tmp`, path);
    console.error(`wrote ${path}`);
  }
  await embedder.dispose();
}

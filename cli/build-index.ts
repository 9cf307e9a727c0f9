/**
 * `rcp-in-page index`: a folder of pages → a static bundle (src/bundle/format.ts). The documents
 * go through the very Engine the worker runs (same analyzer, chunker, int8 quantization) over an
 * in-memory store, which is then written out; vectors come from the same model folder the worker
 * loads, run by onnxruntime-node.
 *
 * Incremental: each file's parse is cached by its sha256 and each passage's vector by its text
 * (`<out>/.rcp-cache/`), so a rebuild parses and embeds only what changed; when no input and no
 * option changed, the existing bundle is kept as it is.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Engine } from '../src/engine/engine.ts';
import type { Embedder } from '../src/engine/contracts.ts';
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, DEFAULT_CONTEXT_WEIGHT } from '../src/engine/config.ts';
import { inferFields } from '../src/bundle/fields.ts';
import { checkManifest, listedFiles, MANIFEST_FILE, type BundleManifest, type BundleModel } from '../src/bundle/format.ts';
import { writeBundle } from '../src/bundle/write-bundle.ts';
import { MemoryStore } from '../src/storage/memory-store.ts';
import type { IndexDocument } from '../src/protocol/types.ts';
import { loadDom, loadPdfjs } from './node-deps.ts';
import { indexedExtension, readPage, type PageOutcome } from './read-page.ts';
import { CachedEmbedder } from './vector-cache.ts';
import { readStaticModel } from './static-model.ts';
import type { StaticModelInput } from '../src/bundle/write-static.ts';

export const GENERATOR = 'rcp-in-page 0.1.0';
const CACHE_DIR = '.rcp-cache';
/** Version of the static-model part (src/bundle/static-format.ts) in the input key: a bundle without it is rebuilt. */
const STATIC_PART = 2;
/** Version of the typo shards (src/bundle/typo-format.ts) in the input key: a bundle without them is rebuilt. */
const TYPO_PART = 1;
/** Documents per engine `add` (one segment each; the engine merges past its segment limit). */
const ADD_BATCH = 2_000;
/** The folders a bundle's content files live in ('' = beside the manifest; stale ones are removed after a build). */
const CONTENT_DIRS = ['', 'terms', 'texts', 'vectors', 'fine', 'segments', 'static', 'static/vocab', 'static/rows', 'static/cluster', 'typos'];

export interface BuildOptions {
  /** The site (or content) folder. */
  input: string;
  /** Where the bundle goes (created if absent). */
  out: string;
  /** URL prefix of the pages ('' = root-relative). */
  baseUrl: string;
  /**
   * The model that embeds the passages, or undefined for a sparse-only bundle. `load` is called
   * only when something must be embedded or identified.
   */
  model?: {
    name: string;
    load(): Promise<Embedder>;
    /** The model's folder and weights: a static model's rows and vocabulary are bundled too (static-model.ts). */
    folder?: string;
    dtype?: 'q8' | 'fp32';
  };
  /** One line per event (files skipped, progress, summary). */
  log(line: string): void;
}

export interface BuildReport {
  upToDate: boolean;
  documents: number;
  chunks: number;
  /** Files that were not indexed, with the reason. */
  problems: { path: string; status: string; reason: string }[];
  /** Passages sent to the model (cache misses). */
  embedded: number;
  files: number;
  bytes: number;
  ms: number;
}

/** Files under `root` the indexer reads, as `/`-separated relative paths, sorted (deterministic bundles). */
export function sitePaths(root: string, skip: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const abs = join(dir, e.name);
      if (skip.some((s) => abs === s || abs.startsWith(s + sep))) continue;
      if (e.isDirectory()) walk(abs);
      else if (e.isFile() && indexedExtension(e.name)) out.push(relative(root, abs).split(sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

interface ParseCache {
  version: 1;
  pages: Record<string, { sha256: string; outcome: PageOutcome }>;
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Writes a file through a temporary name, so a reader never sees half of it. */
function writeAtomic(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, data);
  renameSync(`${path}.tmp`, path);
}

export async function buildIndex(o: BuildOptions): Promise<BuildReport> {
  const t0 = performance.now();
  const input = resolve(o.input);
  const out = resolve(o.out);
  if (!existsSync(input)) throw new Error(`${o.input}: no such folder`);
  const cacheDir = join(out, CACHE_DIR);
  const parseCachePath = join(cacheDir, 'pages.json');
  const prior = readJson<ParseCache>(parseCachePath);
  const cache: ParseCache = { version: 1, pages: {} };
  const paths = sitePaths(input, [out]);
  const dom = await loadDom();
  const ctx = { dom, pdfjs: loadPdfjs, baseUrl: o.baseUrl };
  const outcomes: PageOutcome[] = [];
  let parsed = 0;
  for (const path of paths) {
    const abs = join(input, ...path.split('/'));
    const sha256 = createHash('sha256').update(await readFile(abs)).digest('hex');
    const hit = prior?.version === 1 ? prior.pages[path] : undefined;
    const outcome = hit && hit.sha256 === sha256 ? hit.outcome : await readPage(abs, path, ctx);
    if (outcome !== hit?.outcome) parsed++;
    cache.pages[path] = { sha256, outcome };
    outcomes.push(outcome);
  }
  const problems = outcomes.flatMap((p) => (p.status === 'parsed' ? [] : [{ path: p.path, status: p.status, reason: p.reason }]));
  for (const p of problems) o.log(`${p.status === 'empty' ? 'skipped' : p.status}: ${p.path}: ${p.reason}`);
  const docs: IndexDocument[] = outcomes.flatMap((p) => (p.status === 'parsed' ? [p.doc] : []));
  const settings = { analyzer: '', chunkSize: DEFAULT_CHUNK_SIZE, chunkOverlap: DEFAULT_CHUNK_OVERLAP, contextWeight: DEFAULT_CONTEXT_WEIGHT };
  const inputKey = createHash('sha256')
    .update(JSON.stringify({ generator: GENERATOR, baseUrl: o.baseUrl, model: o.model?.name ?? null, dtype: o.model?.dtype ?? null, semantic: STATIC_PART, typos: TYPO_PART, settings, pages: paths.map((p) => [p, cache.pages[p].sha256]) }))
    .digest('hex');

  const manifestPath = join(out, MANIFEST_FILE);
  const existing = readJson<unknown>(manifestPath);
  let current: BundleManifest | undefined;
  try {
    current = existing === undefined ? undefined : checkManifest(existing, manifestPath);
  } catch {
    current = undefined; // another version or damaged: rebuilt below
  }
  const complete = current && listedFiles(current).every((f) => existsSync(join(out, f.path)));
  if (current && complete && current.inputKey === inputKey) {
    o.log(`up to date: ${current.documents} documents, ${current.chunks} passages (${paths.length} files checked)`);
    return { upToDate: true, documents: current.documents, chunks: current.chunks, problems, embedded: 0, files: 0, bytes: 0, ms: performance.now() - t0 };
  }
  if (docs.length === 0) throw new Error(`${o.input}: no page with text to index (${paths.length} files looked at)`);
  o.log(`read ${paths.length} files (${parsed} parsed, ${paths.length - parsed} unchanged): ${docs.length} documents`);

  let embedder: CachedEmbedder | undefined;
  let model: BundleModel | undefined;
  if (o.model) {
    embedder = new CachedEmbedder(await o.model.load(), cacheDir);
    model = { name: o.model.name, identity: embedder.identity, dimension: embedder.dimension };
  }
  let staticModel: StaticModelInput | undefined;
  if (o.model?.folder) {
    const read = readStaticModel(o.model.folder, o.model.dtype ?? 'q8');
    if (read.ok) staticModel = read.model;
    else if (read.reason !== 'not a static (lookup-table) model') o.log(`no semantic shards: ${o.model.name}: ${read.reason}`);
  }
  const store = new MemoryStore();
  const engine = new Engine({ store, embedder, limits: { maxDocumentsPerAdd: ADD_BATCH } });
  await engine.open();
  settings.analyzer = engine.analyzer.id;
  for (let at = 0; at < docs.length; at += ADD_BATCH) {
    const batch = docs.slice(at, at + ADD_BATCH);
    // chunk + contextual: exactly what the playground's import asks for (src/app/ingest.ts).
    await engine.add(batch, { chunk: true, contextual: true });
    o.log(`indexed ${Math.min(docs.length, at + ADD_BATCH)}/${docs.length} documents${embedder ? ` (${embedder.embedded} passages embedded, the rest from the cache)` : ''}`);
  }
  engine.close();
  const written = await writeBundle({
    store,
    engine: settings,
    model,
    ...(staticModel ? { staticModel } : {}),
    fields: inferFields(docs.map((d) => d.meta ?? {})),
    analyzer: engine.analyzer,
    generator: GENERATOR,
    inputKey,
  });
  let bytes = 0;
  let wrote = 0;
  for (const [path, data] of written.files) {
    bytes += data.byteLength;
    const target = join(out, ...path.split('/'));
    // Content-addressed: a file of that name already holds these bytes.
    if (existsSync(target)) continue;
    writeAtomic(target, data);
    wrote++;
  }
  // The manifest last, so a reader never sees one that lists files not yet written.
  writeAtomic(manifestPath, JSON.stringify(written.manifest, null, 1));
  for (const dir of CONTENT_DIRS) {
    const folder = join(out, dir);
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      const path = dir ? `${dir}/${name}` : name;
      if (name.endsWith('.bin') && !written.files.has(path)) rmSync(join(folder, name), { force: true });
    }
  }
  embedder?.save({ prune: true });
  writeAtomic(parseCachePath, JSON.stringify(cache));
  const m = written.manifest;
  o.log(`wrote ${out}: ${m.documents} documents, ${m.chunks} passages, ${written.files.size} files (${wrote} new), ${(bytes / 1024).toFixed(0)} KiB`);
  return { upToDate: false, documents: m.documents, chunks: m.chunks, problems, embedded: embedder?.embedded ?? 0, files: written.files.size, bytes, ms: performance.now() - t0 };
}

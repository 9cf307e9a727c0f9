/**
 * A static index bundle: the engine's own index written ahead of time by `rcp-in-page index` and
 * opened read-only over plain HTTP by the worker (bundle-store.ts), which reads only what each
 * request needs (the engine's partial segments, src/engine/index/partial.ts). What travels is
 * the engine's segments cut into the pieces a query touches, so a bundle answers exactly as the
 * same documents added in the page would.
 *
 * Layout (every path relative to the manifest; every file but the manifest is named by its content
 * hash, so a static host or CDN may cache it forever and only the manifest is revalidated; files
 * marked `gzip` are gzip-compressed by the writer, whatever the host does):
 *
 *   rcp-bundle.json          this manifest (BundleManifest)
 *   core-<hash>.bin          per segment: chunk keys, each chunk's document and index, BM25 length sum
 *   terms/<n>-<hash>.bin     the postings of the terms whose FNV-1a hash is n modulo the shard count,
 *                            each posting with its chunk's BM25 length
 *   texts/<n>-<hash>.bin     documents (text, meta) and their chunks' citation data, by ordinal range
 *   ids-<hash>.bin           every document's id, by ordinal
 *   metas-<hash>.bin         every document's meta, version and text length, by ordinal
 *   vectors/<id>-<hash>.bin  a segment's vectors (int8 codes, scales, sign bits: the engine's own)
 *   fine/<id>-<hash>.bin     their fine codes (what dense rescoring reads)
 *   typos-<hash>.bin         the listing of the typo shards (typo-format.ts), read only to correct a word
 *   typos/<n>-<hash>.bin     the corpus's words by blocking key, with their counts
 *
 * Documents are numbered in id order (UTF-16 code units) across the segments, which is the order
 * the engine breaks score ties in, so ranking needs no id.
 */
import type { FilterFieldType } from '../protocol/types.ts';
import type { Manifest, StoredChunk, StoredDocument } from '../engine/contracts.ts';
import type { BundleStatic } from './static-format.ts';
import type { BundleFile, BundleShards, BundleTypos } from './file-types.ts';

export type { BundleFile, BundleShards } from './file-types.ts';

export const BUNDLE_FORMAT = 'rcp-in-page-bundle';
/** Bumped on any change a reader of the previous version would misread. */
export const BUNDLE_VERSION = 2;
export const MANIFEST_FILE = 'rcp-bundle.json';


export interface BundleSegment {
  id: number;
  chunks: number;
  docs: number;
  vectors?: BundleFile;
  fine?: BundleFile;
}

/** A text shard: the documents with ordinals from `firstDoc` to the next shard's. */
export interface BundleTextFile extends BundleFile {
  firstDoc: number;
}


/** Text shards also say the ordinal of their first document (ascending; the first is 0). */
export interface BundleTextShards extends BundleShards {
  firstDocs: number[];
}

/**
 * Hex digits of a shard's sha256 the manifest keeps (and its name carries). Eight, as the static
 * core's: with the length, enough to refuse a truncated upload or another build's file, and the
 * manifest, read before every first answer, is 9 KB smaller for NPL's thousand shards.
 */
export const SHARD_HASH = 8;

/** Bundles written before 2026-12-04 keep 16 digits per shard: still read. */
export const OLD_SHARD_HASH = 16;

/**
 * The listing of these files (all gzip, all named by `digits` hex digits of their hash: SHARD_HASH
 * for the manifest's, fewer for the static core's thousands of row shards).
 */
export function shardsOf(files: readonly BundleFile[], digits = SHARD_HASH): BundleShards {
  return { hashes: files.map((f) => f.sha256.slice(0, digits)).join(''), bytes: files.map((f) => f.bytes) };
}

/** Hex digits of a shard's hash the static core keeps (a truncated upload or another build's file is still refused). */
export const STATIC_SHARD_HASH = 8;

export function shardFile(dir: string, shards: BundleShards, i: number): BundleFile {
  const digits = shards.hashes.length / shards.bytes.length;
  const hash = shards.hashes.slice(i * digits, (i + 1) * digits);
  return { path: `${dir}/${i}-${hash}.bin`, sha256: hash, bytes: shards.bytes[i], gzip: true };
}

/** Term shard `i` of a manifest. */
export const termFile = (m: Pick<BundleManifest, 'terms'>, i: number): BundleFile => shardFile('terms', m.terms, i);

/** Text shard `i` of a manifest. */
export const textFile = (m: Pick<BundleManifest, 'texts'>, i: number): BundleTextFile => ({ ...shardFile('texts', m.texts, i), firstDoc: m.texts.firstDocs[i] });

/** How the documents were indexed: a worker serving the bundle must analyse queries the same way. */
export interface BundleEngineSettings {
  /** `Analyzer.id` (src/engine/analysis/analyzer.ts). */
  analyzer: string;
  chunkSize: number;
  chunkOverlap: number;
  contextWeight: number;
}

export interface BundleModel {
  /** Folder under the models base (`minilm-l6-v2`). */
  name: string;
  /** §15.7 identity of the weights the vectors came from. */
  identity: string;
  dimension: number;
}

/** Facet counts of a keyword field, counted at build time (`facetValues`, the most frequent first). */
export interface BundleFacets {
  values: { value: string | number | boolean; count: number }[];
  distinct: number;
}

export interface BundleManifest {
  format: typeof BUNDLE_FORMAT;
  version: typeof BUNDLE_VERSION;
  /** What wrote it (`rcp-in-page <version>`). */
  generator: string;
  /** When it was built (RFC 3339). */
  built: string;
  /**
   * Hash of every input file and build option: a rebuild with the same key changes nothing, so
   * the CLI skips it.
   */
  inputKey: string;
  engine: BundleEngineSettings;
  /** Absent: a sparse-only bundle (built without a model). */
  model?: BundleModel;
  documents: number;
  chunks: number;
  /** Metadata fields the documents carry, with the filter type each supports. */
  fields: Record<string, FilterFieldType>;
  /** The engine's index manifest (segment ids, next keys, version). */
  index: Manifest;
  /** In `index.segmentIds` order. */
  segments: BundleSegment[];
  core: BundleFile;
  /** Term `t` lives in term shard `fnv1a(t) % terms.bytes.length` (termFile). */
  terms: BundleShards;
  /** Documents by ordinal range (textFile, textFileOf). */
  texts: BundleTextShards;
  ids: BundleFile;
  metas: BundleFile;
  /** Keyword fields' facet counts (up to FACET_VALUES values each). */
  facets: Record<string, BundleFacets>;
  /**
   * Built with a static model: its vocabulary and rows, and the vectors as clustered sign bits
   * (static-format.ts), so a dense or hybrid first answer reads a few shards and no model runtime.
   */
  static?: BundleStatic;
  /**
   * The corpus's words for typo tolerance (typo-format.ts). Optional, so the format version did
   * not change: a reader that predates it ignores it (and corrects nothing), and a bundle written
   * before it is read as before (a query word it does not know stays as typed).
   */
  typos?: BundleTypos;
}

/** Facet values a manifest keeps per keyword field. */
export const FACET_VALUES = 64;

/** Every file a manifest lists. */
export function listedFiles(m: BundleManifest): BundleFile[] {
  return [
    m.core, m.ids, m.metas,
    ...m.terms.bytes.map((_, i) => termFile(m, i)),
    ...m.texts.bytes.map((_, i) => textFile(m, i)),
    ...m.segments.flatMap((s) => [s.vectors, s.fine].filter((f): f is BundleFile => f !== undefined)),
    ...(m.static ? [m.static.core] : []),
    ...(m.typos ? [m.typos.core] : []),
  ];
}

/** What a bundle text shard holds (codec.ts value): documents by ordinal (null: a document no chunk keeps live). */
export interface TextShard {
  documents: (StoredDocument | null)[];
  /** Their chunks, without fine codes (those are in the segment's fine file). */
  chunks: Omit<StoredChunk, 'fine'>[];
}

/** What a segment's fine file holds (codec value): the fine codes of its chunks by local ordinal. */
export interface FineFile {
  identity: string;
  dimension: number;
  /** 1 = the chunk has fine codes (its row of `codes` and its scale are set). */
  has: Uint8Array;
  scales: Float32Array;
  codes: Int8Array;
}

/** A bundle that cannot be read: missing, damaged, of another version, or a file that fails its hash. */
export class BundleError extends Error {
  override readonly name = 'BundleError';
  constructor(
    message: string,
    /** The bundle file at fault (a URL or a path). */
    readonly file: string,
  ) {
    super(message);
  }
}

/** The shard of a term: FNV-1a 32-bit over its UTF-16 code units. */
export function termShardOf(id: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

/** The index of the text shard of a manifest holding document ordinal `o`. */
export function textIndexOf(m: Pick<BundleManifest, 'texts'>, o: number): number {
  const t = m.texts.firstDocs;
  let lo = 0;
  let hi = t.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (t[mid] <= o) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The text shard of a manifest holding document ordinal `o`. */
export const textFileOf = (m: Pick<BundleManifest, 'texts'>, o: number): BundleTextFile => textFile(m, textIndexOf(m, o));

/** Checks that `value` is a manifest this reader understands; throws BundleError naming `file` otherwise. */
export function checkManifest(value: unknown, file: string): BundleManifest {
  const m = value as Partial<BundleManifest> | null;
  if (!m || typeof m !== 'object' || m.format !== BUNDLE_FORMAT) throw new BundleError(`${file} is not an rcp-in-page bundle manifest`, file);
  if (m.version !== BUNDLE_VERSION) {
    throw new BundleError(`${file} is bundle format version ${String(m.version)}; this engine reads version ${BUNDLE_VERSION} (rebuild it with this version's \`rcp-in-page index\`)`, file);
  }
  const listing = (s: Partial<BundleTextShards> | undefined, text: boolean): boolean =>
    !!s && typeof s.hashes === 'string' && Array.isArray(s.bytes) && s.bytes.length > 0 &&
    (s.hashes.length === s.bytes.length * SHARD_HASH || s.hashes.length === s.bytes.length * OLD_SHARD_HASH) &&
    (!text || (Array.isArray(s.firstDocs) && s.firstDocs.length === s.bytes.length && s.firstDocs[0] === 0));
  const ok = m.index && Array.isArray(m.index.segmentIds) && Array.isArray(m.segments) && listing(m.texts, true) &&
    listing(m.terms, false) && m.core && m.ids && m.metas && m.engine && typeof m.engine.analyzer === 'string';
  if (!ok) throw new BundleError(`${file} is damaged (missing index, segments, terms, texts or engine settings)`, file);
  if (m.typos !== undefined && !(m.typos && typeof m.typos.core?.path === 'string' && typeof m.typos.core.sha256 === 'string')) {
    throw new BundleError(`${file} is damaged (its typos entry names no listing file)`, file);
  }
  return m as BundleManifest;
}

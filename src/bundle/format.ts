/**
 * A static index bundle: the engine's own index (segments, vectors, documents) written ahead of
 * time by `rcp-in-page index` and opened read-only over plain HTTP by the worker (bundle-store.ts).
 * The unit that travels is the engine's segment, so a bundle answers exactly as the same documents
 * added in the page would.
 *
 * Layout (every path relative to the manifest; every file but the manifest is named by its content
 * hash, so a static host or CDN may cache it forever and only the manifest is revalidated):
 *
 *   rcp-bundle.json                    this manifest (BundleManifest)
 *   segments/<id>-<hash>.bin           a segment record without vectors (codec.ts)
 *   vectors/<id>-<hash>.bin            that segment's vectors
 *   texts/<shard>-<hash>.bin           the documents whose id hashes to the shard, with their chunks
 */
import type { FilterFieldType } from '../protocol/types.ts';
import type { Manifest, StoredChunk, StoredDocument } from '../engine/contracts.ts';

export const BUNDLE_FORMAT = 'rcp-in-page-bundle';
/** Bumped on any change a reader of the previous version would misread. */
export const BUNDLE_VERSION = 1;
export const MANIFEST_FILE = 'rcp-bundle.json';

/** One file of the bundle, as the manifest lists it. */
export interface BundleFile {
  /** Path relative to the manifest. */
  path: string;
  /** sha256 of the file's bytes (hex): a reader refuses a file that does not match. */
  sha256: string;
  bytes: number;
}

export interface BundleSegment {
  id: number;
  chunks: number;
  lexical: BundleFile;
  vectors?: BundleFile;
}

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
  segments: BundleSegment[];
  /** Documents live in `texts[fnv1a(id) % texts.length]`. */
  texts: BundleFile[];
}

/** What a bundle text shard holds (codec.ts value). */
export interface TextShard {
  documents: StoredDocument[];
  chunks: StoredChunk[];
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

/** The shard of a document id: FNV-1a 32-bit over its UTF-16 code units. */
export function textShardOf(id: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

/** Checks that `value` is a manifest this reader understands; throws BundleError naming `file` otherwise. */
export function checkManifest(value: unknown, file: string): BundleManifest {
  const m = value as Partial<BundleManifest> | null;
  if (!m || typeof m !== 'object' || m.format !== BUNDLE_FORMAT) throw new BundleError(`${file} is not an rcp-in-page bundle manifest`, file);
  if (m.version !== BUNDLE_VERSION) {
    throw new BundleError(`${file} is bundle format version ${String(m.version)}; this engine reads version ${BUNDLE_VERSION} (rebuild it with this version's \`rcp-in-page index\`)`, file);
  }
  const ok = m.index && Array.isArray(m.index.segmentIds) && Array.isArray(m.segments) && Array.isArray(m.texts) && m.texts.length > 0 && m.engine && typeof m.engine.analyzer === 'string';
  if (!ok) throw new BundleError(`${file} is damaged (missing index, segments, texts or engine settings)`, file);
  return m as BundleManifest;
}

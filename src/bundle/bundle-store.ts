/**
 * A read-only IndexStore over a bundle served by any static host (format.ts). The manifest is read
 * first (revalidated: it is the one file whose name does not change); `load()` then reads the
 * segments, `loadVectors` the vectors (the engine asks after its first answer), and document texts
 * and chunks are read per text shard, only when a hit, a document view or a rescoring needs them.
 * Every file is checked against the manifest's sha256, so a truncated upload, a file from another
 * build or a proxy's error page is refused by name instead of answering wrongly.
 *
 * Files are kept in the Cache API (http-cache.ts), so a visited site's search works offline.
 * Writes throw: the server never advertises them for a bundle (src/bundle/serve-bundle.ts).
 */
import type {
  Change, IndexStore, LoadOptions, LoadedIndex, Manifest, SegmentRecord, SegmentVectors, StoredChunk, StoredDocument,
} from '../engine/contracts.ts';
import { tableId } from '../engine/index/doc-table-fields.ts';
import { BundleFormatError, decodeValue } from './codec.ts';
import { BundleError, checkManifest, MANIFEST_FILE, textShardOf, type BundleFile, type BundleManifest, type TextShard } from './format.ts';
import { sha256Hex } from './hash.ts';
import { cachingFetch, pruneBundleCache } from './http-cache.ts';

export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

export interface BundleStoreOptions {
  /** Default: the global fetch. */
  fetch?: FetchLike;
  /**
   * Keep the bundle's files in the Cache API, so a second visit searches offline (http-cache.ts).
   * Default true where the Cache API exists.
   */
  cache?: boolean;
}

/** A write to a bundle: bundles are built by `rcp-in-page index`, never changed in place. */
export class ReadOnlyBundleError extends Error {
  override readonly name = 'ReadOnlyBundleError';
}

/** `base` as a folder URL (the manifest's, when given the manifest's own URL). */
export function bundleBase(url: string): string {
  if (url.endsWith(`/${MANIFEST_FILE}`)) return url.slice(0, -MANIFEST_FILE.length);
  return url.endsWith('/') ? url : `${url}/`;
}

/** Reads and checks the manifest at `base` (a folder URL). Rejects with BundleError naming the URL. */
export async function fetchManifest(base: string, fetchFn: FetchLike = fetch): Promise<BundleManifest> {
  const url = `${bundleBase(base)}${MANIFEST_FILE}`;
  let value: unknown;
  try {
    const res = await fetchFn(url, { cache: 'no-cache' });
    if (!res.ok) throw new BundleError(`${url}: HTTP ${res.status}`, url);
    value = await res.json();
  } catch (e) {
    if (e instanceof BundleError) throw e;
    throw new BundleError(`${url} could not be read: ${(e as Error).message}`, url);
  }
  return checkManifest(value, url);
}

export class BundleStore implements IndexStore {
  private readonly fetchFn: FetchLike;
  private readonly shards = new Map<number, Promise<{ docs: Map<string, StoredDocument>; chunks: Map<number, StoredChunk> }>>();
  /** chunk key → document id, built from the loaded segments' tables on the first `getChunks`. */
  private keyToDoc: Map<number, string> | undefined;
  private segments: SegmentRecord[] | undefined;
  /** Bytes fetched so far (manifest excluded), for measurements and the playground's status. */
  bytesRead = 0;

  private constructor(
    readonly base: string,
    readonly manifest: BundleManifest,
    fetchFn: FetchLike,
  ) {
    this.fetchFn = fetchFn;
  }

  /** Reads the manifest at `url` (the bundle's folder or its rcp-bundle.json) and returns the store. */
  static async open(url: string, options: BundleStoreOptions = {}): Promise<BundleStore> {
    const base = bundleBase(url);
    const manifestUrl = `${base}${MANIFEST_FILE}`;
    const plain: FetchLike = options.fetch ?? ((u, init) => fetch(u, init));
    const fetchFn = options.cache === false ? plain : cachingFetch(plain, base, manifestUrl);
    const manifest = await fetchManifest(base, fetchFn);
    const listed = [manifest.segments.flatMap((s) => (s.vectors ? [s.lexical, s.vectors] : [s.lexical])), manifest.texts].flat();
    // The cache keeps this build only; done in the background (it never delays the first answer).
    if (options.cache !== false) void pruneBundleCache(base, new Set([manifestUrl, ...listed.map((f) => new URL(f.path, base).href)])).catch(() => undefined);
    return new BundleStore(base, manifest, fetchFn);
  }

  /** Fetches one listed file and checks its length and hash. */
  private async read(file: BundleFile): Promise<unknown> {
    const url = new URL(file.path, this.base).href;
    let bytes: Uint8Array;
    try {
      const res = await this.fetchFn(url);
      if (!res.ok) throw new BundleError(`${url}: HTTP ${res.status}`, url);
      bytes = new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      if (e instanceof BundleError) throw e;
      throw new BundleError(`${url} could not be read: ${(e as Error).message}`, url);
    }
    this.bytesRead += bytes.byteLength;
    if (bytes.byteLength !== file.bytes || (await sha256Hex(bytes)) !== file.sha256) {
      throw new BundleError(`${url} does not match the bundle manifest (${bytes.byteLength} bytes, expected ${file.bytes}): a truncated upload or a file from another build`, url);
    }
    try {
      return decodeValue(bytes);
    } catch (e) {
      if (e instanceof BundleFormatError) throw new BundleError(`${url}: ${e.message}`, url);
      throw e;
    }
  }

  async load(options?: LoadOptions): Promise<LoadedIndex> {
    const m = this.manifest;
    this.segments ??= await Promise.all(m.segments.map(async (s) => (await this.read(s.lexical)) as SegmentRecord));
    const out: LoadedIndex = { manifest: structuredClone(m.index), segments: this.segments };
    const tabled = this.segments.every((s) => s.docTable !== undefined) && m.index.chunkless === 0;
    if (options?.documents !== 'unless-tabled' || !tabled) {
      const all = await Promise.all(m.texts.map((_, i) => this.shard(i)));
      out.documents = all.flatMap((s) => [...s.docs.values()].map(({ id, meta, chunkKeys, version }) => ({ id, meta, chunkKeys, version })));
    }
    return out;
  }

  async loadVectors(segmentIds: number[]): Promise<Map<number, SegmentVectors>> {
    const wanted = this.manifest.segments.filter((s) => s.vectors && segmentIds.includes(s.id));
    const read = await Promise.all(wanted.map(async (s) => [s.id, (await this.read(s.vectors!)) as SegmentVectors] as const));
    return new Map(read);
  }

  async readManifest(): Promise<Manifest> {
    return structuredClone(this.manifest.index);
  }

  private shard(i: number): Promise<{ docs: Map<string, StoredDocument>; chunks: Map<number, StoredChunk> }> {
    let p = this.shards.get(i);
    if (!p) {
      p = this.read(this.manifest.texts[i]).then((v) => {
        const s = v as TextShard;
        return { docs: new Map(s.documents.map((d) => [d.id, d])), chunks: new Map(s.chunks.map((c) => [c.key, c])) };
      });
      // A failed read is tried again by the next call (a flaky network must not poison the shard).
      p.catch(() => this.shards.delete(i));
      this.shards.set(i, p);
    }
    return p;
  }

  async getDocuments(ids: string[]): Promise<(StoredDocument | undefined)[]> {
    const n = this.manifest.texts.length;
    const shards = await Promise.all([...new Set(ids.map((id) => textShardOf(id, n)))].map(async (i) => [i, await this.shard(i)] as const));
    const byShard = new Map(shards);
    return ids.map((id) => byShard.get(textShardOf(id, n))!.docs.get(id));
  }

  async getChunks(keys: number[]): Promise<(StoredChunk | undefined)[]> {
    const owners = this.chunkOwners();
    const ids = keys.map((k) => owners.get(k));
    const n = this.manifest.texts.length;
    const wanted = [...new Set(ids.filter((id): id is string => id !== undefined).map((id) => textShardOf(id, n)))];
    const byShard = new Map(await Promise.all(wanted.map(async (i) => [i, await this.shard(i)] as const)));
    return keys.map((k, j) => {
      const id = ids[j];
      return id === undefined ? undefined : byShard.get(textShardOf(id, n))!.chunks.get(k);
    });
  }

  private chunkOwners(): Map<number, string> {
    if (this.keyToDoc) return this.keyToDoc;
    const out = new Map<number, string>();
    for (const s of this.segments ?? []) {
      const t = s.docTable;
      if (!t) continue;
      for (let c = 0; c < s.chunkKeys.length; c++) {
        const d = t.docOf[c];
        if (d >= 0) out.set(s.chunkKeys[c], tableId(t, d));
      }
    }
    return (this.keyToDoc = out);
  }

  async getIdempotent(): Promise<undefined> {
    return undefined;
  }

  async commit(_change: Change): Promise<void> {
    throw new ReadOnlyBundleError('a bundle is read-only: rebuild it with `rcp-in-page index`');
  }

  async clear(): Promise<void> {
    throw new ReadOnlyBundleError('a bundle is read-only: rebuild it with `rcp-in-page index`');
  }

  close(): void {}
}

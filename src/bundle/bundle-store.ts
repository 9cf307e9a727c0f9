/**
 * A read-only IndexStore over a bundle served by any static host (format.ts), read on demand:
 * `load()` reads the manifest's small core file and returns partial segments (the engine's
 * `SegmentRecord.partial`); the engine then asks through `partial` (PartialSource) for the
 * postings of a query's terms, the documents of its hits, or, for what needs every document, the
 * id and meta tables. Vectors are read whole when dense search first needs them (`loadVectors`).
 * Every file is checked against the manifest's sha256 (bundle-files.ts), so a truncated upload, a
 * file from another build or a proxy's error page is refused by name instead of answering wrongly.
 *
 * Files are kept in the Cache API (http-cache.ts), so a visited site's search works offline.
 * Writes throw: the server never advertises them for a bundle (src/server/serve-bundle.ts).
 */
import type {
  Change, FineCodes, IndexStore, LoadedIndex, Manifest, PartialDocument, PartialSource, PartialTable, SegmentRecord,
  SegmentVectors, StoredChunk, StoredDocument, TermPostings,
} from '../engine/contracts.ts';
import { keyOrdinal } from '../engine/index/view.ts';
import { BundleFiles, bundleBase, fetchManifest, primedFetch, type FetchLike } from './bundle-files.ts';
import type { PrimedFile } from '../protocol/control.ts';
import { listedFiles, MANIFEST_FILE, termFile, termShardOf, textFile, textIndexOf, type BundleManifest, type BundleTextFile, type FineFile, type TextShard } from './format.ts';
import { cachingFetch, pruneBundleCache } from './http-cache.ts';
import { decodeCore, decodeTermShard, type CoreValue, type TermShardValue } from './pieces.ts';
import type { StaticDense } from './static-dense.ts';
import { TypoReader } from './typo-reader.ts';

export { bundleBase, fetchManifest, type FetchLike } from './bundle-files.ts';

/** How long after the open the Cache API copy drops files of other builds. */
const CACHE_PRUNE_DELAY_MS = 5000;

export interface BundleStoreOptions {
  /** Default: the global fetch. */
  fetch?: FetchLike;
  /**
   * Keep the bundle's files in the Cache API, so a second visit searches offline (http-cache.ts).
   * Default true where the Cache API exists.
   */
  cache?: boolean;
  /**
   * Clusters a static-model bundle's on-demand dense recall scores per query (default: the
   * bundle's, 4): more reads more bytes and misses fewer near chunks (scripts/measure-static-dense.ts).
   */
  denseProbe?: number;
  /** Files the page fetched ahead (prime.ts): served from these bytes, checked like any fetched file. */
  primed?: readonly PrimedFile[];
}

/** A write to a bundle: bundles are built by `rcp-in-page index`, never changed in place. */
export class ReadOnlyBundleError extends Error {
  override readonly name = 'ReadOnlyBundleError';
}

interface MetasValue {
  metas: Record<string, unknown>[];
  versions: Uint32Array;
  lengths: Uint32Array;
}

/** A decoded text shard with its documents by id. */
interface Texts {
  file: BundleTextFile;
  shard: TextShard;
  byId: Map<string, StoredDocument>;
  chunks: Map<number, Omit<StoredChunk, 'fine'>>;
}

export class BundleStore implements IndexStore {
  readonly partial: PartialSource;
  /** The static model's rows and the clustered sign bits, when the bundle was built with a static model. */
  readonly staticDense: StaticDense | undefined;
  /** The corpus's words by blocking key, when the bundle carries them (typo-format.ts). */
  private readonly typos: TypoReader | undefined;
  private readonly files: BundleFiles;
  private segments: Promise<SegmentRecord[]> | undefined;
  private readonly texts = new Map<string, Promise<Texts>>();
  private readonly textFiles: BundleTextFile[] = [];
  /** Ordinals of the documents of the text shards read so far, by id. */
  private readonly known = new Map<string, number>();
  private idMap: Promise<Map<string, number>> | undefined;

  private constructor(
    readonly base: string,
    readonly manifest: BundleManifest,
    fetchFn: FetchLike,
    denseProbe: number | undefined,
    StaticDenseReader: typeof StaticDense | undefined,
  ) {
    this.files = new BundleFiles(base, fetchFn);
    this.staticDense = manifest.static && StaticDenseReader ? new StaticDenseReader(this.files, manifest.static, manifest.segments.map((s) => s.id)) : undefined;
    const dense = this.staticDense;
    const typos = (this.typos = manifest.typos ? new TypoReader(this.files, manifest.typos) : undefined);
    this.partial = {
      ...(dense ? { denseNearest: (query: Float32Array) => dense.nearest(query, denseProbe) } : {}),
      ...(typos ? { nearWords: (words: readonly string[]) => typos.near(words) } : {}),
      readTerms: (terms) => this.readTerms(terms),
      readAllTerms: () => this.readTerms(undefined),
      readDocuments: (ordinals) => this.readDocuments(ordinals),
      readTable: (what) => this.readTable(what),
      readFine: (keys) => this.readFine(keys),
      facets: (field, limit) => {
        const f = this.manifest.facets[field];
        return f && (limit <= f.values.length || f.values.length === f.distinct) ? { values: f.values.slice(0, limit), distinct: f.distinct } : undefined;
      },
    };
  }

  /** Reads the manifest at `url` (the bundle's folder or its rcp-bundle.json) and returns the store. */
  static async open(url: string, options: BundleStoreOptions = {}): Promise<BundleStore> {
    const base = bundleBase(url);
    const manifestUrl = `${base}${MANIFEST_FILE}`;
    const network: FetchLike = options.fetch ?? ((u, init) => fetch(u, init));
    const plain = options.primed?.length ? primedFetch(network, options.primed) : network;
    const fetchFn = options.cache === false ? plain : cachingFetch(plain, base, manifestUrl);
    const manifest = await fetchManifest(base, fetchFn);
    // The cache keeps this build only; done a few seconds later (listing a thousand shard URLs and
    // the cache's keys is ~15 ms of this thread, which the first answer must not wait behind).
    // The static-model reader is imported only for a bundle built with a static model (a sparse bundle's first answer does not fetch it).
    const StaticDenseReader = manifest.static && manifest.model ? (await import('./static-dense.ts')).StaticDense : undefined;
    const store = new BundleStore(base, manifest, fetchFn, options.denseProbe, StaticDenseReader);
    // Without a Cache API (Node: the CLI, tests) there is nothing to prune, and no timer keeps the process up.
    if (options.cache !== false && 'caches' in globalThis) {
      const keep = async (): Promise<Set<string>> => {
        // A static-model bundle lists its row and cluster shards in its static core: pruned once a query read it.
        const more = [...(store.staticDense ? await store.staticDense.listedFiles() : []), ...(store.typos ? await store.typos.listedFiles() : [])];
        return new Set([manifestUrl, ...[...listedFiles(manifest), ...more].map((f) => new URL(f.path, base).href)]);
      };
      void new Promise<void>((later) => setTimeout(later, CACHE_PRUNE_DELAY_MS))
        .then(() => (store.staticDense ? store.staticDense.coreRead() : undefined))
        .then(keep)
        .then((files) => pruneBundleCache(base, files))
        .catch(() => undefined);
    }
    return store;
  }

  /** Bytes fetched so far (manifest excluded), for measurements and the playground's status. */
  get bytesRead(): number {
    return this.files.bytesRead;
  }

  /** The segments as partial records: chunk keys and documents from the core file, nothing else. */
  private records(): Promise<SegmentRecord[]> {
    if (!this.segments) {
      const m = this.manifest;
      this.segments = this.files.get<CoreValue>(m.core).then((core) =>
        decodeCore(core).map(({ chunkKeys, partial }, i): SegmentRecord => {
          const s = m.segments[i];
          const model = m.model;
          return {
            id: s.id,
            chunkKeys,
            lexical: undefined,
            partial,
            ...(s.vectors && model ? { denseApart: { identity: model.identity, dimension: model.dimension } } : {}),
          };
        }),
      );
      this.segments.catch(() => (this.segments = undefined));
    }
    return this.segments;
  }

  async load(): Promise<LoadedIndex> {
    return { manifest: structuredClone(this.manifest.index), segments: await this.records() };
  }

  async loadVectors(segmentIds: number[]): Promise<Map<number, SegmentVectors>> {
    const wanted = this.manifest.segments.filter((s) => s.vectors && segmentIds.includes(s.id));
    return new Map(await Promise.all(wanted.map(async (s) => [s.id, await this.files.get<SegmentVectors>(s.vectors!)] as const)));
  }

  async readManifest(): Promise<Manifest> {
    return structuredClone(this.manifest.index);
  }

  /** Postings of the asked terms (all terms when undefined), by term. */
  private async readTerms(terms: readonly string[] | undefined): Promise<Map<string, TermPostings[]>> {
    const m = this.manifest;
    const count = m.terms.bytes.length;
    const wanted = terms && new Set(terms);
    const which = wanted ? [...new Set([...wanted].map((t) => termShardOf(t, count)))] : m.terms.bytes.map((_, i) => i);
    const read = await Promise.all(which.map((i) => this.files.get<TermShardValue>(termFile(m, i))));
    const ids = this.manifest.segments.map((s) => s.id);
    const out = new Map<string, TermPostings[]>();
    for (const v of read) decodeTermShard(v, wanted, ids, out);
    return out;
  }

  /** The text shard holding ordinal `o` (one object per shard: reads are grouped by it). */
  private textFileOf(o: number): BundleTextFile {
    const i = textIndexOf(this.manifest, o);
    return (this.textFiles[i] ??= textFile(this.manifest, i));
  }

  private textShard(file: BundleTextFile): Promise<Texts> {
    let p = this.texts.get(file.path);
    if (!p) {
      p = this.files.get<TextShard>(file).then((shard) => {
        const byId = new Map<string, StoredDocument>();
        shard.documents.forEach((d, i) => {
          if (!d) return;
          byId.set(d.id, d);
          this.known.set(d.id, file.firstDoc + i);
        });
        return { file, shard, byId, chunks: new Map(shard.chunks.map((c) => [c.key, c])) };
      });
      p.catch(() => this.texts.delete(file.path));
      this.texts.set(file.path, p);
    }
    return p;
  }

  private async readDocuments(ordinals: readonly number[]): Promise<PartialDocument[]> {
    const files = [...new Set(ordinals.map((o) => this.textFileOf(o)))];
    const shards = new Map(await Promise.all(files.map(async (f) => [f, await this.textShard(f)] as const)));
    const out: PartialDocument[] = [];
    for (const o of ordinals) {
      const t = shards.get(this.textFileOf(o))!;
      const d = t.shard.documents[o - t.file.firstDoc];
      if (!d) continue;
      const chunks = d.chunkKeys.flatMap((k) => {
        const c = t.chunks.get(k);
        return c ? [{ key: k, start: c.start, end: c.end, context: c.context ?? '' }] : [];
      });
      out.push({ ordinal: o, id: d.id, meta: d.meta, version: d.version, length: d.text.length, chunks });
    }
    return out;
  }

  private async readTable(what: 'ids' | 'all'): Promise<PartialTable> {
    const { ids } = await this.files.get<{ ids: string[] }>(this.manifest.ids);
    if (what === 'ids') return { ids };
    const { metas, versions, lengths } = await this.files.get<MetasValue>(this.manifest.metas);
    return { ids, metas, versions, lengths };
  }

  /** Segment position and local ordinal of a chunk key, or undefined. */
  private async locate(keys: readonly number[]): Promise<({ seg: number; local: number } | undefined)[]> {
    const records = await this.records();
    return keys.map((key) => {
      for (let seg = 0; seg < records.length; seg++) {
        const local = keyOrdinal(records[seg].chunkKeys, key);
        if (local >= 0) return { seg, local };
      }
      return undefined;
    });
  }

  private async readFine(keys: number[]): Promise<({ fine?: FineCodes } | undefined)[]> {
    const at = await this.locate(keys);
    const segs = this.manifest.segments;
    const wanted = [...new Set(at.flatMap((a) => (a && segs[a.seg].fine ? [a.seg] : [])))];
    const files = new Map(await Promise.all(wanted.map(async (s) => [s, await this.files.get<FineFile>(segs[s].fine!)] as const)));
    return at.map((a) => {
      const f = a && files.get(a.seg);
      if (!a || !f || !f.has[a.local]) return a ? {} : undefined;
      return { fine: { identity: f.identity, scale: f.scales[a.local], codes: f.codes.subarray(a.local * f.dimension, (a.local + 1) * f.dimension) } };
    });
  }

  /** Ordinal of a document id: from the text shards read so far, else from the ids file. */
  private async ordinalOf(ids: readonly string[]): Promise<(number | undefined)[]> {
    if (ids.every((id) => this.known.has(id))) return ids.map((id) => this.known.get(id));
    if (!this.idMap) {
      this.idMap = this.readTable('ids').then((t) => new Map(t.ids.map((id, o) => [id, o])));
      this.idMap.catch(() => (this.idMap = undefined));
    }
    const all = await this.idMap;
    return ids.map((id) => this.known.get(id) ?? all.get(id));
  }

  async getDocuments(ids: string[]): Promise<(StoredDocument | undefined)[]> {
    const ordinals = await this.ordinalOf(ids);
    const files = [...new Set(ordinals.flatMap((o) => (o === undefined ? [] : [this.textFileOf(o)])))];
    const shards = new Map(await Promise.all(files.map(async (f) => [f, await this.textShard(f)] as const)));
    return ordinals.map((o, i) => (o === undefined ? undefined : shards.get(this.textFileOf(o))!.byId.get(ids[i])));
  }

  async getChunks(keys: number[]): Promise<(StoredChunk | undefined)[]> {
    const [records, at, fine] = await Promise.all([this.records(), this.locate(keys), this.readFine(keys)]);
    const ordinals = at.map((a) => {
      if (!a) return undefined;
      const p = records[a.seg].partial!;
      const d = p.docOf[a.local];
      return d >= 0 ? p.docBase + d : undefined;
    });
    const files = [...new Set(ordinals.flatMap((o) => (o === undefined ? [] : [this.textFileOf(o)])))];
    const shards = new Map(await Promise.all(files.map(async (f) => [f, await this.textShard(f)] as const)));
    return keys.map((k, i) => {
      const o = ordinals[i];
      const c = o === undefined ? undefined : shards.get(this.textFileOf(o))!.chunks.get(k);
      return c && { ...c, ...(fine[i]?.fine ? { fine: fine[i]!.fine } : {}) };
    });
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

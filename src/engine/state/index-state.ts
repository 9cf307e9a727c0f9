/**
 * The engine's in-memory index state: the retained versions (views), the manifest and the live
 * documents, kept in step with the store. Planning, commit and publish run inside one queue and
 * never interleave; with a `Coordination` writes also hold a cross-engine lock and first catch up
 * with commits other engines (tabs) announced.
 */
import { checkAborted } from '../../util/abort.ts';
import { ENGINE_LOAD, type Embedder, type IndexStore, type LoadedIndex, type Manifest } from '../contracts.ts';
import { countLiveDocuments, liveDocuments } from '../index/doc-table.ts';
import { tableFilled } from '../index/partial.ts';
import { Residency } from './residency.ts';
import { LOCKS, type Coordination } from './coordination.ts';
import { loadViews, MISSING_SEGMENT } from '../index/load.ts';
import { SerialQueue } from '../../util/serial-queue.ts';
import { makeView, withQuarantine, type DocEntry, type IndexView, type LiveSegment } from '../index/view.ts';

/** Document tables instead of one record per document, where every segment has one. */

const EMPTY_MANIFEST: Manifest = { version: 0, nextChunkKey: 1, nextSegmentId: 1, segmentIds: [], tombstones: [], chunkless: 0, documents: 0 };

/** A new database incarnation id (Manifest.storeId): 96 random bits. */
export function newStoreId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export interface IndexStateOptions {
  store: IndexStore;
  analyzerId: string;
  embedder?: Embedder;
  /** Versions kept pinnable (§7.7.1), the current one included. */
  retainVersions: number;
  coordination?: Coordination;
  /** Called after a reload from the store (re-embedding may be due). */
  onReload?: () => void;
  /** Called after this engine made a committed write current (`cleared`: it was a clear). */
  onPublished?: (cleared: boolean) => void;
}

export class IndexState {
  private readonly opts: IndexStateOptions;
  private readonly unsubscribe: () => void;
  /** Sync, planning, commit and publish: never interleaved (a read's reload waits only for a commit, not a preparation). */
  private readonly queue = new SerialQueue();
  /** Another engine may have committed: compare with the store (and reload) before the next use. */
  private stale = false;
  /** The store may have been replaced (deleted, upgraded): reload even at an equal version. */
  private reset = false;
  private _manifest: Manifest = EMPTY_MANIFEST;
  /** Retained versions, oldest first; the last is current. */
  private views: IndexView[] = [makeView(0, [], [])];
  /** Undefined after a cold start from document tables until something needs it (built from the current view). */
  private _docs: Map<string, DocEntry> | undefined = new Map<string, DocEntry>();
  /** The read of the current view's vectors kept apart, while one runs. */
  private vectorsRead: Promise<void> | undefined;
  /** Ids of `docs` in code-unit order, built on first listing after a change. */
  private sortedIds: string[] | undefined;
  /** What a store read on demand has not given yet is read through it (absent for any other store). */
  readonly residency: Residency | undefined;
  /** The manifest's storeId is in the store (loaded with it, or committed since). */
  private storedId = false;

  constructor(opts: IndexStateOptions) {
    this.opts = opts;
    this.residency = opts.store.partial && new Residency(opts.store.partial);
    this.unsubscribe =
      opts.coordination?.subscribe((version) => {
        if (version !== this._manifest.version) this.stale = true;
      }) ?? (() => undefined);
  }

  get manifest(): Manifest {
    return this._manifest;
  }

  /** Live documents of the current version by id. */
  get docs(): ReadonlyMap<string, DocEntry> {
    return this.liveDocs();
  }

  /** The id → document map when it is built (after a cold start from document tables, not before something needed it). */
  get docsIfBuilt(): ReadonlyMap<string, DocEntry> | undefined {
    return this._docs;
  }

  /** Live document count, without building the id map. */
  get documentCount(): number {
    return this._docs?.size ?? countLiveDocuments(this.current());
  }

  /**
   * For a store read on demand: every document's id and meta (`'documents'`), or the whole index
   * (`'everything'`: every term, every document with its chunks' citation data) is in memory once
   * this resolves. What lists, counts facets of or walks every document calls it first.
   */
  async resident(what: 'documents' | 'everything'): Promise<void> {
    if (!this.residency) return;
    if (what === 'documents') await this.residency.table(this.current(), 'all');
    else await this.residency.everything(this.current());
  }

  /** The id → document map, built from the current view's document tables on first use. */
  private liveDocs(): Map<string, DocEntry> {
    if (!this._docs && this.current().segments.some((s) => s.record.partial && !tableFilled(s, 'all'))) {
      throw new Error('internal: the documents of a partial index were listed before they were read (IndexState.resident)');
    }
    return (this._docs ??= liveDocuments(this.current()));
  }

  /** True once another engine announced a commit this state has not loaded (cleared by a reload). */
  get needsRefresh(): boolean {
    return this.stale;
  }

  current(): IndexView {
    return this.views[this.views.length - 1];
  }

  /** A retained version, or undefined when it was never published here or has been dropped. */
  viewAt(version: number): IndexView | undefined {
    return this.views.find((x) => x.version === version);
  }

  sortedDocIds(): readonly string[] {
    return (this.sortedIds ??= [...this.liveDocs().keys()].sort());
  }

  /** Runs `fn` in the state queue (never concurrently with a sync, a planning or a commit). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(fn);
  }

  /**
   * Loads what the store holds; returns load warnings and the problems that mean data is missing
   * (a listed segment the store does not have). Call once, inside `exclusive`.
   */
  async load(): Promise<{ warnings: string[]; missing: string[] }> {
    const loaded = await this.opts.store.load(ENGINE_LOAD);
    // Sparse search is ready now; the vectors are read later (`prefetchVectors`, or on first need).
    if (!loaded) {
      this.install(undefined, false);
      return { warnings: [], missing: [] };
    }
    const all = this.install(loaded, false);
    const missing = all.filter((w) => w.includes(MISSING_SEGMENT));
    return { warnings: all.filter((w) => !missing.includes(w)), missing };
  }

  /** True once the manifest in memory came from the store (its storeId is the database's, not one to be written). */
  get stored(): boolean {
    return this.storedId;
  }

  /** Starts reading the vectors kept apart in the background, if any are missing (dense waits for them). */
  prefetchVectors(): void {
    this.vectorsLoaded().catch(() => undefined);
  }

  /**
   * Settles once every segment of the current view has its vectors in memory. Stores may leave
   * them out of `load()` (`denseApart`): they are read here, once, in one go. Rejects with the
   * store's error (the next call reads again). Writes, dense search, exports and the map wait on it.
   */
  async vectorsLoaded(): Promise<void> {
    for (;;) {
      const apart = this.current().segments.filter((s) => s.record.denseApart && !s.record.dense);
      if (apart.length === 0) return;
      await (this.vectorsRead ??= this.readVectors(apart));
    }
  }

  private async readVectors(segments: readonly LiveSegment[]): Promise<void> {
    try {
      const read = this.opts.store.loadVectors;
      if (!read) throw new Error('the store keeps segment vectors apart but cannot read them (no loadVectors)');
      const got = await read.call(this.opts.store, segments.map((s) => s.id));
      for (const s of segments) {
        // Missing in the store: the segment has no vectors (re-embedding fills them in).
        const d = got.get(s.id);
        if (d) s.record.dense = d;
        else delete s.record.denseApart;
      }
    } finally {
      this.vectorsRead = undefined;
    }
  }

  /** Reload at the next use: another engine wrote, or an unpinned query saw a newer commit. */
  markStale(): void {
    this.stale = true;
  }

  /** Forget what is in memory at the next use, even at an equal version (the store was replaced). */
  invalidate(): void {
    this.stale = this.reset = true;
  }

  close(): void {
    this.unsubscribe();
  }

  /** Before a read: reloads first when another engine committed since (lazily, not on every message). */
  refresh(): Promise<void> {
    return this.stale ? this.queue.run(() => this.sync()) : Promise.resolve();
  }

  /** Catches up with the store, in the queue, and returns the current view. */
  synced(): Promise<IndexView> {
    return this.queue.run(async () => (await this.sync(), this.current()));
  }

  /**
   * Runs a write's planning and commit under the cross-engine write lock, on up-to-date state and
   * with the in-memory state to itself.
   */
  locked<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    const run = (): Promise<T> =>
      this.queue.run(async () => {
        await this.sync();
        await this.vectorsLoaded(); // merges copy vectors: they must be in memory
        checkAborted(signal);
        return fn();
      });
    const c = this.opts.coordination;
    return c ? c.withLock(LOCKS.write, run, signal) : run();
  }

  /** Makes a committed write current and announces it; `applyDocs` updates the live documents. */
  publish(manifest: Manifest, view: IndexView, applyDocs?: (docs: Map<string, DocEntry>) => void): void {
    this._manifest = manifest;
    if (applyDocs) {
      applyDocs(this.liveDocs());
      this.sortedIds = undefined;
    }
    this.retain(withQuarantine(view, manifest));
    this.storedId = true;
    this.opts.coordination?.announce(view.version);
    this.opts.onPublished?.(false);
  }

  /**
   * After the store was cleared to `next`: an empty index at a new version. Older versions are
   * dropped (their texts are gone), here and, through `clearedAt`, in every other engine.
   */
  publishCleared(next: Manifest): void {
    this._manifest = next;
    this.views = [makeView(next.version, [], [])];
    this._docs = new Map();
    this.sortedIds = undefined;
    this.storedId = true;
    this.opts.coordination?.announce(next.version);
    this.opts.onPublished?.(true);
  }

  private retain(view: IndexView): void {
    this.views.push(view);
    while (this.views.length > this.opts.retainVersions) this.views.shift();
  }

  /**
   * Replaces the in-memory state with what the store holds. A reload is a new version: older
   * versions stay pinnable only when the store moved forward from ours without a clear in between;
   * otherwise (the database was replaced or cleared) they are dropped and pins on them are -32010.
   */
  private install(loaded: LoadedIndex | undefined, keep: boolean): string[] {
    const { view: loadedView, docs, warnings } = loaded
      ? loadViews(loaded, this.opts.analyzerId, this.opts.embedder)
      : { view: makeView(0, [], []), docs: new Map<string, DocEntry>(), warnings: [] };
    const view = withQuarantine(loadedView, loaded?.manifest);
    const clearedSince = (loaded?.manifest.clearedAt ?? 0) > this.current().version;
    if (keep && !clearedSince && view.version > this.current().version) this.retain(view);
    else this.views = [view];
    // Every manifest carries the database's id; one written before ids existed gets one with the next commit.
    this._manifest = loaded?.manifest.storeId ? loaded.manifest : { ...(loaded?.manifest ?? EMPTY_MANIFEST), storeId: newStoreId() };
    this.storedId = loaded?.manifest.storeId !== undefined;
    // Counted here for a manifest written before the count existed; the next commit stores it.
    if (loaded?.documents && this._manifest.chunkless === undefined) {
      this._manifest = { ...this._manifest, chunkless: loaded.documents.filter((d) => d.chunkKeys.length === 0).length };
    }
    this._docs = docs;
    this.sortedIds = undefined;
    return warnings;
  }

  /**
   * Catches up with the store when another engine may have written. Runs inside the queue. Without
   * coordination it reads nothing unless the state was marked stale or invalidated.
   */
  private async sync(): Promise<void> {
    if (!this.opts.coordination && !this.stale) return;
    const reset = this.reset;
    // Cleared first: an announcement that arrives while we read marks the state stale again.
    this.stale = this.reset = false;
    try {
      if (!reset) {
        const stored = await this.opts.store.readManifest();
        if ((stored?.version ?? 0) === this._manifest.version) return;
      }
      this.install(await this.opts.store.load(ENGINE_LOAD), !reset);
    } catch (e) {
      this.stale = true;
      this.reset ||= reset;
      throw e;
    }
    this.opts.onReload?.();
  }
}

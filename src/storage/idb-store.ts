import { noteStep } from '../util/heartbeat.ts';
import type { IDBPDatabase, IDBPTransaction } from 'idb';
import type { Change, FeedbackRecord, FeedbackUpdate, IndexStore, LoadOptions, LoadedIndex, Manifest, SegmentRecord, SegmentVectors, StoredChunk, StoredDocument } from '../engine/contracts.ts';
import { DEFAULT_OPEN_TIMEOUT_MS, openDatabase } from './open.ts';
import { needsDocuments } from './load-options.ts';
import { ALL_STORES, MANIFEST_KEY, type RcpDB, type StoreName } from './schema.ts';

/** A commit issues its writes in slices of about this long (see `commit`). */
const COMMIT_SLICE_MS = 8;

/** Test hooks that make a commit fail the way a full disk would. */
export interface StoreFaults {
  /**
   * Consulted once per commit, INSIDE its transaction, after about half of the commit's writes
   * have succeeded. Returning an error aborts that transaction (so those writes are rolled back)
   * and `commit` rejects with the returned error, e.g. `new DOMException('…', 'QuotaExceededError')`.
   */
  failCommitWith?: (info: { change: Change; completedWrites: number; totalWrites: number }) => Error | undefined;
}

/** Options of {@link openIndexedDbStore}; every field is optional. */
export interface IdbStoreOptions {
  /** Give up opening (StorageUnavailableError 'blocked') after this long, e.g. when another tab blocks it. Default 5 s. */
  openTimeoutMs?: number;
  /** Idempotency results older than this are forgotten (and pruned on commit). Default 24 h. */
  idempotencyTtlMs?: number;
  /** Clock for idempotency timestamps; tests replace it. Default `Date.now`. */
  now?: () => number;
  /**
   * Called when the connection is lost: another tab upgraded or deleted the database
   * (`versionchange`; we close so it is not blocked) or the browser terminated it. The next call
   * reopens lazily; the caller may want to `load()` again, since another tab may have changed data.
   */
  onConnectionLost?: (reason: 'versionchange' | 'terminated') => void;
  /**
   * Called when an open created the database (`oldVersion` 0: there was none) or upgraded it,
   * with Chromium's `dataLoss` report when the browser discarded a corrupt one (src/storage/open.ts).
   */
  onUpgrade?: (info: { oldVersion: number; dataLoss?: string }) => void;
  faults?: StoreFaults;
  /**
   * Commit durability. 'default' (Chromium: relaxed, no flush to disk before `complete`) keeps
   * an acknowledged commit through a killed page or browser, since the data is handed to the OS
   * before `complete`; 'strict' also flushes it to disk, for a power loss or an OS crash, at a
   * cost (docs/durability.md). Default 'default'.
   */
  durability?: IDBTransactionDurability;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const noop = (): void => {};

/**
 * Opens the IndexedDB-backed {@link IndexStore} named `name`, creating or upgrading the database.
 *
 * Errors: the store lets the browser's DOMExceptions through unchanged (QuotaExceededError,
 * InvalidStateError, …) and throws {@link StorageUnavailableError} when IndexedDB is missing or
 * the open stays blocked; the server maps them to RCP errors (src/server/errors.ts) at its
 * boundary. Calls after `close()` reject with an `InvalidStateError` DOMException.
 */
export async function openIndexedDbStore(name = 'rcp-engine', opts: IdbStoreOptions = {}): Promise<IndexStore> {
  const store = new IdbStore(name, opts);
  await store.connection(); // surface "unavailable" at open time, not at first use
  return store;
}

/** A typed-array view over part of a larger buffer would be cloned with the whole buffer. */
function compact<T extends ArrayBufferView>(a: T): T {
  return a.byteOffset === 0 && a.byteLength === a.buffer.byteLength ? a : ((a as unknown as Uint8Array).slice() as unknown as T);
}

/** Vectors with every typed array compacted (they are often views of a larger memory). */
function compactVectors(v: SegmentVectors): SegmentVectors {
  const d: Record<string, unknown> = { ...v };
  for (const [k, x] of Object.entries(d)) if (ArrayBuffer.isView(x)) d[k] = compact(x);
  return d as unknown as SegmentVectors;
}

/**
 * A segment as the two stores hold it: the record without its vectors (marked `denseApart`) and
 * the vectors on their own, so `load()` reads postings only.
 */
export function splitSegment(s: SegmentRecord): { record: SegmentRecord; vectors?: SegmentVectors } {
  const { dense, denseApart: _stale, ...rest } = s;
  const record: SegmentRecord = { ...rest, chunkKeys: compact(s.chunkKeys) };
  if (!dense) return { record };
  record.denseApart = { identity: dense.identity, dimension: dense.dimension };
  return { record, vectors: compactVectors(dense) };
}

class IdbStore implements IndexStore {
  private db: Promise<IDBPDatabase<RcpDB>> | undefined;
  private closed = false;
  private readonly openTimeoutMs: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly name: string,
    private readonly opts: IdbStoreOptions,
  ) {
    this.openTimeoutMs = opts.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS;
    this.ttlMs = opts.idempotencyTtlMs ?? DAY_MS;
    this.now = opts.now ?? Date.now;
  }

  /** The open connection, reopened lazily after `versionchange` / `terminated`. */
  connection(): Promise<IDBPDatabase<RcpDB>> {
    if (this.closed) return Promise.reject(new DOMException('the store is closed', 'InvalidStateError'));
    if (this.db) return this.db;
    const opening = openDatabase(this.name, this.openTimeoutMs, {
      onVersionChange: () => this.lose(opening, 'versionchange', true),
      onTerminated: () => this.lose(opening, 'terminated', false),
      onUpgrade: this.opts.onUpgrade,
    });
    this.db = opening;
    // A failed open is not cached: the next call tries again.
    opening.catch(() => {
      if (this.db === opening) this.db = undefined;
    });
    return opening;
  }

  private lose(which: Promise<IDBPDatabase<RcpDB>>, reason: 'versionchange' | 'terminated', close: boolean): void {
    if (close) void which.then((db) => db.close(), noop);
    if (this.db === which) this.db = undefined;
    this.opts.onConnectionLost?.(reason);
  }

  async load(options?: LoadOptions): Promise<LoadedIndex | undefined> {
    const db = await this.connection();
    const tx = db.transaction(['manifest', 'segments', 'docMeta'], 'readonly');
    const done = tx.done;
    done.catch(noop); // awaited below; a failure also rejects the reads
    const [manifest, all] = await Promise.all([tx.objectStore('manifest').get(MANIFEST_KEY), tx.objectStore('segments').getAll()]);
    // Only the segments the manifest lists (the IndexStore contract; a stray record is never current).
    const listed = new Set(manifest?.segmentIds ?? []);
    const segments = all.filter((s) => listed.has(s.id));
    // Issued in the same transaction (still active: no other await in between), so one snapshot.
    const docs = manifest && needsDocuments(manifest, segments, options) ? await tx.objectStore('docMeta').getAll() : undefined;
    await done;
    if (!manifest) return undefined;
    const out: LoadedIndex = { manifest, segments };
    if (docs) out.documents = docs.map((d) => ({ id: d.id, meta: d.meta, chunkKeys: d.chunkKeys, version: d.version }));
    return out;
  }

  async loadVectors(segmentIds: number[]): Promise<Map<number, SegmentVectors>> {
    const db = await this.connection();
    const tx = db.transaction('vectors', 'readonly');
    const store = tx.objectStore('vectors');
    const [got] = await Promise.all([Promise.all(segmentIds.map((id) => store.get(id))), tx.done]);
    const out = new Map<number, SegmentVectors>();
    got.forEach((v, i) => v && out.set(segmentIds[i], v));
    return out;
  }

  async readManifest(): Promise<Manifest | undefined> {
    const db = await this.connection();
    return db.get('manifest', MANIFEST_KEY);
  }

  /**
   * Applies the whole change in ONE readwrite transaction over every store and resolves on
   * `tx.done`, i.e. once it is committed (with the store's `durability`, default 'default': an
   * acknowledged write survives a killed page or browser). All or nothing: a write that throws synchronously (e.g.
   * DataCloneError) aborts the transaction explicitly, since otherwise the requests already
   * queued would commit; a write that fails asynchronously aborts it by default. Rejects with
   * the original error, after the transaction has finished rolling back.
   */
  async commit(change: Change): Promise<void> {
    const db = await this.connection();
    const tx = db.transaction([...ALL_STORES], 'readwrite', { durability: this.opts.durability ?? 'default' });
    const writes: Promise<unknown>[] = [];
    const fail = async (e: unknown): Promise<never> => {
      try {
        tx.abort();
      } catch {
        // already finished or aborting
      }
      await tx.done.catch(noop);
      throw e;
    };

    // Each put clones its value on this thread. A commit of a large batch (or a merged segment)
    // cloned for seconds in Firefox under load (issue 44), so the puts are issued in slices of a
    // few ms: between slices the commit awaits its last request, which keeps the transaction
    // active (its success callback issues the next puts) and lets queued messages (a ping) run.
    let sliceStart = performance.now();
    let longest = 0;
    // A failure is reported through the request awaited next or tx.done: none is left unhandled.
    const add = (...requests: Promise<unknown>[]): void => {
      for (const r of requests) {
        r.catch(noop);
        writes.push(r);
      }
    };
    const pace = async (): Promise<void> => {
      const ran = performance.now() - sliceStart;
      if (ran < COMMIT_SLICE_MS) return;
      longest = Math.max(longest, ran);
      await writes[writes.length - 1];
      sliceStart = performance.now();
    };
    try {
      // Deletes before puts, so that a change which deletes and re-puts an id keeps the put.
      const meta = tx.objectStore('docMeta');
      const text = tx.objectStore('docText');
      const chunks = tx.objectStore('chunks');
      const segments = tx.objectStore('segments');
      const vectors = tx.objectStore('vectors');
      const feedback = tx.objectStore('feedback');
      for (const id of change.deleteDocumentIds) add(meta.delete(id), text.delete(id), feedback.delete(id));
      for (const key of change.deleteChunkKeys) add(chunks.delete(key));
      for (const id of change.deleteSegmentIds) add(segments.delete(id), vectors.delete(id));
      for (const d of change.putDocuments) {
        add(meta.put({ id: d.id, meta: d.meta, chunkKeys: d.chunkKeys, version: d.version }));
        add(text.put(d.text, d.id));
        await pace();
      }
      for (const c of change.putChunks) {
        add(chunks.put(c));
        await pace();
      }
      for (const s of change.putSegments) {
        const split = splitSegment(s);
        add(segments.put(split.record));
        add(split.vectors ? vectors.put(split.vectors, s.id) : vectors.delete(s.id));
        await pace();
      }
      add(tx.objectStore('manifest').put(change.manifest, MANIFEST_KEY));
      if (change.idempotency) {
        const record = { result: change.idempotency.result, at: this.now() };
        add(tx.objectStore('idempotency').put(record, change.idempotency.key));
      }
    } catch (e) {
      for (const w of writes) w.catch(noop);
      return fail(e);
    }
    noteStep(`store: issuing a commit's ${writes.length} writes (longest slice)`, Math.max(longest, performance.now() - sliceStart));

    const failWith = this.opts.faults?.failCommitWith;
    if (failWith) {
      const half = Math.max(1, Math.floor(writes.length / 2));
      try {
        await Promise.all(writes.slice(0, half));
      } catch {
        await tx.done; // rejects with the real cause
      }
      const injected = failWith({ change, completedWrites: half, totalWrites: writes.length });
      if (injected) return fail(injected);
    }

    try {
      await this.pruneIdempotency(tx);
    } catch (e) {
      await tx.done; // if a write failed, this rejects with that (real) cause
      throw e;
    }
    await tx.done;
  }

  /** Deletes idempotency records past their TTL, inside the commit's transaction. */
  private async pruneIdempotency(tx: IDBPTransaction<RcpDB, StoreName[], 'readwrite'>): Promise<void> {
    if (!Number.isFinite(this.ttlMs)) return;
    const index = tx.objectStore('idempotency').index('by-at');
    let cursor = await index.openCursor(IDBKeyRange.upperBound(this.now() - this.ttlMs, true));
    while (cursor) {
      await cursor.delete();
      cursor = await cursor.continue();
    }
  }

  async getDocuments(ids: string[]): Promise<(StoredDocument | undefined)[]> {
    const db = await this.connection();
    const tx = db.transaction(['docMeta', 'docText'], 'readonly');
    const meta = tx.objectStore('docMeta');
    const text = tx.objectStore('docText');
    const [metas, texts] = await Promise.all([
      Promise.all(ids.map((id) => meta.get(id))),
      Promise.all(ids.map((id) => text.get(id))),
      tx.done,
    ]);
    // Both halves are always written and deleted together, so one without the other is absent.
    return metas.map((m, i) => (m && texts[i] !== undefined ? { ...m, text: texts[i] as string } : undefined));
  }

  async getChunks(keys: number[]): Promise<(StoredChunk | undefined)[]> {
    const db = await this.connection();
    const tx = db.transaction('chunks', 'readonly');
    const store = tx.objectStore('chunks');
    const [chunks] = await Promise.all([Promise.all(keys.map((k) => store.get(k))), tx.done]);
    return chunks;
  }

  async getIdempotent(key: string): Promise<unknown | undefined> {
    const db = await this.connection();
    const record = await db.get('idempotency', key);
    if (!record || this.now() - record.at > this.ttlMs) return undefined;
    return record.result;
  }

  async getFeedback(docIds: string[]): Promise<(FeedbackRecord | undefined)[]> {
    const db = await this.connection();
    const tx = db.transaction('feedback', 'readonly');
    const store = tx.objectStore('feedback');
    const [got] = await Promise.all([Promise.all(docIds.map((id) => store.get(id))), tx.done]);
    return got;
  }

  /**
   * Reads, merges and writes every update in ONE readwrite transaction: IndexedDB runs readwrite
   * transactions over a store one at a time, so two tabs' feedback never overwrite each other.
   */
  async updateFeedback(updates: FeedbackUpdate[]): Promise<void> {
    const db = await this.connection();
    const tx = db.transaction('feedback', 'readwrite', { durability: 'default' });
    const store = tx.objectStore('feedback');
    const done = tx.done;
    done.catch(noop); // awaited below
    try {
      const olds = await Promise.all(updates.map((u) => store.get(u.docId)));
      // Every merge before any write: one that throws leaves nothing half-applied.
      const nexts = updates.map((u, i) => u.apply(olds[i]));
      const writes = nexts.map((next, i) => (next ? store.put(next) : store.delete(updates[i].docId)));
      for (const w of writes) w.catch(noop); // a failure rejects tx.done, awaited below
      await Promise.all(writes);
    } catch (e) {
      try {
        tx.abort();
      } catch {
        // already finished
      }
      await done.catch(noop);
      throw e;
    }
    await done;
  }

  /** Clears every store and writes `next` (if any) in ONE readwrite transaction; resolves once committed. */
  async clear(next?: Manifest): Promise<void> {
    const db = await this.connection();
    const tx = db.transaction([...ALL_STORES], 'readwrite', { durability: this.opts.durability ?? 'default' });
    const writes: Promise<unknown>[] = ALL_STORES.map((s) => tx.objectStore(s).clear());
    if (next) writes.push(tx.objectStore('manifest').put(next, MANIFEST_KEY));
    await Promise.all([...writes, tx.done]);
  }

  /** Closes the connection; later calls reject with InvalidStateError. Idempotent. */
  close(): void {
    this.closed = true;
    const db = this.db;
    this.db = undefined;
    void db?.then((d) => d.close(), noop);
  }
}

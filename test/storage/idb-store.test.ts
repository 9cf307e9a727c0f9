import 'fake-indexeddb/auto';
import { forceCloseDatabase } from 'fake-indexeddb';
import { deleteDB, openDB } from 'idb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Change, FloatVectors, IndexStore, Manifest, SegmentRecord, StoredChunk, StoredDocument } from '../../src/engine/contracts.ts';
import { ErrorCode } from '../../src/protocol/codes.ts';
import { RcpError } from '../../src/protocol/errors.ts';
import {
  SCHEMA_VERSION,
  StorageUnavailableError,
  estimateBytes,
  openIndexedDbStore,
  type IdbStoreOptions,
} from '../../src/storage/index.ts';
import { matchError } from '../../src/server/errors.ts';

let counter = 0;
const open: IndexStore[] = [];
/** A fresh database per test, closed afterwards. */
async function freshStore(opts?: IdbStoreOptions, name = `t${++counter}-${Date.now()}`) {
  const store = await openIndexedDbStore(name, opts);
  open.push(store);
  return { store, name };
}

afterEach(() => {
  for (const s of open.splice(0)) s.close();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function emptyChange(manifest: Manifest): Change {
  return {
    putDocuments: [],
    deleteDocumentIds: [],
    putChunks: [],
    deleteChunkKeys: [],
    putSegments: [],
    deleteSegmentIds: [],
    manifest,
  };
}

const docA: StoredDocument = { id: 'a', text: 'alpha beta gamma', meta: { lang: 'en', tags: ['x'] }, chunkKeys: [0, 1], version: 1 };
const docB: StoredDocument = { id: 'b', text: 'delta epsilon', meta: {}, chunkKeys: [2], version: 1 };
const chunks: StoredChunk[] = [
  { key: 0, docId: 'a', index: 0, start: 0, end: 10, context: 'Title > Intro' },
  { key: 1, docId: 'a', index: 1, start: 11, end: 16 },
  { key: 2, docId: 'b', index: 0, start: 0, end: 13 },
];
const big = new Float32Array([9, 9, 0.5, -1.25, 3e-7, 2, 1, 0, 4, 4, 9, 9]);
const segment: SegmentRecord = {
  id: 0,
  chunkKeys: new Uint32Array([0, 1, 2]),
  lexical: { postings: new Map([['alpha', new Uint32Array([0])]]), avgLen: 2.5 },
  // A view into a larger buffer: only its 8 floats must be stored.
  dense: { identity: 'test-model@abc', dimension: 2, vectors: big.subarray(2, 8) },
};
const manifest1: Manifest = { version: 1, nextChunkKey: 3, nextSegmentId: 1, segmentIds: [0], tombstones: [] };

function firstChange(): Change {
  return {
    ...emptyChange(manifest1),
    putDocuments: [docA, docB],
    putChunks: chunks,
    putSegments: [segment],
    idempotency: { key: 'req-1', result: { ids: ['a', 'b'], chunks: 3 } },
  };
}

/** Everything observable through the interface, for exact before/after comparisons. */
async function snapshot(store: IndexStore) {
  return {
    loaded: await store.load(),
    docs: await store.getDocuments(['a', 'b', 'c']),
    chunks: await store.getChunks([0, 1, 2, 3, 4]),
    idem1: await store.getIdempotent('req-1'),
    idem2: await store.getIdempotent('req-2'),
  };
}

describe('IndexedDB store: round trip', () => {
  it('returns undefined from load() on an empty database', async () => {
    const { store } = await freshStore();
    expect(await store.load()).toBeUndefined();
    expect(await store.getDocuments(['a'])).toEqual([undefined]);
    expect(await store.getChunks([0])).toEqual([undefined]);
    expect(await store.getIdempotent('k')).toBeUndefined();
  });

  it('round-trips every record type, typed arrays included', async () => {
    const { store } = await freshStore();
    await store.commit(firstChange());

    const loaded = await store.load();
    expect(loaded?.manifest).toEqual(manifest1);
    expect(loaded?.segments).toHaveLength(1);
    const seg = loaded!.segments[0];
    expect(seg.id).toBe(0);
    expect(seg.chunkKeys).toBeInstanceOf(Uint32Array);
    expect(Array.from(seg.chunkKeys)).toEqual([0, 1, 2]);
    // The vectors are kept apart: load() names them, loadVectors reads them.
    expect(seg.dense).toBeUndefined();
    expect(seg.denseApart).toEqual({ identity: 'test-model@abc', dimension: 2 });
    const apart = (await store.loadVectors!([0])).get(0);
    expect(apart?.identity).toBe('test-model@abc');
    expect(apart?.dimension).toBe(2);
    const dense = apart as FloatVectors;
    expect(dense.vectors).toBeInstanceOf(Float32Array);
    expect(Array.from(dense.vectors)).toEqual(Array.from(big.subarray(2, 8)));
    // The view was compacted: the stored buffer holds only its own 6 floats, not all 12.
    expect(dense.vectors.buffer.byteLength).toBe(6 * 4);
    const lexical = seg.lexical as { postings: Map<string, Uint32Array>; avgLen: number };
    expect(lexical.avgLen).toBe(2.5);
    expect(lexical.postings.get('alpha')).toBeInstanceOf(Uint32Array);
    expect(Array.from(lexical.postings.get('alpha')!)).toEqual([0]);

    expect(await store.getDocuments(['b', 'zzz', 'a'])).toEqual([docB, undefined, docA]);
    expect(await store.getChunks([2, 0, 99, 1])).toEqual([chunks[2], chunks[0], undefined, chunks[1]]);
    expect(await store.getIdempotent('req-1')).toEqual({ ids: ['a', 'b'], chunks: 3 });
  });

  it('load() returns metadata without text and never reads the docText store', async () => {
    const { store } = await freshStore();
    await store.commit(firstChange());
    const touched: string[] = [];
    for (const method of ['get', 'getAll', 'getAllKeys', 'openCursor', 'openKeyCursor', 'count'] as const) {
      const original = IDBObjectStore.prototype[method] as (...args: unknown[]) => unknown;
      vi.spyOn(IDBObjectStore.prototype, method).mockImplementation(function (this: IDBObjectStore, ...args: unknown[]) {
        touched.push(this.name);
        return original.apply(this, args);
      } as never);
    }
    const loaded = await store.load();
    expect(loaded?.documents!).toEqual([
      { id: 'a', meta: docA.meta, chunkKeys: [0, 1], version: 1 },
      { id: 'b', meta: {}, chunkKeys: [2], version: 1 },
    ]);
    for (const d of loaded!.documents!) expect(d).not.toHaveProperty('text');
    expect(touched.length).toBeGreaterThan(0);
    expect(new Set(touched)).toEqual(new Set(['manifest', 'segments', 'docMeta']));
  });

  it('applies deletes and upserts of a later change', async () => {
    const { store } = await freshStore();
    await store.commit(firstChange());
    const docA2: StoredDocument = { ...docA, text: 'alpha two', chunkKeys: [3], version: 2 };
    const manifest2: Manifest = { version: 2, nextChunkKey: 4, nextSegmentId: 2, segmentIds: [1], tombstones: [0, 1] };
    await store.commit({
      ...emptyChange(manifest2),
      deleteDocumentIds: ['b', 'a'],
      putDocuments: [docA2],
      deleteChunkKeys: [0, 1, 2],
      putChunks: [{ key: 3, docId: 'a', index: 0, start: 0, end: 9 }],
      deleteSegmentIds: [0],
      putSegments: [{ id: 1, chunkKeys: new Uint32Array([3]), lexical: null }],
    });
    const loaded = await store.load();
    expect(loaded?.manifest).toEqual(manifest2);
    expect(loaded?.segments.map((s) => s.id)).toEqual([1]);
    expect(loaded?.documents!.map((d) => d.id)).toEqual(['a']);
    expect(await store.getDocuments(['a', 'b'])).toEqual([docA2, undefined]);
    expect(await store.getChunks([0, 3])).toEqual([undefined, { key: 3, docId: 'a', index: 0, start: 0, end: 9 }]);
  });
});

describe('IndexedDB store: atomic commit', () => {
  const quota = () => new DOMException('The quota has been exceeded.', 'QuotaExceededError');

  it('a quota failure injected mid-transaction leaves the previous state exactly', async () => {
    let fail = false;
    let seen: { completedWrites: number; totalWrites: number } | undefined;
    const injected = quota();
    const { store } = await freshStore({
      faults: {
        failCommitWith: ({ completedWrites, totalWrites }) => {
          if (!fail) return undefined;
          seen = { completedWrites, totalWrites };
          return injected;
        },
      },
    });
    await store.commit(firstChange());
    const before = await snapshot(store);

    fail = true;
    const second: Change = {
      ...emptyChange({ version: 2, nextChunkKey: 5, nextSegmentId: 2, segmentIds: [1], tombstones: [2] }),
      deleteDocumentIds: ['b'],
      putDocuments: [{ id: 'c', text: 'new', meta: {}, chunkKeys: [3, 4], version: 2 }, { ...docA, text: 'changed' }],
      deleteChunkKeys: [2],
      putChunks: [
        { key: 3, docId: 'c', index: 0, start: 0, end: 1 },
        { key: 4, docId: 'c', index: 1, start: 1, end: 3 },
      ],
      deleteSegmentIds: [0],
      putSegments: [{ id: 1, chunkKeys: new Uint32Array([3, 4]), lexical: {} }],
      idempotency: { key: 'req-2', result: { ids: ['c'] } },
    };
    const err = await store.commit(second).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBe(injected); // the original error, not wrapped
    // Writes really had landed inside the transaction before it was aborted.
    expect(seen!.completedWrites).toBe(7);
    expect(seen!.totalWrites).toBe(15);

    expect(await snapshot(store)).toEqual(before);

    const mapped = matchError(err)!;
    expect(mapped.code).toBe(ErrorCode.PayloadTooLarge);
    expect(mapped.data?.detail).toMatch(/^storage quota exceeded/);
    expect(mapped.data?.retryable).toBe(false);
    expect(mapped.retryable()).toBe(false);

    // The store is still usable afterwards, and survives a reopen unchanged.
    fail = false;
    await store.commit(second);
    expect((await store.load())?.manifest.version).toBe(2);
  });

  it('a write that throws synchronously (DataCloneError) aborts the whole transaction', async () => {
    const { store } = await freshStore();
    await store.commit(firstChange());
    const before = await snapshot(store);
    const bad: Change = {
      ...emptyChange({ ...manifest1, version: 2 }),
      deleteDocumentIds: ['a'],
      putChunks: [{ key: 7, docId: 'z', index: 0, start: 0, end: 1 }],
      putDocuments: [{ id: 'z', text: 't', meta: { fn: () => 1 }, chunkKeys: [7], version: 2 }],
    };
    const err = await store.commit(bad).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).name).toBe('DataCloneError');
    expect(await snapshot(store)).toEqual(before);
    const mapped = matchError(err)!;
    expect(mapped.code).toBe(ErrorCode.InternalError);
    expect(mapped.data?.retryable).toBe(false);
  });
});

describe('IndexedDB store: idempotency, clear, reopen', () => {
  it('stores idempotency results, forgets them after the TTL and prunes them on commit', async () => {
    let now = 1_000_000;
    const { store, name } = await freshStore({ idempotencyTtlMs: 60_000, now: () => now });
    await store.commit(firstChange());
    await store.commit({ ...emptyChange({ ...manifest1, version: 2 }), idempotency: { key: 'req-2', result: [1, 2] } });
    expect(await store.getIdempotent('req-1')).toEqual({ ids: ['a', 'b'], chunks: 3 });
    expect(await store.getIdempotent('req-2')).toEqual([1, 2]);
    // Overwriting a key keeps the latest result.
    await store.commit({ ...emptyChange({ ...manifest1, version: 3 }), idempotency: { key: 'req-2', result: 'again' } });
    expect(await store.getIdempotent('req-2')).toBe('again');

    now += 60_001;
    expect(await store.getIdempotent('req-1')).toBeUndefined();
    await store.commit({ ...emptyChange({ ...manifest1, version: 4 }), idempotency: { key: 'req-3', result: 3 } });
    const raw = await openDB(name);
    expect((await raw.getAllKeys('idempotency')).sort()).toEqual(['req-3']);
    raw.close();
  });

  it('clear() empties every store and the store stays usable', async () => {
    const { store, name } = await freshStore();
    await store.commit(firstChange());
    await store.clear();
    expect(await snapshot(store)).toEqual({
      loaded: undefined,
      docs: [undefined, undefined, undefined],
      chunks: [undefined, undefined, undefined, undefined, undefined],
      idem1: undefined,
      idem2: undefined,
    });
    const raw = await openDB(name);
    for (const s of ['manifest', 'segments', 'docMeta', 'docText', 'chunks', 'idempotency'] as const) {
      expect(await raw.count(s)).toBe(0);
    }
    raw.close();
    await store.commit(firstChange());
    expect((await store.load())?.manifest).toEqual(manifest1);
  });

  it('close() then opening again sees the same data; calls after close reject', async () => {
    const { store, name } = await freshStore();
    await store.commit(firstChange());
    const before = await snapshot(store);
    store.close();
    store.close(); // idempotent

    const err = await store.load().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).name).toBe('InvalidStateError');
    expect(matchError(err)!.code).toBe(ErrorCode.BackendUnavailable);

    const { store: again } = await freshStore(undefined, name);
    expect(await snapshot(again)).toEqual(before);
  });

  it('creates the schema at SCHEMA_VERSION', async () => {
    const { name } = await freshStore();
    const raw = await openDB(name);
    expect(raw.version).toBe(SCHEMA_VERSION);
    expect([...raw.objectStoreNames].sort()).toEqual(['chunks', 'docMeta', 'docText', 'idempotency', 'manifest', 'segments', 'vectors']);
    raw.close();
  });
});

describe('IndexedDB store: other tabs and failures', () => {
  it('closes on versionchange so another tab can delete the database, then reopens lazily', async () => {
    const lost: string[] = [];
    const { store, name } = await freshStore({ onConnectionLost: (r) => lost.push(r) });
    await store.commit(firstChange());
    // Would stay blocked forever if the store did not close its connection.
    await deleteDB(name, { blocked: () => lost.push('delete-blocked') });
    expect(lost).toEqual(['versionchange']);
    expect(await store.load()).toBeUndefined(); // a fresh, empty database
    await store.commit(firstChange());
    expect((await store.load())?.manifest).toEqual(manifest1);
  });

  it('lets another tab upgrade; our next call then fails with a BackendUnavailable-mapped error', async () => {
    const lost: string[] = [];
    const { store, name } = await freshStore({ onConnectionLost: (r) => lost.push(r) });
    const newer = await openDB(name, SCHEMA_VERSION + 1);
    expect(lost).toEqual(['versionchange']);
    const err = await store.load().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).name).toBe('VersionError');
    const mapped = matchError(err)!;
    expect(mapped.code).toBe(ErrorCode.BackendUnavailable);
    expect(mapped.data?.detail).toMatch(/VersionError/);
    expect(mapped.retryable()).toBe(true);
    newer.close();
  });

  it('reopens after the browser terminates the connection', async () => {
    const opened: IDBOpenDBRequest[] = [];
    const realOpen = IDBFactory.prototype.open;
    vi.spyOn(IDBFactory.prototype, 'open').mockImplementation(function (this: IDBFactory, ...args) {
      const req = realOpen.apply(this, args);
      opened.push(req);
      return req;
    });
    const lost: string[] = [];
    const { store } = await freshStore({ onConnectionLost: (r) => lost.push(r) });
    await store.commit(firstChange());
    forceCloseDatabase(opened[0].result as never);
    expect(lost).toEqual(['terminated']);
    expect((await store.load())?.manifest).toEqual(manifest1);
    expect(opened).toHaveLength(2);
  });

  it('gives up opening after openTimeoutMs when another tab keeps it waiting', async () => {
    const name = `blocked-${Date.now()}`;
    // Tab 1 holds v1 and ignores versionchange; tab 2 wants v2 and is blocked by it.
    const tab1 = await openDB(name, 1);
    const tab2 = indexedDB.open(name, 2);
    const tab2Done = new Promise<void>((resolve) => {
      tab2.onsuccess = () => {
        tab2.result.close();
        resolve();
      };
    });
    const started = Date.now();
    const err = await openIndexedDbStore(name, { openTimeoutMs: 150 }).then(
      (s) => {
        s.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StorageUnavailableError);
    expect((err as StorageUnavailableError).reason).toBe('blocked');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const mapped = matchError(err)!;
    expect(mapped.code).toBe(ErrorCode.BackendUnavailable);
    expect(mapped.data?.detail).toMatch(/timed out after 150 ms/);
    tab1.close();
    await tab2Done;
  });

  it('reports missing IndexedDB as unavailable', async () => {
    vi.stubGlobal('indexedDB', undefined);
    const err = await openIndexedDbStore('nope').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StorageUnavailableError);
    expect((err as StorageUnavailableError).reason).toBe('unsupported');
    const mapped = matchError(err)!;
    expect(mapped.code).toBe(ErrorCode.BackendUnavailable);
    expect(mapped.data?.detail).toMatch(/not available/);
  });
});

describe('estimateBytes', () => {
  it('is undefined without navigator.storage', async () => {
    vi.stubGlobal('navigator', undefined);
    expect(await estimateBytes()).toBeUndefined();
  });

  it('reads navigator.storage.estimate()', async () => {
    vi.stubGlobal('navigator', { storage: { estimate: async () => ({ usage: 1234, quota: 10_000 }) } });
    expect(await estimateBytes()).toEqual({ usage: 1234, quota: 10_000 });
  });
});

/**
 * Vectors kept apart from the segments (IndexStore.loadVectors): a cold start reads them after its
 * first answer (or an idle time), so sparse queries are answered before they are read; dense search, writes and re-embedding wait for them; a failed
 * read is retried; an older database with inline vectors (IndexedDB v1) is served as it is.
 */
import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { describe, expect, it, vi } from 'vitest';
import type { Embedder, Manifest, SegmentRecord, SegmentVectors } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { VECTORS_IDLE_READ_MS } from '../../src/engine/state/vector-prefetch.ts';
import { retrieveInProcess } from '../../src/server/retrieve-plan.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { openIndexedDbStore } from '../../src/storage/index.ts';
import { rng } from '../../src/util/prng.ts';

const DIM = 24;
function unit(seed: number): Float32Array {
  const r = rng(seed);
  const v = Float32Array.from({ length: DIM }, () => r() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}
/** Called when documents (not queries) are embedded. */
let onDocuments: (() => void) | undefined;
/** "v:<seed>" embeds to a fixed random unit vector. */
const embedder: Embedder = {
  identity: 'test/lazy-24',
  dimension: DIM,
  normalized: true,
  embed: async (texts, kind) => {
    if (kind === 'document') onDocuments?.();
    return texts.map((t) => unit(Number.parseInt(t.slice(2), 10) || 1));
  },
};
const docs = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: `d${from + i}`, text: `v:${from + i} whale` }));

/** A MemoryStore whose vector reads wait until `release()` (or fail once with `failNext`). */
class GatedStore extends MemoryStore {
  reads = 0;
  failNext: Error | undefined;
  private gate: Promise<void> = Promise.resolve();
  private open: (() => void) | undefined;
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }
  release(): void {
    this.open?.();
  }
  override async loadVectors(ids: number[]): Promise<Map<number, SegmentVectors>> {
    this.reads++;
    await this.gate;
    const fail = this.failNext;
    this.failNext = undefined;
    if (fail) throw fail;
    return super.loadVectors(ids);
  }
}

const dense = async (e: Engine, seed: number, k = 5) =>
  (await retrieveInProcess(e, { query: `v:${seed}`, k, mode: 'dense', includeText: false })).hits.map((h) => String(h.id));

async function populated(): Promise<GatedStore> {
  const store = new GatedStore();
  const writer = new Engine({ store, embedder });
  await writer.open();
  await writer.add(docs(0, 40));
  await writer.add(docs(40, 40));
  writer.close();
  return store;
}

describe('vectors read after the first sparse answer', () => {
  it('answers sparse while the vectors are still being read; dense waits for them', async () => {
    const store = await populated();
    const reference = new Engine({ store: new MemoryStore(), embedder });
    await reference.open();
    await reference.add(docs(0, 40));
    await reference.add(docs(40, 40));
    const want = await dense(reference, 7);

    store.hold();
    const engine = new Engine({ store, embedder });
    await engine.open();
    let denseDone = false;
    const pending = dense(engine, 7).then((ids) => ((denseDone = true), ids));
    const sparse = await retrieveInProcess(engine, { query: 'whale', k: 3, mode: 'sparse', includeText: false });
    expect(sparse.hits).toHaveLength(3);
    expect(denseDone).toBe(false); // the sparse answer came first; dense is still waiting
    store.release();
    expect(await pending).toEqual(want);
  });

  it('a write during the read waits for it, and the merged segments keep every vector', async () => {
    const store = await populated();
    store.hold();
    const engine = new Engine({ store, embedder, limits: { maxSegments: 1 } }); // the add merges
    await engine.open();
    // Released in a later task: the add's planning and commit (microtasks after its embedding)
    // would run before it, were they not waiting for the vectors.
    onDocuments = () => void setTimeout(() => store.release(), 0);
    await engine.add(docs(80, 10)).finally(() => (onDocuments = undefined));
    expect(engine.pendingVectors()).toBe(0);
    const reopened = new Engine({ store, embedder });
    await reopened.open();
    expect(await dense(reopened, 85, 1)).toEqual(['d85']); // reads the vectors (not read at open)
    expect(reopened.pendingVectors()).toBe(0);
    expect(await dense(reopened, 3, 1)).toEqual(['d3']);
    expect(await reopened.whenReembedded()).toBe(0); // nothing was lost, so nothing to re-embed
  });

  it('a failed read fails the dense request and is tried again by the next one', async () => {
    const store = await populated();
    store.hold();
    store.failNext = new DOMException('disk error', 'UnknownError');
    const engine = new Engine({ store, embedder });
    await engine.open();
    const first = dense(engine, 12, 1);
    store.release();
    await expect(first).rejects.toThrow('disk error');
    expect(await dense(engine, 12, 1)).toEqual(['d12']);
    expect(store.reads).toBe(2);
  });
});

describe('when a cold start reads the vectors', () => {
  it('not before the first answer: the first sparse query does not queue behind the read', async () => {
    const store = await populated();
    const engine = new Engine({ store, embedder });
    await engine.open();
    expect(store.reads).toBe(0);
    const readsDuring: number[] = [];
    const getDocuments = store.getDocuments.bind(store);
    store.getDocuments = async (ids) => (readsDuring.push(store.reads), getDocuments(ids));
    const sparse = await retrieveInProcess(engine, { query: 'whale', k: 3, mode: 'sparse' });
    expect(sparse.hits).toHaveLength(3);
    expect(readsDuring).toEqual([0]); // the hits' texts were read with no vector read started
    expect(store.reads).toBe(1); // started once the answer was ready
    expect(await dense(engine, 7, 1)).toEqual(['d7']);
    expect(store.reads).toBe(1);
    engine.close();
  });

  it('after a short idle time when no query comes', async () => {
    const store = await populated();
    vi.useFakeTimers();
    try {
      const engine = new Engine({ store, embedder });
      await engine.open();
      expect(store.reads).toBe(0);
      await vi.advanceTimersByTimeAsync(VECTORS_IDLE_READ_MS);
      expect(store.reads).toBe(1);
      engine.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('for a read-only index (a published bundle), never on the idle timer: only once someone searched', async () => {
    const store = await populated();
    vi.useFakeTimers();
    try {
      const engine = new Engine({ store, embedder, readOnly: true });
      await engine.open();
      await vi.advanceTimersByTimeAsync(VECTORS_IDLE_READ_MS * 20);
      expect(store.reads).toBe(0);
      await retrieveInProcess(engine, { query: 'whale', k: 3, mode: 'sparse' });
      expect(store.reads).toBe(1);
      engine.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('not for a default-mode request served sparse while the model loads', async () => {
    const store = await populated();
    store.hold();
    const loadingModel: Embedder = { ...embedder, ready: () => false };
    const engine = new Engine({ store, embedder: loadingModel });
    await engine.open();
    let released = false;
    // Everything here settles in microtasks; the read is let go only in a later task.
    setTimeout(() => ((released = true), store.release()), 0);
    const r = await retrieveInProcess(engine, { query: 'whale', k: 3, includeText: false });
    expect(released).toBe(false); // answered while the vector read was still held
    expect(r.hits).toHaveLength(3);
    expect(r.usage?.notes?.some((n) => /served as sparse: the dense model is still loading/.test(n))).toBe(true);
    engine.close();
  });

  it('at once when dense search needs them first', async () => {
    const store = await populated();
    const engine = new Engine({ store, embedder });
    await engine.open();
    expect(await dense(engine, 9, 1)).toEqual(['d9']);
    expect(store.reads).toBe(1);
    engine.close();
  });
});

describe('an IndexedDB database written before vectors were kept apart (schema v1)', () => {
  it('is upgraded in place: inline vectors are served, and new writes keep theirs apart', async () => {
    // Build the data with the current engine in memory, then lay it out as v1 stored it.
    const mem = new MemoryStore();
    const writer = new Engine({ store: mem, embedder });
    await writer.open();
    await writer.add(docs(0, 30));
    const loaded = (await mem.load())!;
    const vectors = await mem.loadVectors(loaded.segments.map((s) => s.id));
    const name = `v1-${Date.now()}`;
    const v1 = await openDB(name, 1, {
      upgrade(db) {
        db.createObjectStore('manifest');
        db.createObjectStore('segments', { keyPath: 'id' });
        db.createObjectStore('docMeta', { keyPath: 'id' });
        db.createObjectStore('docText');
        db.createObjectStore('chunks', { keyPath: 'key' });
        db.createObjectStore('idempotency').createIndex('by-at', 'at');
      },
    });
    const tx = v1.transaction(['manifest', 'segments', 'docMeta', 'docText', 'chunks'], 'readwrite');
    for (const s of loaded.segments) {
      const { denseApart: _apart, ...rest } = s;
      await tx.objectStore('segments').put({ ...rest, dense: vectors.get(s.id) } satisfies SegmentRecord);
    }
    for (const d of await mem.getDocuments(loaded.documents!.map((x) => x.id))) {
      await tx.objectStore('docMeta').put({ id: d!.id, meta: d!.meta, chunkKeys: d!.chunkKeys, version: d!.version });
      await tx.objectStore('docText').put(d!.text, d!.id);
    }
    for (const c of await mem.getChunks(loaded.documents!.flatMap((x) => x.chunkKeys))) await tx.objectStore('chunks').put(c!);
    await tx.objectStore('manifest').put(loaded.manifest satisfies Manifest, 'root');
    await tx.done;
    v1.close();

    const store = await openIndexedDbStore(name);
    try {
      const old = (await store.load())!;
      expect(old.segments.every((s) => s.dense !== undefined && s.denseApart === undefined)).toBe(true);
      const engine = new Engine({ store, embedder });
      await engine.open();
      expect(engine.pendingVectors()).toBe(0);
      expect(await dense(engine, 21, 1)).toEqual(['d21']);
      await engine.add(docs(30, 5));
      const now = (await store.load())!;
      expect(now.segments.some((s) => s.denseApart !== undefined && s.dense === undefined)).toBe(true);
      const again = new Engine({ store, embedder });
      await again.open();
      expect(await dense(again, 21, 1)).toEqual(['d21']);
      expect(await dense(again, 33, 1)).toEqual(['d33']);
      expect(await again.whenReembedded()).toBe(0);
    } finally {
      store.close();
    }
  });
});

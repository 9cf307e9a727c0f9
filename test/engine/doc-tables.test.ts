/**
 * Document tables (SegmentRecord.docTable): a cold start reads no per-document record when every
 * segment has one, and everything the documents serve (filters, listing, facets, upserts,
 * deletes, merges) answers as from a full read. Documents without chunks are counted in the
 * manifest and make the store list the documents again; older segments without a table too.
 */
import { describe, expect, it } from 'vitest';
import type { LoadOptions, LoadedIndex, SegmentRecord } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import type { IndexState } from '../../src/engine/state/index-state.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { planWrite } from '../../src/engine/index/write-plan.ts';
import { makeView, newDocEntry } from '../../src/engine/index/view.ts';
import { buildDocTable } from '../../src/engine/index/doc-table.ts';
import { tableId, tableMeta } from '../../src/engine/index/doc-table-fields.ts';
import { HashEmbedder, ids, search } from '../support/engine.ts';

/** A MemoryStore that records what each load() returned. */
class WatchedStore extends MemoryStore {
  loads: { options?: LoadOptions; documents: boolean }[] = [];
  override async load(options?: LoadOptions): Promise<LoadedIndex | undefined> {
    const r = await super.load(options);
    this.loads.push({ options, documents: r?.documents !== undefined });
    return r;
  }
}

const corpus = [
  { id: 'moby', text: 'the white whale and the sea', meta: { year: 1851, tag: 'novel' } },
  { id: 'pequod', text: 'a ship hunting the whale', meta: { year: 1851, tag: 'ship' } },
  { id: 'typee', text: 'islands and the sea', meta: { year: 1846, tag: 'novel' } },
  { id: 'omoo', text: 'a whale of a tale in the south seas', meta: { year: 1847 } },
];

/** What a reader sees of an engine: filtered search, listing, facets. */
async function observe(e: Engine) {
  return {
    whale: ids(await search(e, { query: 'whale' })),
    filtered: ids(await search(e, { query: 'whale', filter: { field: 'year', op: 'eq', value: 1851 } })),
    listing: (await e.documents(0, 10)).documents.map((d) => [d.id, d.meta]),
    facets: (await e.facets('tag', 10)).values,
    count: e.stats().documents,
  };
}

describe('document tables', () => {
  it('a cold start reads no document record and answers as a full read does', async () => {
    const store = new WatchedStore();
    const writer = new Engine({ store });
    await writer.open();
    await writer.add(corpus.slice(0, 2));
    await writer.add(corpus.slice(2));
    await writer.add([{ id: 'moby', text: 'the whale again, rewritten', meta: { year: 1852, tag: 'novel' } }]); // upsert
    await writer.delete(['typee']);
    const want = await observe(writer);

    const cold = new Engine({ store });
    await cold.open();
    expect(store.loads.at(-1)).toEqual({ options: { documents: 'unless-tabled' }, documents: false });
    // Searching, texts included, builds only the documents it touches, not the id → document map.
    const state = (cold as unknown as { s: { state: IndexState } }).s.state;
    expect((await search(cold, { query: 'whale', includeText: true })).hits[0].text).toContain('whale');
    expect(state.docsIfBuilt).toBeUndefined();
    expect(await observe(cold)).toEqual(want);
    expect(state.docsIfBuilt?.size).toBe(3); // listing built it
    // Writes on the lazily built documents: an upsert and a delete, then a merge into one segment.
    const merging = new Engine({ store, limits: { maxSegments: 1 } });
    await merging.open();
    await merging.add([{ id: 'pequod', text: 'the ship sinks', meta: { year: 1851 } }]);
    await merging.delete(['omoo']);
    const after = await observe(merging);
    expect(after.whale).toEqual(['moby']);
    expect(after.count).toBe(2);
    const again = new Engine({ store });
    await again.open();
    expect(store.loads.at(-1)?.documents).toBe(false);
    expect(await observe(again)).toEqual(after);
  });

  it('documents without chunks are counted, listed after a reopen, and uncounted when deleted', async () => {
    // Today's chunker gives every text a chunk; a document without any is planned directly.
    const store = new WatchedStore();
    const plan = planWrite(makeView(0, [], []), new Map(), { version: 0, nextChunkKey: 1, nextSegmentId: 1, segmentIds: [], tombstones: [], chunkless: 0 },
      [{ id: 'blank', text: '', meta: { tag: 'empty' }, chunks: [] }], [], { analyzerId: 'x', contextWeight: 1, maxSegments: 10 });
    expect(plan.change.manifest.chunkless).toBe(1);
    await store.commit(plan.change);
    const e = new Engine({ store });
    await e.open();
    await e.add(corpus);
    expect((await store.readManifest())?.chunkless).toBe(1);
    const cold = new Engine({ store });
    await cold.open();
    expect(store.loads.at(-1)?.documents).toBe(true); // the tables cannot name it
    expect((await cold.documents(0, 10)).documents.map((d) => d.id)).toContain('blank');
    await cold.delete(['blank']);
    expect((await store.readManifest())?.chunkless).toBe(0);
    const later = new Engine({ store });
    await later.open();
    expect(store.loads.at(-1)?.documents).toBe(false);
    expect((await later.documents(0, 10)).documents.map((d) => d.id)).toEqual(['moby', 'omoo', 'pequod', 'typee']);
  });

  it('segments written before tables existed are read through the documents, and merges give them tables', async () => {
    const store = new WatchedStore();
    const e = new Engine({ store, limits: { maxSegments: 1 } });
    await e.open();
    await e.add(corpus);
    const inside = store as unknown as { segments: Map<number, SegmentRecord>; manifest: { chunkless?: number } };
    for (const seg of inside.segments.values()) delete seg.docTable; // as an older version wrote it
    delete inside.manifest.chunkless;
    const old = new Engine({ store, limits: { maxSegments: 1 } });
    await old.open();
    expect(store.loads.at(-1)?.documents).toBe(true);
    const want = await observe(old);
    await old.add([{ id: 'extra', text: 'no whale here, only sea', meta: { year: 1900 } }]); // merges into one segment
    const next = new Engine({ store });
    await next.open();
    expect(store.loads.at(-1)?.documents).toBe(false);
    const got = await observe(next);
    expect(got.count).toBe(want.count + 1);
    expect(got.filtered).toEqual(want.filtered);
  });
});

describe('an index written before document tables, opened with an embedder', () => {
  it('is rewritten in the background with tables (no embedding), and the next open reads no document record', async () => {
    const store = new WatchedStore();
    const embedder = new HashEmbedder();
    const e = new Engine({ store, embedder });
    await e.open();
    await e.add(corpus.slice(0, 2));
    await e.add(corpus.slice(2));
    const inside = store as unknown as { segments: Map<number, SegmentRecord>; manifest: { chunkless?: number } };
    for (const seg of inside.segments.values()) delete seg.docTable;
    delete inside.manifest.chunkless;
    const want = ids(await search(e, { query: 'whale', mode: 'dense' }));

    const counting = new HashEmbedder();
    const old = new Engine({ store, embedder: counting });
    await old.open();
    expect(store.loads.at(-1)?.documents).toBe(true);
    expect(await old.whenReembedded()).toBe(2);
    expect(counting.calls).toBe(0); // the vectors were kept, not recomputed (no query was embedded either)
    expect([...inside.segments.values()].every((s) => s.docTable !== undefined)).toBe(true);
    const next = new Engine({ store, embedder });
    await next.open();
    expect(store.loads.at(-1)?.documents).toBe(false);
    expect(ids(await search(next, { query: 'whale', mode: 'dense' }))).toEqual(want);
    expect(await next.whenReembedded()).toBe(0);
  });
});

describe('a packed document table', () => {
  it('gives back each document of a segment: ids of any characters, shared metas stored once', () => {
    const entry = (id: string, meta: Record<string, unknown>, version: number, keys: number[]) => newDocEntry(id, meta, version, keys);
    const a = entry('a\u0000b', { tag: 'x' }, 3, [1, 2]);
    const b = entry('ünï💡', { tag: 'x' }, 4, [3]);
    const c = entry('', { nested: { n: [1, null] } }, 5, [5]);
    const t = buildDocTable([a, a, b, undefined, c]);
    expect(Array.from(t.docOf)).toEqual([0, 0, 1, -1, 2]);
    expect([0, 1, 2].map((i) => tableId(t, i))).toEqual(['a\u0000b', 'ünï💡', '']);
    expect([0, 1, 2].map((i) => tableMeta(t, i))).toEqual([{ tag: 'x' }, { tag: 'x' }, { nested: { n: [1, null] } }]);
    expect(t.metaEnds).toHaveLength(2); // { tag: 'x' } once
    expect(Array.from(t.versions)).toEqual([3, 4, 5]);
  });
});

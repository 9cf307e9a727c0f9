/**
 * Int8 vectors, the approximate (sign-bit) path and the kernels: results follow upserts, deletes,
 * merges and reloads; float segments of older versions are served and rewritten; failed writes
 * leave the previous index searchable.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Embedder, FloatVectors, QuantizedVectors, SegmentRecord } from '../../src/engine/contracts.ts';
import { retrieveInProcess } from '../../src/server/retrieve-plan.ts';
import { Engine } from '../../src/engine/engine.ts';
import { VectorBlock } from '../../src/engine/index/vectors/block.ts';
import { dotsJs, hammingJs } from '../../src/engine/index/vectors/kernels-js.ts';
import { dequantize, mergeQuantized, quantize } from '../../src/engine/index/vectors/quantize.ts';
import { denseTuning } from '../../src/engine/index/vectors/tuning.ts';
import { kernelModule } from '../../src/engine/index/vectors/wasm-kernels.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import type { FilterNode } from '../../src/protocol/types.ts';
import { rng } from '../../src/util/prng.ts';

const DIM = 40; // not a multiple of 16: rows are padded

function randomUnit(seed: number, dim = DIM): Float32Array {
  const r = rng(seed);
  const v = Float32Array.from({ length: dim }, () => r() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** "v:<seed>" embeds to a fixed random unit vector; anything else to a hash of its text. */
class SeedEmbedder implements Embedder {
  readonly identity = 'test/seed-40';
  readonly dimension = DIM;
  readonly normalized = true;
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => randomUnit(Number(t.slice(2)) || t.length * 7919));
  }
}

const doc = (id: string, seed: number, meta: Record<string, unknown> = {}) => ({ id, text: `v:${seed}`, meta });

/** Ids of the k best documents by exact float cosine over `docs` (the reference). */
function bruteForce(docs: Map<string, number>, query: Float32Array, k: number): string[] {
  const cos = (seed: number) => {
    const v = randomUnit(seed);
    return v.reduce((s, x, i) => s + x * query[i], 0);
  };
  return [...docs].map(([id, seed]) => [id, cos(seed)] as const).sort((a, b) => b[1] - a[1]).slice(0, k).map(([id]) => id);
}

const saved = { ...denseTuning };
afterEach(() => Object.assign(denseTuning, saved));

async function search(engine: Engine, seed: number, k = 5, filter?: FilterNode): Promise<string[]> {
  const r = await retrieveInProcess(engine, { query: `v:${seed}`, k, mode: 'dense', includeText: false, ...(filter ? { filter } : {}) });
  return r.hits.map((h) => String(h.id));
}

describe('int8 storage', () => {
  it('quantizes each vector on its own scale, and merging copies rows exactly', () => {
    const vs = new Float32Array(3 * DIM);
    vs.set(randomUnit(1), 0);
    vs.set(randomUnit(2).map((x) => x * 1000), DIM); // a large vector keeps its precision
    const q = quantize({ identity: 'm', dimension: DIM, vectors: vs });
    expect(q.stride).toBe(48);
    expect(q.bitStride).toBe(16);
    for (const r of [0, 1]) {
      const back = dequantize(q, r);
      const orig = vs.subarray(r * DIM, (r + 1) * DIM);
      const max = Math.max(...orig.map(Math.abs));
      back.forEach((x, i) => expect(Math.abs(x - orig[i])).toBeLessThanOrEqual(max / 127 / 2 + 1e-6));
    }
    expect(q.invNorms[2]).toBe(0); // the zero vector has no direction
    const merged = mergeQuantized([{ q, remap: Int32Array.from([1, -1, 0]) }], 2);
    expect(Array.from(merged.codes.subarray(0, 48))).toEqual(Array.from(q.codes.subarray(96, 144)));
    expect(Array.from(merged.codes.subarray(48, 96))).toEqual(Array.from(q.codes.subarray(0, 48)));
    expect(merged.scales[1]).toBe(q.scales[0]);
  });

  // Row counts around the kernels' steps (4 rows per Hamming step, 8 per `within` step), and widths
  // from one to six 16-byte groups of sign bits.
  it.runIf(kernelModule(48) !== undefined).each([
    [384, 37],
    [384, 1],
    [384, 3],
    [384, 8],
    [384, 203],
    [100, 11],
    [768, 14],
  ])('the WASM kernels agree with the JS kernels (%i dimensions, %i rows)', (dim, n) => {
    const vs = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) vs.set(randomUnit(100 + i, dim), i * dim);
    const q = quantize({ identity: 'm', dimension: dim, vectors: vs });
    const query = randomUnit(7, dim);
    const wasm = new VectorBlock(q, true);
    expect(wasm.hasWasm).toBe(true);
    const js = new VectorBlock(q, false);
    const histWasm = new Uint32Array(q.bitStride * 8 + 1);
    const histJs = new Uint32Array(q.bitStride * 8 + 1);
    for (let scan = 0; scan < 2; scan++) {
      // Twice: the kernel's counters start from zero at every scan, and add to the caller's.
      const dWasm = wasm.scanHamming(query, 'wasm', histWasm);
      const dJs = js.scanHamming(query, 'js', histJs);
      expect(Array.from(dWasm)).toEqual(Array.from(dJs));
      expect(Array.from(histWasm)).toEqual(Array.from(histJs));
    }
    const dJs = js.scanHamming(query, 'js');
    const dWasm = wasm.scanHamming(query, 'wasm');
    // The histogram counts every row at its distance (twice: two scans).
    expect(histWasm.reduce((a, b) => a + b, 0)).toBe(2 * n);
    expect(histWasm[dJs[0]]).toBe(2 * dJs.filter((d) => d === dJs[0]).length);
    // The rows within a cut, listed by the kernel, ascending.
    const sorted = Array.from(dJs).sort((a, b) => a - b);
    for (const cut of [sorted[0], sorted[Math.min(9, n - 1)], sorted[n >> 1], sorted[n - 1], sorted[0] - 1, -1]) {
      const want = Array.from(dJs.keys()).filter((i) => dJs[i] <= cut);
      expect(Array.from(wasm.rowsWithin(dWasm, cut, 'wasm'))).toEqual(want);
      expect(Array.from(js.rowsWithin(dJs, cut, 'js'))).toEqual(want);
    }
    const exact = new Float32Array(n);
    dotsJs(query, q.codes, n, q.stride, dim, exact);
    const approx = wasm.scanDots(query, 'wasm');
    const qs = 32767 / Math.max(...query.map(Math.abs));
    // The query is rounded to int16: each product is off by at most half a query step times the code.
    const bound = (i: number): number => (0.5 / qs) * q.codes.subarray(i * q.stride, (i + 1) * q.stride).reduce((s, c) => s + Math.abs(c), 0) + 1e-9;
    exact.forEach((x, i) => expect(Math.abs(approx[i] / qs - x)).toBeLessThanOrEqual(bound(i)));
    const d = new Uint16Array(n);
    hammingJs(new Uint8Array(q.bitStride), q.bits, n, q.bitStride, d);
    const ones = (b: number): number => b.toString(2).replace(/0/g, '').length;
    d.forEach((x, i) => expect(x).toBe(q.bits.subarray(i * q.bitStride, (i + 1) * q.bitStride).reduce((s, b) => s + ones(b), 0)));
  });
});

describe.each([
  ['exact scan', Infinity],
  ['sign-bit shortlist', 0],
])('dense search (%s)', (_, exactBelow) => {
  it('follows upserts, deletes, merges and reloads', async () => {
    denseTuning.exactBelow = exactBelow;
    denseTuning.minShortlist = 1000; // the whole index: results must equal the exact ranking
    const store = new MemoryStore();
    const embedder = new SeedEmbedder();
    let engine = new Engine({ store, embedder, limits: { maxSegments: 2 } });
    await engine.open();
    const live = new Map<string, number>();
    for (let b = 0; b < 5; b++) {
      const docs = Array.from({ length: 40 }, (_, i) => doc(`d${b * 40 + i}`, 1000 + b * 40 + i));
      await engine.add(docs);
      docs.forEach((d) => live.set(d.id, Number(d.text.slice(2))));
    }
    const query = 1017; // the vector of d17
    expect((await search(engine, query))[0]).toBe('d17');
    // Upsert d17 far away, delete the next best, add a new exact match.
    await engine.add([doc('d17', 5), doc('fresh', query)]);
    live.set('d17', 5).set('fresh', query);
    const before = bruteForce(live, randomUnit(query), 6);
    await engine.delete([before[1]]);
    live.delete(before[1]);
    const want = bruteForce(live, randomUnit(query), 5);
    expect(await search(engine, query)).toEqual(want);
    expect(await search(engine, query)).not.toContain(before[1]);
    // Another engine on the same store (a reload, e.g. another tab) serves the same results.
    engine.close();
    engine = new Engine({ store, embedder });
    await engine.open();
    expect(await search(engine, query)).toEqual(want);
    const stored = (await store.load())!.segments;
    expect(stored.length).toBeLessThanOrEqual(2);
    for (const s of stored) expect(((await storedDense(store, s)) as QuantizedVectors).format).toBe(2);
  });

  it('fills k under a restrictive filter', async () => {
    denseTuning.exactBelow = exactBelow;
    denseTuning.minShortlist = 10;
    denseTuning.oversample = 1;
    const store = new MemoryStore();
    const engine = new Engine({ store, embedder: new SeedEmbedder() });
    await engine.open();
    const docs = Array.from({ length: 300 }, (_, i) => doc(`d${i}`, 2000 + i, { year: i % 50 === 0 ? 2000 : 1900 }));
    await engine.add(docs);
    const rare = new Map(docs.filter((d) => d.meta.year === 2000).map((d) => [d.id, Number(d.text.slice(2))]));
    expect(await search(engine, 2001, 5, { field: 'year', op: 'eq', value: 2000 })).toEqual(bruteForce(rare, randomUnit(2001), 5));
  });
});

/** A loaded segment's vectors as the store holds them: inline (older layout) or kept apart. */
async function storedDense(store: MemoryStore, seg: SegmentRecord): Promise<SegmentRecord['dense']> {
  return seg.dense ?? (await store.loadVectors([seg.id])).get(seg.id);
}

/** A store as an older version wrote it: one segment with float vectors, inline in the segment record. */
async function legacyStore(): Promise<{ store: MemoryStore; live: Map<string, number> }> {
  const store = new MemoryStore();
  const writer = new Engine({ store, embedder: new SeedEmbedder() });
  await writer.open();
  const docs = Array.from({ length: 60 }, (_, i) => doc(`d${i}`, 3000 + i));
  await writer.add(docs);
  writer.close();
  const loaded = (await store.load())!;
  const seg = loaded.segments[0];
  const q = (await storedDense(store, seg)) as QuantizedVectors;
  const floats = new Float32Array(60 * DIM);
  docs.forEach((d, i) => floats.set(randomUnit(Number(d.text.slice(2))), i * DIM));
  const { denseApart: _apart, ...plain } = seg;
  store.putLegacySegment({ ...plain, dense: { identity: q.identity, dimension: q.dimension, vectors: floats } satisfies FloatVectors });
  return { store, live: new Map(docs.map((d) => [d.id, Number(d.text.slice(2))])) };
}

describe('segments written with float vectors', () => {
  it('are served at once and rewritten as int8 in the background', async () => {
    const { store, live } = await legacyStore();
    expect('vectors' in (await store.load())!.segments[0].dense!).toBe(true);
    const engine = new Engine({ store, embedder: new SeedEmbedder() });
    await engine.open();
    expect(await search(engine, 3010)).toEqual(bruteForce(live, randomUnit(3010), 5));
    await engine.whenReembedded(); // the pass may already be over: the store below proves it ran
    const rewritten = (await store.load())!.segments[0];
    expect(rewritten.dense).toBeUndefined(); // the rewrite keeps them apart (the current layout)
    const dense = (await storedDense(store, rewritten)) as QuantizedVectors;
    expect(dense.format).toBe(2);
    expect(await search(engine, 3010)).toEqual(bruteForce(live, randomUnit(3010), 5));
  });

  it('stay intact and searchable when the rewrite cannot be stored (quota)', async () => {
    const { store, live } = await legacyStore();
    store.failNextCommit = new DOMException('full', 'QuotaExceededError');
    const engine = new Engine({ store, embedder: new SeedEmbedder() });
    await engine.open();
    await expect(engine.whenReembedded()).rejects.toThrow('full');
    expect('vectors' in (await store.load())!.segments[0].dense!).toBe(true);
    expect(await search(engine, 3020)).toEqual(bruteForce(live, randomUnit(3020), 5));
    // A later engine (the tab reopened) upgrades them.
    const next = new Engine({ store, embedder: new SeedEmbedder() });
    await next.open();
    expect(await next.whenReembedded()).toBe(1);
    expect(await search(next, 3020)).toEqual(bruteForce(live, randomUnit(3020), 5));
  });
});

describe('a write that fails (quota) while building vectors', () => {
  it('is a typed error and leaves the previous index searchable', async () => {
    const store = new MemoryStore();
    const engine = new Engine({ store, embedder: new SeedEmbedder() });
    await engine.open();
    await engine.add(Array.from({ length: 30 }, (_, i) => doc(`d${i}`, 4000 + i)));
    const before = await search(engine, 4003);
    store.failNextCommit = new DOMException('full', 'QuotaExceededError');
    await expect(engine.add([doc('x', 4003)])).rejects.toMatchObject({ name: 'QuotaExceededError' });
    expect(await search(engine, 4003)).toEqual(before);
    const reopened = new Engine({ store, embedder: new SeedEmbedder() });
    await reopened.open();
    expect(await search(reopened, 4003)).toEqual(before);
  });
});

describe('fine rescoring of a dense list', () => {
  /** Near-ties: every vector is one direction plus noise far below the int8 rounding step. */
  const base = randomUnit(77);
  const nearTie = (seed: number): Float32Array => {
    const r = rng(seed);
    return base.map((x) => x + (r() * 2 - 1) * 2e-3);
  };
  const near: Embedder = {
    identity: 'test/near-40',
    dimension: DIM,
    normalized: false,
    embed: async (texts) => texts.map((t) => nearTie(Number(t.slice(2)))),
  };
  const exact = (ids: string[], q: Float32Array, n = 10): string[] => {
    const cos = (v: Float32Array) => v.reduce((s, x, i) => s + x * q[i], 0) / (Math.hypot(...v) * Math.hypot(...q));
    return ids.map((id) => [id, cos(nearTie(Number(id.slice(1))))] as const).sort((a, b) => b[1] - a[1]).slice(0, n).map(([id]) => id);
  };
  /** An engine over 200 near-tie vectors, ids n9000…n9199. */
  const nearIndex = async () => {
    const store = new MemoryStore();
    const engine = new Engine({ store, embedder: near });
    await engine.open();
    const docs = Array.from({ length: 200 }, (_, i) => ({ id: `n${9000 + i}`, text: `v:${9000 + i}` }));
    await engine.add(docs);
    return { engine, ids: docs.map((d) => d.id) };
  };

  it('orders near-ties as exact float cosine does, where int8 codes alone cannot', async () => {
    const { engine, ids } = await nearIndex();
    await engine.delete(['n9000']); // fine codes are read per chunk key: survivors of a rewrite keep theirs
    const live = ids.filter((id) => id !== 'n9000');
    const q = 12345;
    const want = exact(live, nearTie(q));
    const got = async () => (await retrieveInProcess(engine, { query: `v:${q}`, k: 10, mode: 'dense', includeText: false })).hits.map((h) => String(h.id));
    expect(await got()).toEqual(want);
    denseTuning.refine = false;
    expect(await got()).not.toEqual(want); // the int8 cosines alone mis-order these ties
    denseTuning.refine = true;
  });

  it('reads the fine codes of the requested page and of the chunks within rounding of its last, not the whole list', async () => {
    const store = new MemoryStore();
    const engine = new Engine({ store, embedder: new SeedEmbedder() });
    await engine.open();
    const docs = new Map(Array.from({ length: 300 }, (_, i) => [`s${i}`, 500 + i] as const));
    await engine.add([...docs].map(([id, seed]) => doc(id, seed)));
    const reads = vi.spyOn(store, 'getChunks');
    const query = randomUnit(4242);
    const got = await search(engine, 4242, 5);
    expect(got).toEqual(bruteForce(docs, query, 5));
    const keys = reads.mock.calls.reduce((n, [ks]) => n + ks.length, 0);
    // The page is 5 deep, so its 5 are rescored; past the 5th only chunks within int8 rounding of
    // it are read. Random 40-d unit vectors are far apart, so few are. Before, the whole list
    // (candidateK 100) was read, one store read per chunk.
    expect(keys).toBeGreaterThanOrEqual(5);
    expect(keys).toBeLessThan(20);
    // The next page of the list rescores down to its own end (10), its first 5 included.
    const first = await retrieveInProcess(engine, { query: 'v:4242', k: 5, mode: 'dense', includeText: false });
    reads.mockClear();
    const second = await retrieveInProcess(engine, { query: 'v:4242', k: 5, mode: 'dense', includeText: false, cursor: first.nextCursor });
    expect([...first.hits, ...second.hits].map((h) => String(h.id))).toEqual(bruteForce(docs, query, 10));
    const keys2 = reads.mock.calls.reduce((n, [ks]) => n + ks.length, 0);
    expect(keys2).toBeGreaterThanOrEqual(10);
    expect(keys2).toBeLessThan(25);
    // A stage that reorders past the page (MMR here) still gets the whole list rescored.
    reads.mockClear();
    await retrieveInProcess(engine, { query: 'v:4242', k: 5, mode: 'dense', includeText: false, mmr: { lambda: 0.7 } });
    expect(reads.mock.calls.reduce((n, [ks]) => n + ks.length, 0)).toBeGreaterThanOrEqual(100);
  });

  it('pages of one dense list are cut from one order: page by page equals one deep page', async () => {
    const { engine, ids } = await nearIndex();
    const q = 4711;
    const exact30 = exact(ids, nearTie(q), 30);
    const params = { query: `v:${q}`, k: 10, mode: 'dense' as const, includeText: false };
    const paged: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 3; page++) {
      const r = await retrieveInProcess(engine, cursor ? { ...params, cursor } : params);
      paged.push(...r.hits.map((h) => String(h.id)));
      cursor = r.nextCursor;
      expect(cursor).toBeDefined();
    }
    const deep = (await retrieveInProcess(engine, { ...params, k: 30 })).hits.map((h) => String(h.id));
    expect(paged).toEqual(deep);
    // Every page was rescored: the int8 cosines alone order these near-ties otherwise, on each page.
    denseTuning.refine = false;
    const int8 = (await retrieveInProcess(engine, { ...params, k: 30 })).hits.map((h) => String(h.id));
    denseTuning.refine = true;
    for (const at of [0, 10, 20]) expect(paged.slice(at, at + 10)).not.toEqual(int8.slice(at, at + 10));
    // and closer to float cosine than int8 is: more of the exact top 30 in place.
    const inPlace = (l: string[]) => l.filter((id, i) => exact30[i] === id).length;
    expect(inPlace(paged)).toBeGreaterThan(inPlace(int8));
  });

  it('a segment embedded in the background is rescored as precisely (its chunks get fine codes with its vectors)', async () => {
    const store = new MemoryStore();
    const sparseOnly = new Engine({ store });
    await sparseOnly.open();
    await sparseOnly.add(Array.from({ length: 200 }, (_, i) => ({ id: `n${9000 + i}`, text: `v:${9000 + i}` })));
    const engine = new Engine({ store, embedder: near });
    await engine.open();
    expect(await engine.whenReembedded()).toBe(1);
    const q = 12345;
    const hits = (await retrieveInProcess(engine, { query: `v:${q}`, k: 10, mode: 'dense', includeText: false })).hits.map((h) => String(h.id));
    expect(hits).toEqual(exact(Array.from({ length: 200 }, (_, i) => `n${9000 + i}`), nearTie(q)));
  });
});

/**
 * The graph's neighbour search (src/engine/graph/knn.ts, knn-kernels.ts): each WebAssembly kernel
 * against its JS twin and a plain reference, and the neighbour lists against an exact scan of every
 * int8 vector on a seeded clustered set (two segments, tombstones).
 */
import { describe, expect, it } from 'vitest';
import type { QuantizedVectors } from '../../src/engine/contracts.ts';
import type { DenseModel } from '../../src/engine/index/dense.ts';
import type { DocEntry, IndexView, LiveSegment } from '../../src/engine/index/view.ts';
import { quantize } from '../../src/engine/index/vectors/quantize.ts';
import { rng } from '../../src/util/prng.ts';
import { DenseNeighbors, KNN_DEFAULTS } from '../../src/engine/graph/knn.ts';
import { gatherJs, gatherKernel, hammingTileJs, shortlistJs, shortlistKernel, TILE, tileKernel } from '../../src/engine/graph/knn-kernels.ts';

const gauss = (r: () => number): number => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());

const popcount = (x: number): number => {
  let c = 0;
  for (let v = x >>> 0; v; v &= v - 1) c++;
  return c;
};

describe('knn kernels', () => {
  it('tile: the WebAssembly kernel, its JS twin and a byte-wise popcount agree (pitch wider than n)', () => {
    const r = rng(1);
    for (const words of [2, 6]) {
      const bytes = words * 8;
      const n = 37;
      const pitch = 50;
      const qAt = 0;
      const base = TILE * bytes;
      const out = base + n * bytes;
      const size = out + TILE * pitch * 2;
      const memory = new WebAssembly.Memory({ initial: 1 });
      const u8 = new Uint8Array(memory.buffer);
      for (let i = 0; i < out; i++) u8[i] = Math.floor(r() * 256);
      const kernel = tileKernel(words, memory);
      expect(kernel).toBeDefined();
      kernel!(qAt, base, n, out, pitch);
      const wasm = new Uint16Array(memory.buffer.slice(out, size));
      const plain = memory.buffer.slice(0, size);
      new Uint8Array(plain).fill(0, out);
      hammingTileJs(plain, words, qAt, base, n, out, pitch);
      expect(Array.from(new Uint16Array(plain, out))).toEqual(Array.from(wasm));
      for (let k = 0; k < TILE; k++) {
        for (let i = 0; i < n; i++) {
          let d = 0;
          for (let b = 0; b < bytes; b++) d += popcount(u8[qAt + k * bytes + b] ^ u8[base + i * bytes + b]);
          expect(wasm[k * pitch + i]).toBe(d);
        }
        for (let i = n; i < pitch; i++) expect(wasm[k * pitch + i]).toBe(0); // nothing written past n
      }
    }
  });

  it('shortlist: every row under the cut, none over it, at least target rows but self, like its JS twin', () => {
    const r = rng(2);
    const n = 500;
    const maxD = 64;
    const memory = new WebAssembly.Memory({ initial: 1 });
    const d = new Uint16Array(memory.buffer, 0, n);
    for (let i = 0; i < n; i++) d[i] = Math.floor(r() * r() * (maxD + 1)); // skewed: many ties
    const histAt = 1024;
    const idxAt = 2048;
    const kernel = shortlistKernel(memory)!;
    expect(kernel).toBeDefined();
    for (const [target, self] of [[1, 0], [40, 7], [97, 499], [n + 5, 3]]) {
      const count = kernel(0, n, histAt, maxD, target, self, idxAt);
      const rows = Array.from(new Int32Array(memory.buffer, idxAt, count));
      const plain = memory.buffer.slice(0);
      const jsCount = shortlistJs(plain, 0, n, histAt, maxD, target, self, idxAt);
      expect(jsCount).toBe(count);
      expect(Array.from(new Int32Array(plain, idxAt, jsCount))).toEqual(rows);
      const cut = Math.max(...rows.map((i) => d[i]));
      const want = [...d.keys()].filter((i) => i !== self && d[i] <= cut);
      expect(rows).toEqual(want);
      // The cut is the smallest distance holding `target` rows (self included), or maxD.
      const upTo = (c: number) => [...d].filter((x) => x <= c).length;
      expect(upTo(cut) >= Math.min(target, n)).toBe(true);
      if (cut > 0 && upTo(cut) < n) expect(upTo(cut - 1)).toBeLessThan(target);
    }
  });

  it.each([
    [16, 'random'],
    [48, 'random'],
    [384, 'random'],
    [384, 'extreme'],
  ] as const)('gather: exact int8 dot products of listed rows, like its JS twin (stride %i, %s codes)', (stride, kind) => {
    const r = rng(3 + stride);
    const n = 20;
    const codesAt = stride;
    const idxAt = codesAt + n * stride;
    const outAt = idxAt + 64;
    const memory = new WebAssembly.Memory({ initial: 1 });
    const i8 = new Int8Array(memory.buffer);
    // Extreme codes (±128, 127) reach the largest sums: 384 × 128² stays well inside i32.
    for (let i = 0; i < idxAt; i++) i8[i] = kind === 'extreme' ? (r() < 0.5 ? -128 : 127) : Math.floor(r() * 256) - 128;
    const idx = [19, 0, 5, 5, 12];
    new Int32Array(memory.buffer, idxAt, idx.length).set(idx);
    new Int32Array(memory.buffer, outAt + 4 * idx.length, 1).set([-7]); // a sentinel just past the last output
    const kernel = gatherKernel(memory)!;
    expect(kernel).toBeDefined();
    kernel(0, codesAt, stride, idxAt, 0, outAt); // no rows: writes nothing
    expect(new Int32Array(memory.buffer, outAt, 1)[0]).toBe(0);
    kernel(0, codesAt, stride, idxAt, idx.length, outAt);
    const got = Array.from(new Int32Array(memory.buffer, outAt, idx.length + 1));
    const want = idx.map((row) => {
      let s = 0;
      for (let j = 0; j < stride; j++) s += i8[j] * i8[codesAt + row * stride + j];
      return s;
    });
    expect(got).toEqual([...want, -7]);
    const plain = memory.buffer.slice(0);
    new Int32Array(plain, outAt, idx.length).fill(0);
    gatherJs(plain, 0, codesAt, stride, idxAt, idx.length, outAt);
    expect(Array.from(new Int32Array(plain, outAt, idx.length))).toEqual(want);
  });
});

/** A view of `segs` (each a list of float vectors) with one single-passage document per vector. */
function viewOf(segs: Float32Array[][], dim: number, dead: Set<number> = new Set()): { view: IndexView; model: DenseModel } {
  const model: DenseModel = { identity: 'test/clusters', dimension: dim, normalized: true, minSimilarity: 0.1 };
  let key = 0;
  const segments: LiveSegment[] = [];
  const deadArrays: Uint8Array[] = [];
  segs.forEach((vectors, s) => {
    const flat = new Float32Array(vectors.length * dim);
    vectors.forEach((v, i) => flat.set(v, i * dim));
    const dense: QuantizedVectors = quantize({ identity: model.identity, dimension: dim, vectors: flat });
    const chunkKeys = Uint32Array.from(vectors, () => key++);
    const docs = Array.from(chunkKeys, (k) => ({ id: `d${k}` }) as unknown as DocEntry);
    segments.push({ id: s, record: { id: s, chunkKeys, dense }, lex: {}, size: vectors.length, docs } as unknown as LiveSegment);
    deadArrays.push(Uint8Array.from(chunkKeys, (k) => (dead.has(k) ? 1 : 0)));
  });
  const view = { version: 1, segments, dead: deadArrays, bases: [], total: key, live: key - dead.size, liveLength: 0 } as unknown as IndexView;
  return { view, model };
}

/** Exact top-m over every live int8 vector (cosine of the codes), at or above the floor. */
function exactLists(view: IndexView, model: DenseModel, m: number): Map<number, number[]> {
  const rows: { key: number; q: QuantizedVectors; r: number }[] = [];
  view.segments.forEach((seg, si) => {
    const q = seg.record.dense as QuantizedVectors;
    for (let r = 0; r < seg.size; r++) if (!view.dead[si][r]) rows.push({ key: seg.record.chunkKeys[r], q, r });
  });
  const cos = (a: (typeof rows)[number], b: (typeof rows)[number]): number => {
    let s = 0;
    for (let j = 0; j < model.dimension; j++) s += a.q.codes[a.r * a.q.stride + j] * b.q.codes[b.r * b.q.stride + j];
    return s * a.q.invNorms[a.r] * b.q.invNorms[b.r];
  };
  const out = new Map<number, number[]>();
  for (const a of rows) {
    const scored = rows.filter((b) => b !== a).map((b) => ({ key: b.key, s: cos(a, b) })).filter((x) => x.s >= model.minSimilarity!);
    scored.sort((x, y) => y.s - x.s || x.key - y.key);
    out.set(a.key, scored.slice(0, m).map((x) => x.key));
  }
  return out;
}

function recall(lists: Map<number, { keys: number[] }>, exact: Map<number, number[]>): number {
  let found = 0;
  let total = 0;
  for (const [key, truth] of exact) {
    const got = lists.get(key)?.keys ?? [];
    total += truth.length;
    found += truth.filter((k) => got.includes(k)).length;
  }
  return found / total;
}

describe('DenseNeighbors', () => {
  // 1,600 vectors in 384 dimensions around 40 centres, over two segments (their own centres and
  // bits); noise 2 leaves near-ties in the top 8 (recall 0.977 here, as on the sample corpus).
  const dim = 384;
  const r = rng(19);
  const centres = Array.from({ length: 40 }, () => Float32Array.from({ length: dim }, () => gauss(r)));
  const vector = (): Float32Array => {
    const c = centres[Math.floor(r() * centres.length)];
    const v = Float32Array.from(c, (x) => x + 2 * gauss(r));
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const segs = [Array.from({ length: 1000 }, vector), Array.from({ length: 600 }, vector)];

  it('finds ≥ 0.95 of the exact top 8 over every int8 vector, with the stored cosines', async () => {
    const { view, model } = viewOf(segs, dim);
    const knn = new DenseNeighbors();
    expect(await knn.reconcile(view, model)).toBe(1600);
    const exact = exactLists(view, model, KNN_DEFAULTS.m);
    const got = recall(knn.lists, exact);
    expect(got).toBeGreaterThanOrEqual(0.95);
    // Sims are the exact cosines of the stored codes, best first, none below the floor.
    const q0 = segs[0][0];
    for (const list of knn.lists.values()) {
      for (let j = 1; j < list.sims.length; j++) expect(list.sims[j]).toBeLessThanOrEqual(list.sims[j - 1]);
      for (const s of list.sims) expect(s).toBeGreaterThanOrEqual(model.minSimilarity!);
    }
    const first = knn.lists.get(0)!;
    const other = first.keys[0];
    const ov = other < 1000 ? segs[0][other] : segs[1][other - 1000];
    let fc = 0;
    for (let j = 0; j < dim; j++) fc += q0[j] * ov[j];
    expect(Math.abs(first.sims[0] - fc)).toBeLessThan(0.02); // int8 rounding of the float cosine
  });

  it('after tombstones lists name only live passages, and only the affected lists are recomputed', async () => {
    const { view, model } = viewOf(segs, dim);
    const knn = new DenseNeighbors();
    await knn.reconcile(view, model);
    const dead = new Set(Array.from({ length: 200 }, (_, i) => i * 8)); // every 8th passage
    const { view: later } = viewOf(segs, dim, dead);
    const computed = await knn.reconcile(later, model);
    expect(computed).toBeLessThan(1400);
    expect(knn.lists.size).toBe(1400);
    for (const [key, list] of knn.lists) {
      expect(dead.has(key)).toBe(false);
      for (const k of list.keys) expect(dead.has(k)).toBe(false);
    }
    // A list that keeps half its neighbours is not recomputed (it is short of the deleted ones).
    expect(recall(knn.lists, exactLists(later, model, KNN_DEFAULTS.m))).toBeGreaterThanOrEqual(0.85);
  });
});

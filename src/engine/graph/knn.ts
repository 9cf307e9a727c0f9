/**
 * Dense nearest neighbours of every passage, over the int8 vectors the segments already hold, kept
 * incrementally: `reconcile(view)` diffs the view's live passages (by chunk key, which no write
 * reuses) against the lists it has, drops the gone ones, and computes lists only for passages it
 * has not seen — so an upsert of one document costs that document's passages, not the corpus.
 *
 * Each list is found in the dense search's two stages: a Hamming scan of the sign bits over every
 * live passage picks a shortlist, which is scored exactly (the int8 codes' cosine), with kernels of
 * the graph's own (knn-kernels.ts) that take four passages per scan. A new passage is also offered
 * to its neighbours' lists (cosine is symmetric), so older passages learn of newer ones; a list
 * that lost too many neighbours to deletes is recomputed. Neighbours below the model's similarity
 * floor are no neighbours (unrelated texts stay apart).
 */
import { makeTicker } from '../../util/abort.ts';
import { segmentVectors, type DenseModel } from '../index/dense.ts';
import { docAt, type IndexView } from '../index/view.ts';
import type { VectorBlock } from '../index/vectors/block.ts';
import { signBits } from '../index/vectors/quantize.ts';
import { gatherJs, gatherKernel, hammingTileJs, shortlistJs, shortlistKernel, TILE, tileKernel, type GatherKernel, type ShortlistKernel, type TileKernel } from './knn-kernels.ts';

/** A passage's neighbours, best first: chunk keys and cosines. */
export interface NeighborList {
  keys: number[];
  sims: number[];
}

export interface KnnOptions {
  /** Neighbours kept per passage. */
  m: number;
  /** Hamming shortlist scored exactly per passage (≥ m). */
  shortlist: number;
}

/** Measured on the sample corpus (scripts/measure-graph.ts): m 8, shortlist 96 keep ≥ 0.9 of the exact top 8. */
export const KNN_DEFAULTS: Readonly<KnnOptions> = Object.freeze({ m: 8, shortlist: 96 });

const align16 = (x: number): number => Math.ceil(x / 16) * 16;

/** Where a live passage's vector is: segment index and local ordinal. */
interface Place {
  si: number;
  local: number;
}

export class DenseNeighbors {
  /** chunk key → neighbours, for every live passage with a vector of `identity`. */
  readonly lists = new Map<number, NeighborList>();
  /** The model the lists were computed with; another model starts over. */
  private identity: string | undefined;
  readonly opts: KnnOptions;

  constructor(opts: Partial<KnnOptions> = {}) {
    this.opts = { ...KNN_DEFAULTS, ...opts };
  }

  /** Restores lists computed earlier (a persisted graph) for `identity`. */
  restore(identity: string, lists: Iterable<[number, NeighborList]>): void {
    this.identity = identity;
    this.lists.clear();
    for (const [k, l] of lists) this.lists.set(k, l);
  }

  get model(): string | undefined {
    return this.identity;
  }

  /**
   * Brings the lists in line with `view`: returns how many lists were computed. Yields to the event
   * loop every few milliseconds (a request or a cancel may run meanwhile), so `signal` can stop it.
   */
  async reconcile(view: IndexView, model: DenseModel, signal?: AbortSignal): Promise<number> {
    if (this.identity !== model.identity) {
      this.lists.clear();
      this.identity = model.identity;
    }
    const blocks = view.segments.map((s) => segmentVectors(s, model));
    const places = livePlaces(view, blocks);
    const min = model.minSimilarity ?? -Infinity;
    const todo: number[] = [];
    for (const [key, list] of this.lists) {
      if (!places.has(key)) {
        this.lists.delete(key);
        continue;
      }
      const before = list.keys.length;
      let w = 0;
      for (let j = 0; j < before; j++) {
        if (!places.has(list.keys[j])) continue;
        list.keys[w] = list.keys[j];
        list.sims[w++] = list.sims[j];
      }
      list.keys.length = list.sims.length = w;
      // Lost half its neighbours to deletes: recompute (it may have had more than it shows now).
      if (w < before && w * 2 < this.opts.m) todo.push(key);
    }
    for (const key of places.keys()) if (!this.lists.has(key)) todo.push(key);
    const tick = makeTicker(signal);
    if (todo.length === 0) return 0;
    const scanner = new Scanner(blocks, places, this.opts.shortlist);
    for (let t = 0; t < todo.length; t += TILE) {
      const keys = todo.slice(t, t + TILE);
      const lists = scanner.nearest(keys.map((k) => places.get(k)!), keys, this.opts.m, min);
      keys.forEach((key, i) => {
        const list = lists[i];
        this.lists.set(key, list);
        list.keys.forEach((other, j) => offer(this.lists.get(other), key, list.sims[j], this.opts.m));
      });
      await tick();
    }
    return todo.length;
  }
}

/** Inserts (key, sim) into a best-first list of at most m, when it ranks. */
function offer(list: NeighborList | undefined, key: number, sim: number, m: number): void {
  if (!list || list.keys.includes(key)) return;
  if (list.keys.length >= m && sim <= list.sims[list.sims.length - 1]) return;
  let at = list.sims.findIndex((s) => sim > s);
  if (at < 0) at = list.sims.length;
  list.keys.splice(at, 0, key);
  list.sims.splice(at, 0, sim);
  if (list.keys.length > m) {
    list.keys.length = m;
    list.sims.length = m;
  }
}

/** Live passages with a usable (non-zero) vector, by chunk key. */
function livePlaces(view: IndexView, blocks: readonly (VectorBlock | undefined)[]): Map<number, Place> {
  const out = new Map<number, Place>();
  view.segments.forEach((seg, si) => {
    const b = blocks[si];
    if (!b) return;
    const dead = view.dead[si];
    for (let local = 0; local < seg.size; local++) {
      if (dead[local] || !(b.q.invNorms[local] > 0) || docAt(seg, local) === undefined) continue;
      out.set(seg.record.chunkKeys[local], { si, local });
    }
  });
  return out;
}

/**
 * Shortlists by Hamming distance over every live passage, then exact cosines, TILE passages at a
 * time: the live rows' sign bits and int8 codes are gathered once into a memory of the scanner's
 * own (so dead and document-less rows are never scanned), one kernel call gives TILE queries'
 * distances to every row, and another the shortlist's integer dot products (knn-kernels.ts). A
 * query's bits against another segment are taken against that segment's center, as the dense
 * search's own scan does. The cosine is the stored vectors' own, codes · codes × both inverse
 * norms: the same either way round, so both ends of an edge agree on its weight.
 */
class Scanner {
  private readonly bitStride: number;
  private readonly words: number;
  /** Gathered row → chunk key; segment s's rows are [from[s], from[s + 1]). */
  private readonly rowKey: Uint32Array;
  private readonly from: Uint32Array;
  private readonly n: number;
  private readonly qAt = 0;
  private readonly rowsAt: number;
  private readonly outAt: number;
  private readonly buffer: () => ArrayBuffer;
  private readonly kernel: TileKernel;
  private readonly gather: GatherKernel;
  private readonly pick: ShortlistKernel;
  /** chunk key → gathered row. */
  private readonly rowOf = new Map<number, number>();
  private readonly histAt: number;
  private readonly maxD: number;
  private readonly stride: number;
  /** Query codes (stride), the rows' codes (n × stride), shortlist rows (n × 4), their dots (n × 4). */
  private readonly qCodesAt: number;
  private readonly codesAt: number;
  private readonly idxAt: number;
  private readonly dotsAt: number;
  private readonly rowInv: Float32Array;

  constructor(
    private readonly blocks: readonly (VectorBlock | undefined)[],
    places: ReadonlyMap<number, Place>,
    private readonly shortlist: number,
  ) {
    this.bitStride = Math.max(0, ...blocks.map((b) => (b ? b.q.bitStride : 0)));
    this.words = this.bitStride >> 3;
    const bySeg = blocks.map((): [number, number][] => []);
    for (const [key, p] of places) bySeg[p.si].push([p.local, key]);
    const n = (this.n = places.size);
    this.rowKey = new Uint32Array(n);
    this.from = new Uint32Array(blocks.length + 1);
    this.rowsAt = TILE * this.bitStride;
    this.outAt = this.rowsAt + n * this.bitStride;
    this.stride = Math.max(0, ...blocks.map((b) => (b ? b.q.stride : 0)));
    this.qCodesAt = align16(this.outAt + TILE * n * 2);
    this.codesAt = this.qCodesAt + this.stride;
    this.idxAt = align16(this.codesAt + n * this.stride);
    this.dotsAt = this.idxAt + n * 4;
    this.maxD = this.bitStride * 8;
    this.histAt = this.dotsAt + n * 4;
    const bytes = this.histAt + (this.maxD + 1) * 4;
    this.rowInv = new Float32Array(n);
    let memory: WebAssembly.Memory | undefined;
    let kernel: TileKernel | undefined;
    let gather: GatherKernel | undefined;
    let pick: ShortlistKernel | undefined;
    try {
      memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / 65536)) });
      kernel = tileKernel(this.words, memory);
      gather = gatherKernel(memory);
      pick = shortlistKernel(memory);
    } catch {
      memory = undefined; // no WebAssembly here: the JS kernel over a plain buffer
    }
    const plain = memory ? undefined : new ArrayBuffer(bytes);
    this.buffer = memory ? () => memory.buffer : () => plain!;
    const words = this.words;
    this.kernel = kernel ?? ((q, base, count, out, pitch) => hammingTileJs(this.buffer(), words, q, base, count, out, pitch));
    this.pick = pick ?? ((d, count, hist, maxD, target, self, idx) => shortlistJs(this.buffer(), d, count, hist, maxD, target, self, idx));
    this.gather = gather ?? ((q, codes, stride, idx, count, out) => gatherJs(this.buffer(), q, codes, stride, idx, count, out));
    const bits = new Uint8Array(this.buffer());
    const codes = new Int8Array(this.buffer());
    const stride = this.stride;
    let row = 0;
    bySeg.forEach((rows, si) => {
      this.from[si] = row;
      rows.sort((a, b) => a[0] - b[0]);
      const b = blocks[si];
      for (const [local, key] of rows) {
        this.rowKey[row] = key;
        this.rowOf.set(key, row);
        bits.set(b!.q.bits.subarray(local * b!.q.bitStride, (local + 1) * b!.q.bitStride), this.rowsAt + row * this.bitStride);
        codes.set(b!.q.codes.subarray(local * stride, (local + 1) * stride), this.codesAt + row * stride);
        this.rowInv[row] = b!.q.invNorms[local];
        row++;
      }
    });
    this.from[blocks.length] = row;
  }

  /** The lists of up to TILE passages (`keys[i]` at `ps[i]`). */
  nearest(ps: readonly Place[], keys: readonly number[], m: number, min: number): NeighborList[] {
    const { bitStride, n } = this;
    const mem = this.buffer();
    const qbits = new Uint8Array(mem, this.qAt, TILE * bitStride);
    // Distances segment by segment: the queries' bits are relative to each segment's center.
    this.blocks.forEach((b, si) => {
      const count = this.from[si + 1] - this.from[si];
      if (!b || count === 0) return;
      qbits.fill(0);
      ps.forEach((p, k) => {
        const own = this.blocks[p.si]!.q;
        if (p.si === si) qbits.set(own.bits.subarray(p.local * bitStride, (p.local + 1) * bitStride), k * bitStride);
        else signBits(own.codes, p.local * own.stride, own.invNorms[p.local], b.q.center, qbits, k * bitStride);
      });
      this.kernel(this.qAt, this.rowsAt + this.from[si] * bitStride, count, this.outAt + this.from[si] * 2, n);
    });
    return ps.map((p, k) => this.select(this.outAt + k * n * 2, p, keys[k], m, min));
  }

  /** The shortlist (every row within the distance that holds `shortlist` + 1 rows, the query included) scored exactly. */
  private select(d: number, p: Place, self: number, m: number, min: number): NeighborList {
    const own = this.blocks[p.si]!.q;
    const mem = this.buffer();
    const { stride } = this;
    new Int8Array(mem, this.qCodesAt, stride).set(own.codes.subarray(p.local * stride, (p.local + 1) * stride));
    const qInv = own.invNorms[p.local];
    const { rowKey, rowInv, n } = this;
    const count = this.pick(d, n, this.histAt, this.maxD, this.shortlist + 1, this.rowOf.get(self)!, this.idxAt);
    const idx = new Int32Array(mem, this.idxAt, count);
    this.gather(this.qCodesAt, this.codesAt, stride, this.idxAt, count, this.dotsAt);
    const dots = new Int32Array(mem, this.dotsAt, count);
    const keys: number[] = [];
    const sims: number[] = [];
    for (let c = 0; c < count; c++) {
      const i = idx[c];
      const s = dots[c] * qInv * rowInv[i];
      if (!(s >= min)) continue;
      keys.push(rowKey[i]);
      sims.push(s);
    }
    const order = keys.map((_, i) => i).sort((a, b) => sims[b] - sims[a] || keys[a] - keys[b]).slice(0, m);
    return { keys: order.map((i) => keys[i]), sims: order.map((i) => sims[i]) };
  }
}

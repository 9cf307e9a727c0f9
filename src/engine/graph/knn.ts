/**
 * Dense nearest neighbours of every passage, over the int8 vectors the segments already hold, kept
 * incrementally: `reconcile(view)` diffs the view's live passages (by chunk key, which no write
 * reuses) against the lists it has, drops the gone ones, and computes lists only for passages it
 * has not seen — so an upsert of one document costs that document's passages, not the corpus.
 *
 * Each list is found with the dense search's own two stages: a Hamming scan of the sign bits over
 * every segment (the WASM kernel) picks a shortlist, which is scored exactly (float query · int8
 * codes). A new passage is also offered to its neighbours' lists (cosine is symmetric), so older
 * passages learn of newer ones; a list that lost too many neighbours to deletes is recomputed.
 * Neighbours below the model's similarity floor are no neighbours (unrelated texts stay apart).
 */
import { makeTicker } from '../../util/abort.ts';
import { segmentVectors, type DenseModel } from '../index/dense.ts';
import { docAt, type IndexView } from '../index/view.ts';
import type { VectorBlock } from '../index/vectors/block.ts';
import { signBits } from '../index/vectors/quantize.ts';
import { hammingTileJs, TILE, tileKernel, type TileKernel } from './hamming-tile.ts';

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
 * time: the live rows' sign bits are gathered once into a memory of the scanner's own (so dead and
 * document-less rows are never scanned), and one kernel call gives TILE queries' distances to every
 * row (hamming-tile.ts). A query's bits against another segment are taken against that segment's
 * center, as the dense search's own scan does.
 */
class Scanner {
  private readonly bitStride: number;
  private readonly words: number;
  /** Gathered row → chunk key, segment, local ordinal; segment s's rows are [from[s], from[s + 1]). */
  private readonly rowKey: Uint32Array;
  private readonly rowSeg: Uint32Array;
  private readonly rowLocal: Uint32Array;
  private readonly from: Uint32Array;
  private readonly n: number;
  private readonly qAt = 0;
  private readonly rowsAt: number;
  private readonly outAt: number;
  private readonly buffer: () => ArrayBuffer;
  private readonly kernel: (q: number, base: number, n: number, out: number, pitch: number) => void;
  private readonly hist: Uint32Array;

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
    this.rowSeg = new Uint32Array(n);
    this.rowLocal = new Uint32Array(n);
    this.from = new Uint32Array(blocks.length + 1);
    this.rowsAt = TILE * this.bitStride;
    this.outAt = this.rowsAt + n * this.bitStride;
    const bytes = this.outAt + TILE * n * 2;
    let memory: WebAssembly.Memory | undefined;
    let kernel: TileKernel | undefined;
    try {
      memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / 65536)) });
      kernel = tileKernel(this.words, memory);
    } catch {
      memory = undefined; // no WebAssembly here: the JS kernel over a plain buffer
    }
    const plain = memory ? undefined : new ArrayBuffer(bytes);
    this.buffer = memory ? () => memory.buffer : () => plain!;
    const words = this.words;
    this.kernel = kernel ?? ((q, base, count, out, pitch) => hammingTileJs(this.buffer(), words, q, base, count, out, pitch));
    const bits = new Uint8Array(this.buffer());
    let row = 0;
    bySeg.forEach((rows, si) => {
      this.from[si] = row;
      rows.sort((a, b) => a[0] - b[0]);
      const b = blocks[si];
      for (const [local, key] of rows) {
        this.rowKey[row] = key;
        this.rowSeg[row] = si;
        this.rowLocal[row] = local;
        bits.set(b!.q.bits.subarray(local * b!.q.bitStride, (local + 1) * b!.q.bitStride), this.rowsAt + row * this.bitStride);
        row++;
      }
    });
    this.from[blocks.length] = row;
    this.hist = new Uint32Array(this.bitStride * 8 + 1);
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
    return ps.map((p, k) => this.select(new Uint16Array(this.buffer(), this.outAt + k * n * 2, n), p, keys[k], m, min));
  }

  /** The shortlist (every row within the distance that holds `shortlist` + 1 rows, the query included) scored exactly. */
  private select(d: Uint16Array, p: Place, self: number, m: number, min: number): NeighborList {
    const block = this.blocks[p.si]!;
    const query = block.vector(p.local);
    let qNorm = 0;
    for (let i = 0; i < query.length; i++) qNorm += query[i] * query[i];
    qNorm = Math.sqrt(qNorm);
    const hist = this.hist;
    hist.fill(0);
    const n = this.n;
    for (let i = 0; i < n; i++) hist[d[i]]++;
    const maxD = hist.length - 1;
    let cut = 0;
    for (let cum = hist[0]; cum < this.shortlist + 1 && cut < maxD; ) cum += hist[++cut];
    const keys: number[] = [];
    const sims: number[] = [];
    const { rowKey, rowSeg, rowLocal, blocks } = this;
    for (let i = 0; i < n; i++) {
      if (d[i] > cut) continue;
      const key = rowKey[i];
      if (key === self) continue;
      const s = blocks[rowSeg[i]]!.cosine(query, qNorm, rowLocal[i]);
      if (!(s >= min)) continue;
      keys.push(key);
      sims.push(s);
    }
    const order = keys.map((_, i) => i).sort((a, b) => sims[b] - sims[a] || keys[a] - keys[b]).slice(0, m);
    return { keys: order.map((i) => keys[i]), sims: order.map((i) => sims[i]) };
  }
}

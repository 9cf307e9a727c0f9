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
import { denseTuning } from '../index/vectors/tuning.ts';

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
    const scanner = new Scanner(view, blocks, this.opts.shortlist);
    for (const key of todo) {
      const p = places.get(key)!;
      const list = scanner.nearest(p, key, this.opts.m, min);
      this.lists.set(key, list);
      list.keys.forEach((other, j) => offer(this.lists.get(other), key, list.sims[j], this.opts.m));
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

/** One passage's shortlist by Hamming distance over every block, then exact cosines. */
class Scanner {
  private readonly maxD: number;
  private readonly hist: Uint32Array;

  constructor(
    private readonly view: IndexView,
    private readonly blocks: readonly (VectorBlock | undefined)[],
    private readonly shortlist: number,
  ) {
    this.maxD = Math.max(0, ...blocks.map((b) => (b ? b.q.bitStride * 8 : 0)));
    this.hist = new Uint32Array(this.maxD + 1);
  }

  nearest(p: Place, self: number, m: number, min: number): NeighborList {
    const block = this.blocks[p.si]!;
    const query = block.vector(p.local);
    let qNorm = 0;
    for (let i = 0; i < query.length; i++) qNorm += query[i] * query[i];
    qNorm = Math.sqrt(qNorm);
    const unit = query.map((x) => x / qNorm);
    // Each scan's output is valid until the next scan of that block: copied per block.
    const dists = this.blocks.map((b) => (b ? b.scanHamming(unit, denseTuning.kernel).slice() : undefined));
    const hist = this.hist;
    hist.fill(0);
    for (const d of dists) if (d) for (let i = 0; i < d.length; i++) hist[d[i]]++;
    let cut = 0;
    for (let cum = hist[0]; cum < this.shortlist + 1 && cut < this.maxD; ) cum += hist[++cut];
    const keys: number[] = [];
    const sims: number[] = [];
    const { view } = this;
    dists.forEach((d, si) => {
      if (!d) return;
      const b = this.blocks[si]!;
      const seg = view.segments[si];
      const dead = view.dead[si];
      for (let local = 0; local < d.length; local++) {
        if (d[local] > cut || dead[local] || !(b.q.invNorms[local] > 0)) continue;
        const key = seg.record.chunkKeys[local];
        if (key === self || docAt(seg, local) === undefined) continue;
        const s = b.cosine(query, qNorm, local);
        if (!(s >= min)) continue;
        keys.push(key);
        sims.push(s);
      }
    });
    const order = keys.map((_, i) => i).sort((a, b) => sims[b] - sims[a] || keys[a] - keys[b]).slice(0, m);
    return { keys: order.map((i) => keys[i]), sims: order.map((i) => sims[i]) };
  }
}

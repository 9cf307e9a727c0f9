/**
 * The passage graph of one index version: nodes are the live passages (nodes.ts); an undirected,
 * weighted edge joins two passages that are
 *   - dense neighbours (knn.ts): weight = their cosine (≥ the model's similarity floor);
 *   - adjacent passages of one document: weight ADJACENT_WEIGHT;
 *   - sharers of rare terms (in 2..RARE_MAX_DF passages): weight Σ idf / TERM_IDF_SCALE, capped at
 *     1, each passage keeping its TERM_EDGES_PER_NODE strongest such links.
 * Two passages linked several ways get one edge: the weights add up and `kinds` says which.
 * Stored as CSR (both directions), so a walk or a traversal reads a node's edges as one slice.
 */
import type { DenseNeighbors } from './knn.ts';
import type { GraphNodes, TermTable } from './nodes.ts';

export const EDGE_KIND = Object.freeze({ dense: 1, adjacent: 2, terms: 4 });
export type EdgeKindName = keyof typeof EDGE_KIND;

/** Weight of the link between consecutive passages of a document: about a close dense neighbour's. */
export const ADJACENT_WEIGHT = 0.5;
/** A term in more passages than this is not rare: it says little about two passages sharing it. */
export const RARE_MAX_DF = 6;
/** Σ idf of the rare terms two passages share, divided by this, is their link's weight (≤ 1). */
export const TERM_IDF_SCALE = 16;
/** Rare-term links each passage keeps (its strongest). */
export const TERM_EDGES_PER_NODE = 4;
/** Shortest rare term that counts: one- and two-character tokens are mostly noise (page numbers, initials). */
const MIN_TERM_LENGTH = 3;

export interface PassageGraph {
  nodes: GraphNodes;
  /** CSR: node n's edges are targets/weights/kinds[offsets[n] .. offsets[n + 1]). */
  offsets: Uint32Array;
  targets: Uint32Array;
  weights: Float32Array;
  /** Bit mask of EDGE_KIND per edge. */
  kinds: Uint8Array;
  /** Undirected edges. */
  edges: number;
  /** Node → Σ weights of its edges. */
  strength: Float32Array;
}

export const kindNames = (mask: number): EdgeKindName[] =>
  (Object.keys(EDGE_KIND) as EdgeKindName[]).filter((k) => mask & EDGE_KIND[k]);

/** Accumulates undirected edges (lo, hi) with summed weights and kinds. */
class EdgeSet {
  readonly w = new Map<number, number>();
  readonly k = new Map<number, number>();
  constructor(private readonly n: number) {}
  add(a: number, b: number, weight: number, kind: number): void {
    if (a === b || !(weight > 0)) return;
    const key = a < b ? a * this.n + b : b * this.n + a;
    this.w.set(key, (this.w.get(key) ?? 0) + weight);
    this.k.set(key, (this.k.get(key) ?? 0) | kind);
  }
}

export function buildPassageGraph(nodes: GraphNodes, terms: TermTable, knn: DenseNeighbors | undefined): PassageGraph {
  const n = nodes.ids.length;
  const set = new EdgeSet(n);
  if (knn) {
    for (let a = 0; a < n; a++) {
      const list = knn.lists.get(nodes.keys[a]);
      if (!list) continue;
      list.keys.forEach((key, j) => {
        const b = nodes.byKey.get(key);
        // Each side may list the other: the link counts once, at the larger of the two cosines.
        if (b === undefined) return;
        const lo = Math.min(a, b);
        const hi = Math.max(a, b);
        const id = lo * n + hi;
        const had = set.k.get(id) ?? 0;
        if (had & EDGE_KIND.dense) {
          if (list.sims[j] > (set.w.get(id) ?? 0)) set.w.set(id, list.sims[j]);
          return;
        }
        set.add(a, b, list.sims[j], EDGE_KIND.dense);
      });
    }
  }
  for (const list of nodes.byDoc.values()) for (let i = 1; i < list.length; i++) set.add(list[i - 1], list[i], ADJACENT_WEIGHT, EDGE_KIND.adjacent);
  for (const [a, b, w] of rareTermLinks(nodes, terms)) set.add(a, b, w, EDGE_KIND.terms);
  return toCsr(nodes, set);
}

/** Pairs of passages sharing rare terms, each passage's strongest TERM_EDGES_PER_NODE. */
function rareTermLinks(nodes: GraphNodes, terms: TermTable): [number, number, number][] {
  const n = nodes.ids.length;
  const pair = new Map<number, number>();
  for (let t = 0; t < terms.terms.length; t++) {
    const from = terms.offsets[t];
    const df = terms.offsets[t + 1] - from;
    if (df < 2 || df > RARE_MAX_DF || terms.terms[t].length < MIN_TERM_LENGTH) continue;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (let i = from; i < from + df; i++) {
      for (let j = i + 1; j < from + df; j++) {
        const a = terms.nodes[i];
        const b = terms.nodes[j];
        const key = a < b ? a * n + b : b * n + a;
        pair.set(key, (pair.get(key) ?? 0) + idf);
      }
    }
  }
  // Each passage keeps its strongest links; a link either side keeps stays.
  const best = new Map<number, [number, number][]>();
  for (const [key, s] of pair) {
    const a = Math.floor(key / n);
    const b = key - a * n;
    for (const x of [a, b]) {
      let l = best.get(x);
      if (!l) best.set(x, (l = []));
      l.push([key, s]);
    }
  }
  const kept = new Set<number>();
  for (const l of best.values()) {
    l.sort((p, q) => q[1] - p[1] || p[0] - q[0]);
    for (const [key] of l.slice(0, TERM_EDGES_PER_NODE)) kept.add(key);
  }
  return [...kept].sort((p, q) => p - q).map((key) => {
    const a = Math.floor(key / n);
    return [a, key - a * n, Math.min(1, pair.get(key)! / TERM_IDF_SCALE)];
  });
}

function toCsr(nodes: GraphNodes, set: EdgeSet): PassageGraph {
  const n = nodes.ids.length;
  const degree = new Uint32Array(n + 1);
  for (const key of set.w.keys()) {
    const a = Math.floor(key / n);
    degree[a]++;
    degree[key - a * n]++;
  }
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + degree[i];
  const fill = offsets.slice(0, n);
  const m = offsets[n];
  const targets = new Uint32Array(m);
  const weights = new Float32Array(m);
  const kinds = new Uint8Array(m);
  const strength = new Float32Array(n);
  // Keys in ascending order, so each node's edges come out sorted by target: deterministic.
  for (const key of [...set.w.keys()].sort((p, q) => p - q)) {
    const a = Math.floor(key / n);
    const b = key - a * n;
    const w = set.w.get(key)!;
    const k = set.k.get(key)!;
    for (const [x, y] of [[a, b], [b, a]]) {
      const at = fill[x]++;
      targets[at] = y;
      weights[at] = w;
      kinds[at] = k;
      strength[x] += w;
    }
  }
  return { nodes, offsets, targets, weights, kinds, edges: set.w.size, strength };
}

/**
 * Walks over the passage graph: personalized PageRank from weighted seeds (HippoRAG's traversal:
 * the walk restarts at the seeds, so mass gathers on passages well connected to them), the
 * strongest path from any seed to a passage (for `Hit.provenance`), and a bounded neighbourhood.
 */
import type { PassageGraph } from './passage-graph.ts';

export interface PprOptions {
  /** Probability of following an edge (1 − restart probability). */
  damping: number;
  iterations: number;
  /** Stop when the L1 change of an iteration falls below this. */
  tolerance: number;
}

/** The usual PageRank damping; converges to 1e-6 in well under 50 iterations at 0.5. */
export const PPR_DEFAULTS: Readonly<PprOptions> = Object.freeze({ damping: 0.5, iterations: 50, tolerance: 1e-6 });

/**
 * Personalized PageRank: p = (1 − d)·s + d·Pᵀp, P the weight-normalised transitions and s the
 * seeds' weights normalised to 1. A node without edges returns its mass to the seeds. Sums to 1.
 */
export function personalizedPageRank(g: PassageGraph, seeds: ReadonlyMap<number, number>, o: PprOptions = PPR_DEFAULTS): Float64Array {
  const n = g.nodes.ids.length;
  const s = new Float64Array(n);
  let total = 0;
  for (const [node, w] of seeds) if (w > 0) total += w;
  if (total === 0) return s;
  for (const [node, w] of seeds) if (w > 0) s[node] += w / total;
  let p = Float64Array.from(s);
  let next = new Float64Array(n);
  for (let it = 0; it < o.iterations; it++) {
    next.fill(0);
    let lost = 0;
    for (let a = 0; a < n; a++) {
      const mass = p[a];
      if (mass === 0) continue;
      const str = g.strength[a];
      if (!(str > 0)) {
        lost += mass;
        continue;
      }
      const f = (o.damping * mass) / str;
      for (let e = g.offsets[a]; e < g.offsets[a + 1]; e++) next[g.targets[e]] += f * g.weights[e];
      lost += (1 - o.damping) * mass;
    }
    let delta = 0;
    for (let a = 0; a < n; a++) {
      next[a] += lost * s[a];
      delta += Math.abs(next[a] - p[a]);
    }
    [p, next] = [next, p];
    if (delta < o.tolerance) break;
  }
  return p;
}

/**
 * For every node within `maxHops` of a seed: the predecessor on its strongest path from a seed,
 * strength = seed weight × Π transition probabilities (the walk's likeliest route there).
 * Returns predecessor (−1 for seeds and unreached nodes) and strength.
 */
export function strongestPaths(g: PassageGraph, seeds: ReadonlyMap<number, number>, maxHops: number): { prev: Int32Array; best: Float64Array } {
  const n = g.nodes.ids.length;
  const prev = new Int32Array(n).fill(-1);
  const best = new Float64Array(n);
  let frontier: number[] = [];
  for (const [node, w] of seeds) {
    if (w > best[node]) best[node] = w;
    frontier.push(node);
  }
  const seedSet = new Set(seeds.keys());
  for (let hop = 0; hop < maxHops && frontier.length > 0; hop++) {
    const changed = new Set<number>();
    for (const a of frontier) {
      const str = g.strength[a];
      if (!(str > 0)) continue;
      for (let e = g.offsets[a]; e < g.offsets[a + 1]; e++) {
        const b = g.targets[e];
        if (seedSet.has(b)) continue;
        const v = (best[a] * g.weights[e]) / str;
        if (v > best[b]) {
          best[b] = v;
          prev[b] = a;
          changed.add(b);
        }
      }
    }
    frontier = [...changed].sort((x, y) => x - y);
  }
  return { prev, best };
}

/** The node path seed → … → `node` read from `prev` (just `[node]` for a seed or an unreached node). */
export function pathTo(prev: Int32Array, node: number): number[] {
  const path = [node];
  for (let at = prev[node], guard = 0; at >= 0 && guard < prev.length; at = prev[at], guard++) path.push(at);
  return path.reverse();
}

export interface Neighbourhood {
  /** Node → score: 1 for a seed, else the product of edge weights on its strongest path (≤ 1). */
  score: Map<number, number>;
  /** Undirected edges traversed: [a, b, edge index in CSR of a]. */
  edges: [number, number, number][];
}

/**
 * Breadth-first from the seeds: at each hop every frontier node contributes its `k` strongest
 * edges. Nodes are scored by the strongest product of edge weights that reaches them.
 */
export function neighbourhood(g: PassageGraph, seeds: readonly number[], hops: number, k: number, maxNodes: number): Neighbourhood {
  const score = new Map<number, number>(seeds.map((s) => [s, 1]));
  const edges: [number, number, number][] = [];
  const seen = new Set<number>();
  let frontier = [...seeds];
  for (let hop = 0; hop < hops && frontier.length > 0; hop++) {
    const next = new Set<number>();
    for (const a of frontier) {
      const from = g.offsets[a];
      const order = Array.from({ length: g.offsets[a + 1] - from }, (_, i) => from + i).sort((x, y) => g.weights[y] - g.weights[x] || g.targets[x] - g.targets[y]);
      for (const e of order.slice(0, k)) {
        const b = g.targets[e];
        const key = Math.min(a, b) * g.nodes.ids.length + Math.max(a, b);
        if (!seen.has(key)) {
          seen.add(key);
          edges.push([a, b, e]);
        }
        const v = score.get(a)! * Math.min(1, g.weights[e]);
        if (!score.has(b)) {
          if (score.size >= maxNodes) continue;
          next.add(b);
        }
        if (v > (score.get(b) ?? 0)) score.set(b, v);
      }
    }
    frontier = [...next].sort((x, y) => x - y);
  }
  return { score, edges: edges.filter(([a, b]) => score.has(a) && score.has(b)) };
}

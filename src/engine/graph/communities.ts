/**
 * Communities of the passage graph by Louvain modularity optimisation (Blondel et al. 2008), run by
 * `graphology-communities-louvain` — a maintained implementation (the graphology project) that is
 * fast enough here (its own bench: 50k nodes and 1M edges in under a second) and keeps every
 * level's partition (its dendrogram), which is what gives `communities` its levels. The walk is
 * seeded, so one index version always gets the same communities.
 *
 * Levels follow GraphRAG's numbering: 0 is the coarsest partition (Louvain's last pass), higher
 * levels are finer (earlier passes). Each community is ranked by size; its centre is the member
 * with the most edge weight inside it, and its distinctive terms are those most over-represented
 * in it relative to the corpus (term frequency × log-lift, terms in ≥ 2 members).
 */
import type { TermTable } from './nodes.ts';
import type { PassageGraph } from './passage-graph.ts';
import { rng } from '../../util/prng.ts';

export interface Community {
  /** `c<level>.<rank>`: stable for one index version. */
  id: string;
  level: number;
  /** Members, most central first. */
  members: number[];
  /** Member with the most edge weight inside the community. */
  central: number;
  /** Distinctive index terms (stems), most distinctive first. */
  terms: string[];
  /** The community one level coarser that holds this one (absent at level 0). */
  parent?: string;
}

export interface CommunityLevels {
  /** levels[l] = communities at level l, largest first. */
  levels: Community[][];
  /** Node → community index within each level: of[l][node]. */
  of: Int32Array[];
  modularity: number;
}

/** Distinctive terms kept per community (candidates: the labels keep those found as words, ops.ts). */
export const TERMS_PER_COMMUNITY = 12;
/** Numbers (chapter and page numbers, years) say little about a topic: never a label. */
const NUMBER = /^\d+$/;
/** Levels offered at most (the coarsest ones): Louvain's first passes make many tiny communities. */
export const MAX_LEVELS = 4;

/**
 * Runs Louvain on `g` and describes every level; `stop(term)` filters out stopword stems. The
 * graph library is loaded on first use (its own chunk): a worker that never asks pays nothing.
 */
export async function detectCommunities(g: PassageGraph, terms: TermTable, stop: (term: string) => boolean): Promise<CommunityLevels> {
  const n = g.nodes.ids.length;
  if (n === 0) return { levels: [], of: [], modularity: 0 };
  const [{ default: Graph }, { default: louvain }] = await Promise.all([import('graphology'), import('graphology-communities-louvain')]);
  const graph = new Graph({ type: 'undirected', multi: false, allowSelfLoops: false });
  for (let a = 0; a < n; a++) graph.addNode(String(a));
  for (let a = 0; a < n; a++) {
    for (let e = g.offsets[a]; e < g.offsets[a + 1]; e++) {
      const b = g.targets[e];
      if (b > a) graph.addUndirectedEdge(String(a), String(b), { weight: g.weights[e] });
    }
  }
  const details = louvain.detailed(graph, { rng: rng(0x5eed), resolution: 1 });
  // dendrogram[0] is the singletons; each later entry is one pass, coarser each time.
  const passes: ArrayLike<number>[] = [];
  for (const p of details.dendrogram.slice(1)) if (!passes.length || !samePartition(passes[passes.length - 1], p)) passes.push(p);
  if (passes.length === 0) passes.push(Int32Array.from({ length: n }, (_, i) => i));
  const chosen = passes.slice(-MAX_LEVELS).reverse(); // coarsest first
  const levels: Community[][] = [];
  const of: Int32Array[] = [];
  chosen.forEach((partition, level) => {
    const { communities, index } = describeLevel(g, terms, partition, level, stop);
    levels.push(communities);
    of.push(index);
  });
  // Each finer community lies inside one coarser community (Louvain only merges).
  for (let l = 1; l < levels.length; l++) {
    for (const c of levels[l]) c.parent = levels[l - 1][of[l - 1][c.central]].id;
  }
  return { levels, of, modularity: details.modularity };
}

function samePartition(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  // Louvain renumbers per pass; the same partition has the same number of classes in it.
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < a.length; i++) {
    ma = Math.max(ma, a[i]);
    mb = Math.max(mb, b[i]);
  }
  return ma === mb;
}

function describeLevel(g: PassageGraph, terms: TermTable, partition: ArrayLike<number>, level: number, stop: (term: string) => boolean) {
  const n = g.nodes.ids.length;
  const groups = new Map<number, number[]>();
  for (let a = 0; a < n; a++) {
    const c = partition[a];
    const list = groups.get(c);
    if (list) list.push(a);
    else groups.set(c, [a]);
  }
  // Weight of each node's edges inside its own community: the centrality members are ranked by.
  const inner = new Float64Array(n);
  for (let a = 0; a < n; a++) {
    for (let e = g.offsets[a]; e < g.offsets[a + 1]; e++) if (partition[g.targets[e]] === partition[a]) inner[a] += g.weights[e];
  }
  const ordered = [...groups.values()]
    .map((members) => members.sort((x, y) => inner[y] - inner[x] || x - y))
    .sort((x, y) => y.length - x.length || x[0] - y[0]);
  const index = new Int32Array(n);
  ordered.forEach((members, rank) => {
    for (const a of members) index[a] = rank;
  });
  const distinctive = distinctiveTerms(terms, index, ordered.map((m) => m.length), n, stop);
  const communities = ordered.map((members, rank): Community => ({
    id: `c${level}.${rank}`,
    level,
    members,
    central: members[0],
    terms: distinctive[rank],
  }));
  return { communities, index };
}

/**
 * Per community, the terms with the highest count × log(lift), lift = (count / size) / (df / n):
 * frequent inside the community and rarer outside. Terms in fewer than two members are skipped.
 */
function distinctiveTerms(terms: TermTable, of: Int32Array, sizes: number[], n: number, stop: (term: string) => boolean): string[][] {
  const best: { term: number; score: number }[][] = sizes.map(() => []);
  const count = new Int32Array(sizes.length);
  const touched: number[] = [];
  for (let t = 0; t < terms.terms.length; t++) {
    const from = terms.offsets[t];
    const df = terms.offsets[t + 1] - from;
    if (df < 2 || stop(terms.terms[t]) || NUMBER.test(terms.terms[t])) continue;
    for (let i = from; i < from + df; i++) {
      const c = of[terms.nodes[i]];
      if (count[c]++ === 0) touched.push(c);
    }
    for (const c of touched) {
      const k = count[c];
      count[c] = 0;
      if (k < 2) continue;
      const lift = (k / sizes[c]) / (df / n);
      if (lift <= 1) continue;
      const score = k * Math.log(lift);
      const list = best[c];
      if (list.length < TERMS_PER_COMMUNITY) list.push({ term: t, score });
      else {
        let worst = 0;
        for (let j = 1; j < list.length; j++) if (list[j].score < list[worst].score) worst = j;
        if (score > list[worst].score) list[worst] = { term: t, score };
      }
    }
    touched.length = 0;
  }
  return best.map((list) => list.sort((a, b) => b.score - a.score || a.term - b.term).map((x) => terms.terms[x.term]));
}

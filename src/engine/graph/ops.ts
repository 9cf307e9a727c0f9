/**
 * The `graph` ops (§7.9) over one built passage graph:
 *   neighbors   — seeds (passages, or documents = all their passages) → nodes and weighted edges, `hops` deep;
 *   local       — query → seed hits (the engine's own retrieve) → personalized PageRank → hits, each
 *                 with the walk's strongest path from a seed in `provenance`;
 *   communities — Louvain communities of one level, each with an extractive summary;
 *   global      — communities ranked by how much of the query's retrieved mass falls in them.
 * Summaries are extractive — the community's most central passage and its distinctive terms — and
 * say so: no language model writes anything here.
 */
import { invalidParams } from '../../protocol/errors.ts';
import type { GraphCommunity, GraphEdge, GraphNode, GraphResult, Hit } from '../../protocol/types.ts';
import type { Analyzer } from '../analysis/analyzer.ts';
import { bodyRange, loadTexts, toHit } from '../query/hits.ts';
import { suspectInjection } from '../query/injection.ts';
import type { DocumentReader } from '../state/text-cache.ts';
import type { Candidate } from '../index/view.ts';
import type { Community, CommunityLevels } from './communities.ts';
import type { BuiltGraph } from './graph-index.ts';
import { kindNames } from './passage-graph.ts';
import { GRAPH_LIMITS, type GraphPlan } from './plan.ts';
import { neighbourhood, pathTo, personalizedPageRank, strongestPaths } from './walk.ts';

export interface GraphOpsDeps {
  built: BuiltGraph;
  communities(): Promise<CommunityLevels>;
  texts: DocumentReader;
  analyzer: Analyzer;
  /** The query's hits at this version (the engine's default retrieve), best first. */
  seedHits(query: string, k: number, signal?: AbortSignal): Promise<{ id: string; score: number }[]>;
  /** Documents left out of the graph (quarantined), so a seed naming one says why it is unknown. */
  skipped: ReadonlySet<string>;
  signal?: AbortSignal;
}

/** Hits of `retrieve` that seed `local` and `global`. */
export const SEED_HITS = 20;
/** Hops of the strongest-path search behind `local` provenance. */
const PATH_HOPS = 4;
/** Members listed per community (most central first). */
export const MEMBERS_LISTED = 20;
/** Members whose text gives the distinctive stems their surface form. */
const SURFACE_MEMBERS = 8;
/** Distinctive terms shown per community. */
const LABEL_TERMS = 8;
/** Characters of the central passage quoted in a summary. */
const QUOTE_CHARS = 240;

export async function runGraphOp(plan: GraphPlan, deps: GraphOpsDeps): Promise<GraphResult> {
  switch (plan.op) {
    case 'neighbors':
      return neighbors(plan, deps);
    case 'local':
      return local(plan, deps);
    case 'communities':
      return communities(plan, deps);
    case 'global':
      return global(plan, deps);
  }
}

const candidate = (b: BuiltGraph, node: number): Candidate => {
  const nodes = b.graph.nodes;
  return { seg: nodes.segs[node], local: nodes.locals[node], doc: nodes.docs[node], score: 0, scores: {} };
};

/** Seeds by id: a passage is itself; a document is all its passages. Unknown ids are -32602 naming them. */
function resolveSeeds(plan: GraphPlan, deps: GraphOpsDeps): { nodes: number[]; documents: Map<string, number[]> } {
  const g = deps.built.graph.nodes;
  const nodes: number[] = [];
  const documents = new Map<string, number[]>();
  plan.seedIds.forEach((id, i) => {
    const node = g.byId.get(id);
    if (node !== undefined) return void nodes.push(node);
    const parts = g.byDoc.get(id);
    if (parts) {
      documents.set(id, parts);
      nodes.push(...parts);
      return;
    }
    const why = deps.skipped.has(id) || deps.skipped.has(docOfHitId(id)) ? 'is quarantined' : 'names no passage or document in the index';
    throw invalidParams(`seedIds[${i}]`, `'${id.slice(0, 64)}' ${why}`);
  });
  return { nodes: [...new Set(nodes)], documents };
}

const docOfHitId = (id: string): string => {
  const at = id.lastIndexOf('#');
  return at >= 0 ? id.slice(0, at) : id;
};

async function neighbors(plan: GraphPlan, deps: GraphOpsDeps): Promise<GraphResult> {
  const b = deps.built;
  const g = b.graph;
  const ids = g.nodes.ids;
  const seeds = resolveSeeds(plan, deps);
  const hood = neighbourhood(g, seeds.nodes, plan.hops, plan.k, GRAPH_LIMITS.maxNodes);
  const order = [...hood.score.keys()].sort((x, y) => hood.score.get(y)! - hood.score.get(x)! || x - y);
  const seedSet = new Set(seeds.nodes);
  const texts = plan.text ? await loadTexts(deps.texts, order.map((n) => candidate(b, n)), 'chunk') : undefined;
  const nodes: GraphNode[] = [];
  for (const [docId] of seeds.documents) nodes.push({ id: docId, score: 1, 'x-inpage-kind': 'document', 'x-inpage-seed': true });
  order.forEach((n, i) => {
    const doc = g.nodes.docs[n];
    const node: GraphNode = { id: ids[n], score: hood.score.get(n)!, 'x-inpage-kind': 'passage', 'x-inpage-doc': doc.id };
    if (typeof doc.meta.title === 'string') node['x-inpage-title'] = doc.meta.title;
    // Where the passage lies in its document (a viewer opens it there).
    [node['x-inpage-start'], node['x-inpage-end']] = bodyRange(candidate(b, n), 'chunk');
    if (seedSet.has(n)) node['x-inpage-seed'] = true;
    if (texts) node['x-inpage-text'] = texts[i];
    nodes.push(node);
  });
  const edges: GraphEdge[] = [];
  for (const [docId, parts] of seeds.documents) for (const p of parts) edges.push({ src: docId, dst: ids[p], weight: 1, 'x-inpage-kinds': ['part-of'] });
  for (const [a, c, e] of hood.edges) edges.push({ src: ids[a], dst: ids[c], weight: g.weights[e], 'x-inpage-kinds': kindNames(g.kinds[e]) });
  return { nodes, edges };
}

async function local(plan: GraphPlan, deps: GraphOpsDeps): Promise<GraphResult> {
  const b = deps.built;
  const g = b.graph;
  const ids = g.nodes.ids;
  const notes: string[] = [];
  const seedWeights = new Map<number, number>();
  const seedScore = new Map<number, number>();
  if (plan.query !== undefined) {
    // The default retrieve (hybrid or sparse) scores ≥ 0, and 0 means nothing matched.
    const hits = (await deps.seedHits(plan.query, Math.max(SEED_HITS, plan.k), deps.signal)).filter((h) => h.score > 0);
    const top = Math.max(...hits.map((h) => h.score), 0);
    const low = Math.min(...hits.map((h) => h.score), 0);
    for (const h of hits) {
      const node = g.nodes.byId.get(h.id);
      if (node === undefined) continue;
      // Weights in (0, 1] by the retrieve score (ranks alone would flatten a clear winner).
      const w = top > low ? 0.05 + (0.95 * (h.score - low)) / (top - low) : 1;
      seedWeights.set(node, Math.max(seedWeights.get(node) ?? 0, w));
      seedScore.set(node, h.score);
    }
  }
  for (const n of resolveSeeds(plan, deps).nodes) seedWeights.set(n, 1);
  if (seedWeights.size === 0) {
    notes.push('no seed: the query matched nothing, so the walk has nowhere to start');
    return { hits: [], usage: { candidates: 0, notes } };
  }
  const mass = personalizedPageRank(g, seedWeights);
  const ranked = Array.from(mass.keys()).filter((n) => mass[n] > 0).sort((x, y) => mass[y] - mass[x] || x - y);
  const page = ranked.slice(0, plan.k);
  const { prev } = strongestPaths(g, seedWeights, PATH_HOPS);
  const cands = page.map((n) => ({ ...candidate(b, n), score: mass[n] }));
  const texts = await loadTexts(deps.texts, cands, 'chunk');
  const hits: Hit[] = cands.map((c, i) => {
    const n = page[i];
    const hit = toHit(c, 'chunk', 'chunk');
    hit.scores = { graph: mass[n], ...(seedScore.has(n) ? { seed: seedScore.get(n)! } : {}) };
    const path = pathTo(prev, n).map((x) => ids[x]);
    hit.provenance = { path, nodes: path, edges: path.slice(1).map((dst, j) => ({ src: path[j], dst })) };
    hit.text = texts[i];
    hit.trust = suspectInjection(texts[i]) ? { level: 'untrusted', injectionSuspected: true } : { level: 'untrusted' };
    return hit;
  });
  return { hits, usage: { candidates: ranked.length, notes: [`personalized PageRank from ${seedWeights.size} seed passages`, ...notes] } };
}

async function levelOf(plan: GraphPlan, deps: GraphOpsDeps): Promise<{ levels: CommunityLevels; list: Community[] }> {
  const levels = await deps.communities();
  if (levels.levels.length === 0) return { levels, list: [] };
  const list = levels.levels[plan.level];
  if (!list) throw invalidParams('level', `this index has levels 0..${levels.levels.length - 1}`);
  return { levels, list };
}

async function communities(plan: GraphPlan, deps: GraphOpsDeps): Promise<GraphResult> {
  const { levels, list } = plan.community !== undefined ? await oneCommunity(plan.community, deps) : await levelOf(plan, deps);
  const shown = list.slice(0, plan.k);
  const n = deps.built.graph.nodes.ids.length;
  const out = await describe(shown, deps, plan.text);
  out.forEach((c, i) => (c.score = shown[i].members.length / n));
  return { communities: out, _meta: { levels: levels.levels.length, communities: list.length, modularity: levels.modularity } };
}

/** The community `id` names (its level is in the id), for a viewer that opens one; -32602 when this version has none by that id. */
async function oneCommunity(id: string, deps: GraphOpsDeps): Promise<{ levels: CommunityLevels; list: Community[] }> {
  const levels = await deps.communities();
  const m = /^c(\d+)\.(\d+)$/.exec(id);
  const c = m ? levels.levels[Number(m[1])]?.[Number(m[2])] : undefined;
  if (!c) throw invalidParams('_meta.x-inpage-community', `'${id.slice(0, 64)}' names no community of this index version`);
  return { levels, list: [c] };
}

async function global(plan: GraphPlan, deps: GraphOpsDeps): Promise<GraphResult> {
  const { levels, list } = await levelOf(plan, deps);
  const g = deps.built.graph.nodes;
  const hits = await deps.seedHits(plan.query ?? '', SEED_HITS * 5, deps.signal);
  // Each hit votes for its community with a rank-discounted weight (RRF's 1 / (60 + rank)).
  const votes = new Map<number, number>();
  let total = 0;
  hits.forEach((h, rank) => {
    const node = g.byId.get(h.id);
    if (node === undefined) return;
    const c = levels.of[plan.level][node];
    const w = 1 / (60 + rank + 1);
    votes.set(c, (votes.get(c) ?? 0) + w);
    total += w;
  });
  const ranked = [...votes.entries()].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, plan.k);
  const shown = ranked.map(([c]) => list[c]);
  const out = await describe(shown, deps);
  out.forEach((c, i) => (c.score = ranked[i][1] / total));
  const summary =
    out.length === 0
      ? 'Extractive (no language model): no community holds a passage the query retrieved.'
      : `Extractive (no language model): the query's hits fall mostly in ${out.length} communit${out.length === 1 ? 'y' : 'ies'} — ` +
        out.slice(0, 5).map((c, i) => `${i + 1}. ${(c['x-inpage-terms'] as string[]).slice(0, 4).join(', ')} (${Math.round((c.score ?? 0) * 100)}%)`).join('; ') + '.';
  return { summary, communities: out, usage: { candidates: hits.length }, _meta: { levels: levels.levels.length } };
}

/**
 * The wire form of communities, with their extractive summaries (one store read for all centres);
 * with `text`, every listed member comes with its passage (`x-inpage-passages`).
 */
async function describe(list: Community[], deps: GraphOpsDeps, text = false): Promise<GraphCommunity[]> {
  const b = deps.built;
  const ids = b.graph.nodes.ids;
  // The centre and the next members give the terms their surface form (the index holds stems).
  const quoted = list.map((c) => c.members.slice(0, text ? MEMBERS_LISTED : SURFACE_MEMBERS));
  const flat = quoted.flat();
  const texts = await loadTexts(deps.texts, flat.map((n) => candidate(b, n)), 'chunk');
  let at = 0;
  return list.map((c, i) => {
    const own = texts.slice(at, (at += quoted[i].length));
    const terms = surfaceForms(deps.analyzer, c.terms, own.slice(0, SURFACE_MEMBERS));
    const central = own[0].replace(/\s+/g, ' ').trim();
    const quote = central.length > QUOTE_CHARS ? `${central.slice(0, QUOTE_CHARS).replace(/\s\S*$/, '')}…` : central;
    const summary = `Extractive summary (no language model) of ${c.members.length} passage${c.members.length === 1 ? '' : 's'}: most central passage “${quote}”${terms.length ? `; distinctive terms: ${terms.join(', ')}` : ''}.`;
    const out: GraphCommunity = {
      id: c.id,
      level: c.level,
      summary,
      'x-inpage-size': c.members.length,
      'x-inpage-terms': terms,
      'x-inpage-central': ids[c.central],
      'x-inpage-members': c.members.slice(0, MEMBERS_LISTED).map((n) => ids[n]),
    };
    if (c.parent) out['x-inpage-parent'] = c.parent;
    if (text) out['x-inpage-passages'] = quoted[i].map((n, j) => passageOf(b, n, own[j]));
    return out;
  });
}

/** A member passage as a viewer lists it: its hit id, document, title, range and text. */
function passageOf(b: BuiltGraph, node: number, text: string): Record<string, unknown> {
  const doc = b.graph.nodes.docs[node];
  const [start, end] = bodyRange(candidate(b, node), 'chunk');
  return { id: b.graph.nodes.ids[node], doc: doc.id, ...(typeof doc.meta.title === 'string' ? { title: doc.meta.title } : {}), start, end, text };
}

/**
 * Each stem as the word it most often comes from in `texts`, most distinctive first; stems no text
 * spells out (they came from a title, say) only fill up a short list, as themselves.
 */
function surfaceForms(analyzer: Analyzer, stems: readonly string[], texts: readonly string[]): string[] {
  const wanted = new Set(stems);
  const seen = new Map<string, Map<string, number>>();
  for (const text of texts) {
    for (const span of analyzer.termSpans(text)) {
      if (!wanted.has(span.term)) continue;
      const word = text.slice(span.start, span.end).toLowerCase();
      let m = seen.get(span.term);
      if (!m) seen.set(span.term, (m = new Map()));
      m.set(word, (m.get(word) ?? 0) + 1);
    }
  }
  const words = stems.flatMap((s) => {
    const m = seen.get(s);
    return m ? [[...m.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0][0]] : [];
  });
  const fill = stems.filter((s) => !seen.has(s));
  return [...words, ...fill.slice(0, Math.max(0, 4 - words.length))].slice(0, LABEL_TERMS);
}

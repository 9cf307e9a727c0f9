/**
 * §16.3 fusion of per-engine hit lists into one: RRF (always available), convex combination
 * (when every list has a `scoreFloor`), raw scores (one scorer), or global BM25 (shards that sent
 * their statistics: global-bm25.ts), through `src/protocol/fusion.ts`, which already applies
 * engine weights and the deterministic tie-break. Identity is the stringified `Hit.id`; a
 * document several engines returned becomes one hit that keeps the richest body, merges `meta`
 * and names its origins in `meta.engine` / `meta.engines`.
 */
import { fuseConvex, fuseRrf, fuseScore, type RankedList } from '../../protocol/fusion.ts';
import type { Bm25Stats } from '../../protocol/bm25-stats.ts';
import type { Hit } from '../../protocol/types.ts';
import { compatibleStats, globalBm25Scores } from './global-bm25.ts';

/**
 * `score`: raw scores, for engines that share one scorer (shards of a collection); `auto` picks it
 * only then. `global-bm25`: every hit rescored by BM25 with the statistics of all lists together,
 * only when every list sent compatible `x-inpage-bm25` statistics (`auto` picks it then).
 */
export type FederatedFusion = 'auto' | 'rrf' | 'convex' | 'score' | 'global-bm25';
export type FusionMethod = Exclude<FederatedFusion, 'auto'>;

/** One engine's answer, as fusion sees it. */
export interface EngineHits {
  engine: string;
  weight: number;
  hits: readonly Hit[];
  /** The engine's advertised `retrieve.scoreFloor` (§6.1), when it advertises one. */
  scoreFloor?: number;
  /**
   * Who scored the list: the engine's `server` name and version and its `retrieve` capability.
   * Lists that all share one (shards of a collection on engines of one kind) are fused by score.
   */
  scorer?: string;
  /** The engine's BM25 statistics of these hits (`_meta["x-inpage-bm25"]`), when it sent them. */
  bm25?: Bm25Stats;
}

export interface FuseOptions {
  /** `auto` (default): see `chooseFusion`. */
  method?: FederatedFusion;
  rrfK?: number;
  /** Hits to keep. */
  k: number;
}

/**
 * The method fusion will use for these lists. `auto` (and `global-bm25`): global BM25 when every
 * list sent compatible statistics (one BM25, one analysed query); else raw scores when every list has the same
 * scorer (several lists, one engine software and configuration: its scores are comparable, and
 * normalising each shard's list would give every shard's best hit the same score — measured in
 * docs/federation.md); else convex when every list has a finite floor; else RRF.
 */
export function chooseFusion(lists: readonly EngineHits[], method: FederatedFusion = 'auto'): FusionMethod {
  if ((method === 'auto' || method === 'global-bm25') && compatibleStats(lists.map((l) => l.bm25))) return 'global-bm25';
  if (method === 'global-bm25') method = 'auto'; // an engine without statistics: fused as `auto` would
  if (method === 'score') return 'score';
  const scorer = lists[0]?.scorer;
  if (method === 'auto' && lists.length > 1 && scorer !== undefined && lists.every((l) => l.scorer === scorer)) return 'score';
  const floors = lists.length > 0 && lists.every((l) => typeof l.scoreFloor === 'number' && Number.isFinite(l.scoreFloor));
  if (method === 'rrf') return 'rrf';
  return floors ? 'convex' : 'rrf'; // an explicit `convex` still falls back to RRF when a floor is missing
}

/** How much body a hit carries: content blocks first, then text length. */
const richness = (h: Hit): [number, number] => [h.content?.length ?? 0, h.text?.length ?? 0];
const richer = (a: Hit, b: Hit): boolean => {
  const [ca, ta] = richness(a), [cb, tb] = richness(b);
  return ca !== cb ? ca > cb : ta > tb;
};

export function fuseEngineHits(lists: readonly EngineHits[], options: FuseOptions): { hits: Hit[]; method: FusionMethod } {
  const method = chooseFusion(lists, options.method);
  // List names are positions, not engine ids: fusion gives the names `dense`/`sparse` a meaning.
  const global = method === 'global-bm25' ? globalBm25Scores(lists.map((l) => l.bm25!)) : undefined;
  const ranked: RankedList[] = lists.map((l, i) => ({ name: `e${i}`, weight: l.weight, scoreFloor: l.scoreFloor, items: l.hits.map((h, j) => ({ id: String(h.id), score: global ? global[i][j] : h.score })) }));
  // Global BM25 scores are comparable as raw scores are: the best copy of a document counts.
  const fused = method === 'convex' ? fuseConvex(ranked) : method === 'score' || global ? fuseScore(ranked) : fuseRrf(ranked, options.rrfK);
  const firstById = lists.map((l) => {
    const m = new Map<string, { hit: Hit; rank: number }>();
    l.hits.forEach((hit, i) => {
      const key = String(hit.id);
      if (!m.has(key)) m.set(key, { hit, rank: i + 1 });
    });
    return m;
  });
  const hits = fused.slice(0, Math.max(0, options.k)).map((f): Hit => {
    // Origins best first: larger contribution, then the engine listed first (deterministic).
    const parts = Object.entries(f.contributions)
      .map(([name, c]) => ({ i: Number(name.slice(1)), c }))
      .sort((a, b) => b.c - a.c || a.i - b.i)
      .map(({ i }) => ({ engine: lists[i].engine, ...firstById[i].get(f.id)! }));
    const primary = parts[0];
    const body = parts.reduce((best, p) => (richer(p.hit, best.hit) ? p : best), primary).hit;
    // Lower-priority engines first, so the primary engine's values win on conflicting keys.
    const meta: Record<string, unknown> = Object.assign({}, ...parts.map((p) => p.hit.meta ?? {}).reverse());
    return {
      ...body,
      id: primary.hit.id,
      score: f.score,
      meta: { ...meta, engine: primary.engine, engines: parts.map((p) => p.engine), engineRank: primary.rank, engineScore: primary.hit.score },
    };
  });
  return { hits, method };
}

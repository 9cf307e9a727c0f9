/**
 * §16.3 fusion of ranked lists: RRF (the default), weighted min-max, and convex combination
 * anchored at each list's declared `scoreFloor`. Pure math over ids and scores, shared by the
 * engine (dense + sparse inside `retrieve`) and the federating client (one list per engine).
 *
 * Guarantees of every function here:
 * - Output is sorted best-first with the §16.3 total order: higher fused score, then higher
 *   summed weight of the lists that contain the id, then the smaller id by UTF-16 code units
 *   (`<`, not `localeCompare`, so the order is the same in every locale).
 * - Every fused score and contribution is finite; a non-finite input score counts as the worst
 *   score of its list (normalised 0). No NaN or ±Infinity is ever produced.
 * - Within one list only the first (best-ranked) occurrence of an id counts.
 * - A list's weight defaults to 1; a weight must be finite and ≥ 0, and list names must be
 *   unique (they key `contributions`), otherwise a RangeError is thrown.
 */

/** One entry of a ranked list. */
export interface RankedItem {
  id: string;
  score: number;
}

/** A ranked list, best first. `scoreFloor` is the source's theoretical minimum score (§6.1). */
export interface RankedList {
  name: string;
  weight?: number;
  items: RankedItem[];
  scoreFloor?: number;
}

/** A fused entry: the fused score and each list's contribution to it, keyed by list name. */
export interface FusedItem {
  id: string;
  score: number;
  contributions: Record<string, number>;
}

interface Acc extends FusedItem {
  weight: number;
}

/** The RRF constant §16.3 recommends (Cormack et al. 2009). */
export const DEFAULT_RRF_K = 60;
/** The convex mixing weight §16.3 uses when none is given. */
export const DEFAULT_ALPHA = 0.5;

/** §16.3 total order on fused items. Exported so callers merging further keep the same order. */
export function compareFused(a: FusedItem & { weight?: number }, b: FusedItem & { weight?: number }): number {
  if (a.score !== b.score) return a.score > b.score ? -1 : 1;
  const wa = a.weight ?? 0, wb = b.weight ?? 0;
  if (wa !== wb) return wa > wb ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Runs one fusion: `contribution(list, weight)` returns, per item position, what that list adds
 * (already multiplied by its weight). Handles dedup, accumulation and the tie-break.
 */
function fuse(lists: readonly RankedList[], weightOf: (l: RankedList) => number, contribution: (l: RankedList, w: number) => number[]): FusedItem[] {
  const names = new Set<string>();
  const acc = new Map<string, Acc>();
  for (const list of lists) {
    if (names.has(list.name)) throw new RangeError(`fusion: duplicate list name '${list.name}'`);
    names.add(list.name);
    const w = weightOf(list);
    if (!Number.isFinite(w) || w < 0) throw new RangeError(`fusion: weight of '${list.name}' must be finite and ≥ 0`);
    const parts = contribution(list, w);
    const seen = new Set<string>();
    list.items.forEach((item, i) => {
      if (seen.has(item.id)) return;
      seen.add(item.id);
      const c = Number.isFinite(parts[i]) ? parts[i] : 0;
      let entry = acc.get(item.id);
      if (!entry) acc.set(item.id, (entry = { id: item.id, score: 0, weight: 0, contributions: {} }));
      entry.score = finiteSum(entry.score, c);
      entry.weight = finiteSum(entry.weight, w);
      entry.contributions[list.name] = c;
    });
  }
  return [...acc.values()].sort(compareFused).map(({ id, score, contributions }) => ({ id, score, contributions }));
}

/** a + b, saturating at ±Number.MAX_VALUE so huge weights cannot overflow to Infinity. */
function finiteSum(a: number, b: number): number {
  const s = a + b;
  return Number.isFinite(s) ? s : s > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE;
}

const weightOrOne = (l: RankedList): number => l.weight ?? 1;

/**
 * Raw-score fusion for lists scored by one scorer, e.g. shards of one collection on engines of
 * the same kind: an item's fused score is its best weighted raw score (a copy on several lists
 * counts once). §16.3 requires normalisation when the scorers differ; shards share one, and
 * per-engine normalisation would give each shard's best hit the same score, however weak.
 */
export function fuseScore(lists: readonly RankedList[]): FusedItem[] {
  const acc = new Map<string, Acc>();
  const names = new Set<string>();
  for (const list of lists) {
    if (names.has(list.name)) throw new RangeError(`fusion: duplicate list name '${list.name}'`);
    names.add(list.name);
    const w = weightOrOne(list);
    if (!Number.isFinite(w) || w < 0) throw new RangeError(`fusion: weight of '${list.name}' must be finite and ≥ 0`);
    for (const item of list.items) {
      const c = Number.isFinite(item.score) ? w * item.score : -Number.MAX_VALUE;
      let entry = acc.get(item.id);
      if (!entry) acc.set(item.id, (entry = { id: item.id, score: c, weight: 0, contributions: {} }));
      else if (list.name in entry.contributions) continue;
      else entry.score = Math.max(entry.score, c);
      entry.weight = finiteSum(entry.weight, w);
      entry.contributions[list.name] = c;
    }
  }
  return [...acc.values()].sort(compareFused).map(({ id, score, contributions }) => ({ id, score, contributions }));
}

/**
 * Reciprocal Rank Fusion: Σ weight / (rrfK + rank), rank 1-based within each list. Needs no
 * comparable scores, so it is always available (§16.3). `rrfK` must be finite and ≥ 0.
 */
export function fuseRrf(lists: readonly RankedList[], rrfK = DEFAULT_RRF_K): FusedItem[] {
  if (!Number.isFinite(rrfK) || rrfK < 0) throw new RangeError('fusion: rrfK must be finite and ≥ 0');
  return fuse(lists, weightOrOne, (l, w) => l.items.map((_, i) => w / (rrfK + i + 1)));
}

/** Finite scores of a list, with the bounds of that set (undefined when none is finite). */
function finiteBounds(items: readonly RankedItem[]): { min: number; max: number } | undefined {
  let min = Infinity, max = -Infinity;
  for (const { score } of items) {
    if (!Number.isFinite(score)) continue;
    if (score < min) min = score;
    if (score > max) max = score;
  }
  return min <= max ? { min, max } : undefined;
}

const clamp01 = (x: number): number => (x < 0 ? 0 : x > 1 ? 1 : x);

/**
 * Weighted score fusion: each list min-max normalised to [0,1] over its own items, then
 * Σ weight · norm. A list whose finite scores are all equal maps each of them to 1.
 */
export function fuseWeighted(lists: readonly RankedList[]): FusedItem[] {
  return fuse(lists, weightOrOne, (l, w) => {
    const b = finiteBounds(l.items);
    return l.items.map(({ score }) => {
      if (!b || !Number.isFinite(score)) return 0;
      return w * (b.max === b.min ? 1 : clamp01((score - b.min) / (b.max - b.min)));
    });
  });
}

/**
 * Convex combination (TM2C2, §16.3): norm = (s − scoreFloor) / (max − scoreFloor), clamped to
 * [0,1]; a list whose max ≤ floor contributes 0. The list named `dense` is weighted `alpha`,
 * the list named `sparse` `1 − alpha`; any other list (e.g. one per federated engine) uses its
 * own `weight` (default 1). Every list MUST carry a finite `scoreFloor` — an Error is thrown
 * otherwise, because convex fusion is only offered when floors are known (§6.1).
 */
export function fuseConvex(lists: readonly RankedList[], alpha = DEFAULT_ALPHA): FusedItem[] {
  if (!Number.isFinite(alpha) || alpha < 0 || alpha > 1) throw new RangeError('fusion: alpha must be in [0,1]');
  for (const l of lists) {
    if (typeof l.scoreFloor !== 'number' || !Number.isFinite(l.scoreFloor)) {
      throw new Error(`fusion: convex needs a finite scoreFloor for list '${l.name}'`);
    }
  }
  const weightOf = (l: RankedList): number => (l.name === 'dense' ? alpha : l.name === 'sparse' ? 1 - alpha : weightOrOne(l));
  return fuse(lists, weightOf, (l, w) => {
    const floor = l.scoreFloor as number;
    const max = finiteBounds(l.items)?.max;
    return l.items.map(({ score }) => {
      if (max === undefined || max <= floor || !Number.isFinite(score)) return 0;
      return w * clamp01((score - floor) / (max - floor));
    });
  });
}

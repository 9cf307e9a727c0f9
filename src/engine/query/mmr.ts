/**
 * Maximal Marginal Relevance (Carbonell & Goldstein 1998): greedily picks the candidate
 * maximising λ·rel − (1−λ)·max sim(picked). Relevance is the candidate score min-max normalised
 * over the pool, so λ trades like-for-like quantities. Ties keep the incoming (deterministic) order.
 */

/** Reorders `pool` (best first); `sim(i, j)` is a similarity in [0,1]-ish between pool items. */
export function mmrOrder(scores: readonly number[], lambda: number, sim: (i: number, j: number) => number): number[] {
  const n = scores.length;
  if (n <= 1) return scores.map((_, i) => i);
  let min = Infinity;
  let max = -Infinity;
  for (const s of scores) {
    if (s < min) min = s;
    if (s > max) max = s;
  }
  const rel = scores.map((s) => (max > min ? (s - min) / (max - min) : 1));
  const maxSim = new Float64Array(n);
  const picked = new Uint8Array(n);
  const order: number[] = [];
  for (let round = 0; round < n; round++) {
    let best = -1;
    let bestVal = -Infinity;
    for (let i = 0; i < n; i++) {
      if (picked[i]) continue;
      const v = lambda * rel[i] - (1 - lambda) * (round === 0 ? 0 : maxSim[i]);
      // The first unpicked candidate is always taken as a start, so a NaN can never leave best at -1.
      if (best < 0 || v > bestVal) [best, bestVal] = [i, v];
    }
    picked[best] = 1;
    order.push(best);
    for (let i = 0; i < n; i++) {
      if (picked[i]) continue;
      const s = sim(i, best);
      if (s > maxSim[i]) maxSim[i] = s;
    }
  }
  return order;
}

/** Jaccard similarity of two term sets. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let inter = 0;
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  for (const t of small) if (big.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

/**
 * Two retrieve stages that reorder or rewrite candidates' scores (retrieve.ts): the recency decay
 * toward the stage's score floor, and §4.6's monotonic scores after a reordering that does not
 * follow them. Both keep every score finite and ordered.
 */
import { toEpochMs } from '../../protocol/dates.ts';
import { compareCandidates, type Candidate } from '../index/view.ts';

/** Recency multiplier relative to the newest dated candidate, mapped around the stage floor. */
export function applyRecency(cands: Candidate[], field: string, halfLifeDays: number, floor: number | undefined, notes: string[]): void {
  const dates = cands.map((c) => toEpochMs(c.doc.meta[field]));
  const ref = Math.max(...dates.map((d) => d ?? -Infinity));
  if (!Number.isFinite(ref)) {
    notes.push(`recency: no candidate has a date in '${field}'; not applied`);
    return;
  }
  let undated = 0;
  const hl = halfLifeDays * 86_400_000;
  cands.forEach((c, i) => {
    const t = dates[i];
    if (t === undefined) return void undated++;
    const m = Math.pow(2, -(ref - t) / hl);
    const decayed = floor !== undefined ? floor + (c.score - floor) * m : c.score >= 0 ? c.score * m : c.score / m;
    // A negative score divided by a decay that underflowed to 0 must stay finite and ordered (§4.6).
    c.score = Math.max(-Number.MAX_VALUE, Number.isNaN(decayed) ? -Number.MAX_VALUE : decayed);
  });
  if (undated > 0) notes.push(`recency: ${undated} candidates without a date in '${field}' were not decayed`);
  cands.sort(compareCandidates);
}

/**
 * §4.6: scores must be monotonic with rank within a response. Only reorderings that do not follow
 * the score (MMR; reranked hits followed by unreranked ones) break it: there each hit's score
 * becomes the lower of its own and the one above it — still a value of the same scoring function,
 * so `scoreScale`/`scoreFloor` stay true — and the unchanged relevance is kept in `scores.relevance`.
 */
export function makeMonotonic(list: Candidate[]): void {
  for (let i = 1; i < list.length; i++) {
    const above = list[i - 1].score;
    if (list[i].score > above) {
      list[i].scores.relevance = list[i].score;
      list[i].score = above;
    }
  }
}

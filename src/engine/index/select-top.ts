/**
 * Top-k selection over a view's live chunks, shared by BM25 and dense search: the filter is
 * evaluated once per document per query (cached on the entry under a per-query stamp), and for
 * unit "document" only each document's best chunk competes.
 */
import { TopK } from '../../util/topk.ts';
import { compareCandidates, docAt, type Candidate, type DocEntry, type IndexView } from './view.ts';

export interface SelectOptions {
  k: number;
  unit: 'chunk' | 'document';
  /** Filter over document meta, evaluated once per document per query. */
  accept?: (doc: DocEntry) => boolean;
  /** Fresh per query (see `nextStamp`). */
  stamp: number;
}

let stampCounter = 0;
/** A per-query token for DocEntry scratch fields. */
export const nextStamp = (): number => ++stampCounter;

/** Whether `doc` passes the query's filter, cached on the entry for this stamp. */
export function accepts(doc: DocEntry, o: SelectOptions): boolean {
  if (doc.stamp !== o.stamp) {
    doc.stamp = o.stamp;
    doc.ok = o.accept ? o.accept(doc) : true;
    doc.best = undefined;
  }
  return doc.ok;
}

/**
 * Selects the best k from `score(segIndex, local)` over live chunks; for unit "document" only each
 * document's best chunk competes. Shared by BM25 and dense search. With `positions` (global chunk
 * positions, `view.bases[s] + local`), only those chunks are considered instead of every chunk.
 */
export function selectTop(
  view: IndexView,
  o: SelectOptions,
  scoreOf: (s: number, local: number) => number,
  field: 'sparse' | 'dense',
  skipZero: boolean,
  positions?: { at: Int32Array; length: number },
): Candidate[] {
  const top = new TopK<Candidate>(o.k, compareCandidates);
  const perDoc = o.unit === 'document';
  const bests: Candidate[] = [];
  const consider = (si: number, c: number): void => {
    const seg = view.segments[si];
    if (view.dead[si][c]) return;
    const score = scoreOf(si, c);
    if (score !== score || (skipZero && score <= 0)) return; // NaN: no score for this chunk
    if (!perDoc) {
      const w = top.worst; // below the current k-th: out whatever the filter says
      if (w !== undefined && score < w.score) return;
    }
    const doc = docAt(seg, c);
    if (doc === undefined || !accepts(doc, o)) return;
    if (perDoc) {
      const b = doc.best;
      const cand: Candidate = { seg, local: c, doc, score, scores: { [field]: score } };
      if (b === undefined) {
        doc.best = cand;
        bests.push(cand);
      } else if (compareCandidates(cand, b) < 0) {
        Object.assign(b, cand);
      }
      return;
    }
    top.push({ seg, local: c, doc, score, scores: { [field]: score } });
  };
  if (positions) {
    const { bases } = view;
    for (let i = 0; i < positions.length; i++) {
      const g = positions.at[i];
      let si = 0;
      while (si + 1 < bases.length && bases[si + 1] <= g) si++; // a handful of segments
      consider(si, g - bases[si]);
    }
  } else {
    view.segments.forEach((seg, si) => {
      for (let c = 0; c < seg.size; c++) consider(si, c);
    });
  }
  if (perDoc) for (const b of bests) top.push(b);
  return top.drain();
}

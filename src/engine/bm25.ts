/**
 * BM25 over all live segments of a view, term-at-a-time into one reused Float32Array accumulator.
 *
 * Statistics are corpus-global: N and avgdl count live chunks exactly; df is summed over the
 * view's segments INCLUDING tombstoned postings (as Lucene does until segments merge) and clamped
 * to N. The approximation only matters after heavy deletes; merges remove it.
 *
 *   idf(t)     = ln(1 + (N − df + 0.5) / (df + 0.5))            (always > 0, so scores ≥ 0)
 *   score(q,c) = Σ_t qtf · idf · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))
 */
import { findTerm } from './segment.ts';
import { TopK } from './topk.ts';
import { compareCandidates, type Candidate, type DocEntry, type IndexView } from './view.ts';

export interface Bm25Params {
  k1: number;
  b: number;
}

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
 * document's best chunk competes. Shared by BM25 and dense search.
 */
export function selectTop(
  view: IndexView,
  o: SelectOptions,
  scoreOf: (s: number, local: number) => number,
  field: 'sparse' | 'dense',
  skipZero: boolean,
): Candidate[] {
  const top = new TopK<Candidate>(o.k, compareCandidates);
  const perDoc = o.unit === 'document';
  const bests: Candidate[] = [];
  view.segments.forEach((seg, si) => {
    const dead = view.dead[si];
    for (let c = 0; c < seg.size; c++) {
      if (dead[c]) continue;
      const score = scoreOf(si, c);
      if (score !== score || (skipZero && score <= 0)) continue; // NaN: no score for this chunk
      const doc = seg.docs[c];
      if (doc === undefined || !accepts(doc, o)) continue;
      if (perDoc) {
        const b = doc.best;
        const cand: Candidate = { seg, local: c, doc, score, scores: { [field]: score } };
        if (b === undefined) {
          doc.best = cand;
          bests.push(cand);
        } else if (compareCandidates(cand, b) < 0) {
          Object.assign(b, cand);
        }
        continue;
      }
      const w = top.worst;
      if (w !== undefined && score < w.score) continue;
      top.push({ seg, local: c, doc, score, scores: { [field]: score } });
    }
  });
  if (perDoc) for (const b of bests) top.push(b);
  return top.drain();
}

/** Reusable BM25 scorer; one per engine (retrieves are synchronous inside `search`). */
export class Bm25 {
  private acc = new Float32Array(0);

  constructor(public params: Bm25Params) {}

  /** Top-k live chunks (or documents) for the analysed query terms (repeats count as qtf). */
  search(view: IndexView, queryTerms: readonly string[], o: SelectOptions): Candidate[] {
    const qtf = new Map<string, number>();
    for (const t of queryTerms) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    return this.searchWeighted(view, qtf, o);
  }

  /** Top-k for weighted query terms (term → weight, e.g. an expanded query). */
  searchWeighted(view: IndexView, qtf: ReadonlyMap<string, number>, o: SelectOptions): Candidate[] {
    if (view.live === 0 || qtf.size === 0) return [];
    if (this.acc.length < view.total) this.acc = new Float32Array(Math.max(view.total, this.acc.length * 2));
    const acc = this.acc;
    const { k1, b } = this.params;
    const N = view.live;
    const avgdl = view.liveLength / N || 1;
    let any = false;
    for (const [term, weight] of qtf) {
      const found = view.segments.map((s) => findTerm(s.lex.terms, term));
      let df = 0;
      view.segments.forEach((s, i) => {
        const t = found[i];
        if (t >= 0) df += s.lex.offsets[t + 1] - s.lex.offsets[t];
      });
      if (df === 0) continue;
      any = true;
      df = Math.min(df, N);
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5)) * weight;
      const k1p1 = k1 + 1;
      const c0 = k1 * (1 - b);
      const c1 = (k1 * b) / avgdl;
      view.segments.forEach((s, i) => {
        const t = found[i];
        if (t < 0) return;
        const { postings, tfs, lengths, offsets } = s.lex;
        const base = view.bases[i];
        for (let p = offsets[t], end = offsets[t + 1]; p < end; p++) {
          const local = postings[p];
          const tf = tfs[p];
          acc[base + local] += (idf * tf * k1p1) / (tf + c0 + c1 * lengths[local]);
        }
      });
    }
    if (!any) return [];
    const out = selectTop(view, o, (si, c) => acc[view.bases[si] + c], 'sparse', true);
    acc.fill(0, 0, view.total);
    return out;
  }
}

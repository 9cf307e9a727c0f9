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
import { selectTop, type SelectOptions } from './select-top.ts';
import type { Candidate, IndexView } from './view.ts';

export interface Bm25Params {
  k1: number;
  b: number;
}

/** Query weights by term in first-occurrence order (repeats count): what `search` sums, in its order. */
export function queryWeights(queryTerms: readonly string[]): Map<string, number> {
  const qtf = new Map<string, number>();
  for (const t of queryTerms) qtf.set(t, (qtf.get(t) ?? 0) + 1);
  return qtf;
}

/** Reusable BM25 scorer; one per engine (retrieves are synchronous inside `search`). */
export class Bm25 {
  private acc = new Float32Array(0);
  /** Positions with a non-zero score in `acc`, so selection and reset touch only those. */
  private touched = new Int32Array(0);

  constructor(public params: Bm25Params) {}

  /** Top-k live chunks (or documents) for the analysed query terms (repeats count as qtf). */
  search(view: IndexView, queryTerms: readonly string[], o: SelectOptions): Candidate[] {
    return this.searchWeighted(view, queryWeights(queryTerms), o);
  }

  /** Top-k for weighted query terms (term → weight > 0, e.g. an expanded query; other weights are skipped). */
  searchWeighted(view: IndexView, qtf: ReadonlyMap<string, number>, o: SelectOptions): Candidate[] {
    if (view.live === 0 || qtf.size === 0) return [];
    if (this.acc.length < view.total) {
      this.acc = new Float32Array(Math.max(view.total, this.acc.length * 2));
      this.touched = new Int32Array(this.acc.length);
    }
    const acc = this.acc;
    const touched = this.touched;
    let count = 0;
    const { k1, b } = this.params;
    const N = view.live;
    const avgdl = view.liveLength / N || 1;
    let any = false;
    for (const [term, weight] of qtf) {
      if (!(weight > 0)) continue;
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
          const g = base + local;
          const before = acc[g];
          acc[g] = before + (idf * tf * k1p1) / (tf + c0 + c1 * lengths[local]);
          // Contributions are ≥ 0 (positive weights), so a position turns non-zero once: listed once.
          if (before === 0 && acc[g] !== 0) touched[count++] = g;
        }
      });
    }
    if (!any) return [];
    const out = selectTop(view, o, (si, c) => acc[view.bases[si] + c], 'sparse', true, { at: touched, length: count });
    for (let i = 0; i < count; i++) acc[touched[i]] = 0;
    return out;
  }
}

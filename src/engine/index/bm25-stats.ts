/**
 * The statistics behind this engine's BM25 scores of some hits (src/protocol/bm25-stats.ts), so an
 * aggregator over shards of one collection can score them as one index would: the view's N and
 * total length, each query term's raw df (tombstoned postings included, unclamped, as bm25.ts sums
 * it before clamping to N), and per hit the chunk's length and term frequencies. For unit
 * "document" the hit's chunk is the one this engine ranked best for the document, and the
 * document's other live chunks that hold a query term follow in `chunks` (with global statistics
 * another chunk may score best). A document's chunks are neighbours in one segment.
 */
import type { Bm25Stats } from '../../protocol/bm25-stats.ts';
import { queryWeights, type Bm25Params } from './bm25.ts';
import { findTerm } from './segment.ts';
import { docAt, type Candidate, type IndexView, type LiveSegment } from './view.ts';

/** The frequency of term number `t` of the segment's dictionary in chunk `local` (postings are in ordinal order). */
function tfAt(seg: LiveSegment, t: number, local: number): number {
  if (t < 0) return 0;
  const { offsets, postings, tfs } = seg.lex;
  let lo = offsets[t];
  let hi = offsets[t + 1] - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = postings[mid];
    if (v === local) return tfs[mid];
    if (v < local) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

/** The other live chunks of the candidate's document that hold a query term (`at`: the terms' dictionary positions). */
function otherChunks(view: IndexView, c: Candidate, at: number[]): { dl: number; tf: number[] }[] {
  const si = view.segments.indexOf(c.seg);
  const dead = view.dead[si];
  const out: { dl: number; tf: number[] }[] = [];
  const visit = (local: number): boolean => {
    if (local < 0 || local >= c.seg.size || docAt(c.seg, local) !== c.doc) return false;
    if (dead?.[local]) return true;
    const tf = at.map((t) => tfAt(c.seg, t, local));
    if (tf.some((f) => f > 0)) out.push({ dl: c.seg.lex.lengths[local], tf });
    return true;
  };
  for (let l = c.local - 1; visit(l); l--);
  for (let l = c.local + 1; visit(l); l++);
  return out;
}

export function bm25Stats(view: IndexView, params: Bm25Params, queryTerms: readonly string[], hits: readonly Candidate[], unit: 'chunk' | 'document'): Bm25Stats {
  const qtf = queryWeights(queryTerms);
  const terms = [...qtf.keys()];
  const df = terms.map((term) =>
    view.segments.reduce((n, s) => {
      const t = findTerm(s.lex.terms, term);
      return t < 0 ? n : n + s.lex.offsets[t + 1] - s.lex.offsets[t];
    }, 0),
  );
  // Term positions per segment, looked up once for all hits of that segment.
  const found = new Map<LiveSegment, number[]>();
  const positions = (seg: LiveSegment): number[] => {
    let p = found.get(seg);
    if (!p) found.set(seg, (p = terms.map((term) => findTerm(seg.lex.terms, term))));
    return p;
  };
  return {
    v: 1,
    k1: params.k1,
    b: params.b,
    terms,
    qtf: terms.map((t) => qtf.get(t)!),
    n: view.live,
    length: view.liveLength,
    df,
    hits: hits.map((c) => {
      const at = positions(c.seg);
      const hit = { dl: c.seg.lex.lengths[c.local], tf: at.map((t) => tfAt(c.seg, t, c.local)) };
      const chunks = unit === 'document' ? otherChunks(view, c, at) : [];
      return chunks.length ? { ...hit, chunks } : hit;
    }),
  };
}

/**
 * When the engine reads what a partial store (`IndexStore.partial`, a bundle over HTTP) has not
 * given yet, and only what the request needs (index/partial.ts fills it in):
 *
 *   - a query's terms: their postings, before BM25 scores (one term shard per new term);
 *   - the hits it returns: their documents (id, meta, citation data), before they are named;
 *   - the ids of every document, when hit ids must be compared before the page is cut (hybrid
 *     fusion, multi-query, session dedup);
 *   - every document's meta, for what looks at all of them (filters, recency, listings, facets);
 *   - everything (every term and document), for the whole-index operations (graph, map, rewrite).
 *
 * A first sparse answer therefore reads its terms' shards and its hits' documents, nothing else.
 * Reads already under way are shared; a failed read is retried by the next request.
 */
import type { NearWord, PartialSource } from '../contracts.ts';
import {
  addPostings, fillDocument, fillTable, isCited, missingTerms, partialVocabulary, tableFilled, uncitedDocuments,
} from '../index/partial.ts';
import type { Candidate, IndexView, LiveSegment } from '../index/view.ts';

const partialSegments = (view: IndexView): LiveSegment[] => view.segments.filter((s) => s.record.partial !== undefined);

export class Residency {
  private tables = new Map<'ids' | 'all', Promise<void>>();
  private vocabularyRead?: Promise<void>;

  constructor(private readonly source: PartialSource) {}

  /** The postings of `terms` are in every partial segment of `view` once this resolves. */
  async terms(view: IndexView, terms: Iterable<string>): Promise<void> {
    const segs = partialSegments(view);
    const wanted = [...terms];
    const missing = [...new Set(segs.flatMap((s) => missingTerms(s, wanted)))];
    if (missing.length === 0) return;
    const found = await this.source.readTerms(missing);
    for (const s of segs) addPostings(s, missing, found);
  }

  /** The documents of `cands` (id, meta, version, their chunks' citation data) are filled in once this resolves. */
  async hits(view: IndexView, cands: readonly Pick<Candidate, 'seg' | 'local' | 'doc'>[]): Promise<void> {
    const ordinals = uncitedDocuments(cands);
    if (ordinals.length > 0) this.fill(view, await this.source.readDocuments(ordinals));
  }

  /** True when the source finds the corpus's words one edit from a query word (PartialSource.nearWords). */
  get typos(): boolean {
    return this.source.nearWords !== undefined;
  }

  /** The corpus's words within one edit of each of `words`, with their counts (none without `typos`). */
  async nearWords(words: readonly string[]): Promise<Map<string, NearWord[]>> {
    return words.length > 0 && this.source.nearWords ? this.source.nearWords(words) : new Map();
  }

  /** True when the source answers dense search on demand (PartialSource.denseNearest). */
  get lazyDense(): boolean {
    return this.source.denseNearest !== undefined;
  }

  /**
   * The chunks near `query` with their approximate cosines, as global positions of `view`
   * (`view.bases[s] + local`) and a score per position (NaN elsewhere).
   */
  async nearest(view: IndexView, query: Float32Array): Promise<{ positions: { at: Int32Array; length: number }; score: (s: number, local: number) => number; probed: number; clusters: number }> {
    const found = await this.source.denseNearest!(query);
    const segOf = new Map(view.segments.map((s, i) => [s.record.id, i]));
    const at = new Int32Array(found.score.length);
    const scores = new Map<number, number>();
    let n = 0;
    for (let i = 0; i < found.score.length; i++) {
      const si = segOf.get(found.segment[i]);
      if (si === undefined || found.local[i] >= view.segments[si].size) continue; // a segment this view no longer has
      const pos = view.bases[si] + found.local[i];
      at[n++] = pos;
      scores.set(pos, found.score[i]);
    }
    return {
      positions: { at, length: n },
      score: (s, local) => scores.get(view.bases[s] + local) ?? NaN,
      probed: found.probed,
      clusters: found.clusters,
    };
  }

  /** Every document's id (`'ids'`) or id and meta (`'all'`) is filled in once this resolves. */
  async table(view: IndexView, what: 'ids' | 'all'): Promise<void> {
    const segs = partialSegments(view);
    if (segs.every((s) => tableFilled(s, what))) return;
    let p = this.tables.get(what);
    if (!p) {
      p = this.source.readTable(what).then((t) => {
        for (const s of segs) fillTable(s, t);
      });
      p.catch(() => this.tables.delete(what));
      this.tables.set(what, p);
    }
    await p;
  }

  /** Every term's postings and every document, with its chunks' citation data: the whole index in memory. */
  async everything(view: IndexView): Promise<void> {
    const segs = partialSegments(view);
    if (segs.length === 0) return;
    if (!this.vocabularyRead) {
      this.vocabularyRead = this.source.readAllTerms().then((found) => {
        for (const s of segs) partialVocabulary(s, found);
      });
      this.vocabularyRead.catch(() => (this.vocabularyRead = undefined));
    }
    await this.vocabularyRead;
    await this.table(view, 'all');
    const all: { seg: LiveSegment; local: number }[] = [];
    for (const seg of segs) for (let c = 0; c < seg.size; c++) if (!isCited(seg, c) && seg.docs[c]) all.push({ seg, local: c });
    await this.hits(view, all.map(({ seg, local }) => ({ seg, local, doc: seg.docs[local]! })));
  }

  private fill(view: IndexView, docs: Awaited<ReturnType<PartialSource['readDocuments']>>): void {
    const segs = partialSegments(view);
    for (const d of docs) {
      const seg = segs.find((s) => d.ordinal >= s.record.partial!.docBase && d.ordinal < s.record.partial!.docBase + s.record.partial!.docs);
      if (seg) fillDocument(seg, d);
    }
  }
}

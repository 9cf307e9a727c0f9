/**
 * The order in which background embedding takes the chunks that wait for vectors: what the person
 * is searching for first, the rest in document order (segment by segment, chunk by chunk).
 *
 *   1. the sparse top hits of recent queries (the latest query first, in rank order): they are
 *      what a hybrid answer to those queries is missing;
 *   2. the chunks of the open document (the one last read through `document`);
 *   3. the chunks of the documents in the current results (the latest retrieve's hits, in rank order);
 *   4. every other chunk in document order.
 *
 * Chunks are named by chunk key (stable across merges and re-embedding rewrites, never reused),
 * documents by id (their current version's chunks).
 */
import type { Hit } from '../../protocol/types.ts';
import type { Analyzer } from '../analysis/analyzer.ts';
import type { Bm25 } from '../index/bm25.ts';
import { nextStamp } from '../index/select-top.ts';
import { docAt, localOf, type DocEntry, type IndexView, type LiveSegment } from '../index/view.ts';

/** A chunk that waits for a vector: segment `s` of the view, local ordinal, chunk key. */
export interface ChunkRef {
  s: number;
  local: number;
  key: number;
}

/** Queries whose sparse top hits are remembered. */
const RECENT_QUERIES = 8;
/**
 * Sparse top hits remembered per query: a hybrid answer's candidates (retrieve's default depth is
 * 100), so within a few seconds all of them have dense scores. With the top 32, a hybrid answer in a
 * 30 MB import kept 25–27 of its 100 candidates without vectors until document order reached them.
 */
export const SPARSE_TOP = 100;
/** Result documents remembered (the latest retrieve's). */
const RESULT_DOCS = 20;

export interface PickInput {
  view: IndexView;
  /** True for a segment whose chunks wait for vectors (embedding needed). */
  waiting: (seg: LiveSegment) => boolean;
  /** True for a chunk already embedded ahead of its segment (early-vectors.ts). */
  embedded: (key: number) => boolean;
  /** The current version of a document, or undefined when it is gone. */
  doc: (id: string) => DocEntry | undefined;
  n: number;
}

/** What one answered retrieve tells the order (`noteSearch`). */
export interface SearchNote {
  /** The current view (after the answer). */
  view: IndexView;
  /** True for a segment whose chunks wait for vectors. */
  waiting: (seg: LiveSegment) => boolean;
  analyzer: Analyzer;
  bm25: Bm25;
  /** The query's text. */
  query: string;
  hits: readonly Hit[];
}

export class EmbedOrder {
  /** Sparse top hits' chunk keys per recent query, latest first. */
  private queries: number[][] = [];
  private open: string | undefined;
  private results: string[] = [];
  /** Document order resumes here (segment id and local ordinal), so a pick does not rescan what is done. */
  private cursor: { id: number; local: number } = { id: -1, local: 0 };

  /** A retrieve answered: its query's sparse top hits (chunk keys, best first) and the documents of its hits. */
  noteQuery(sparseTop: readonly number[], resultDocs: readonly string[]): void {
    if (sparseTop.length > 0) this.queries = [sparseTop.slice(0, SPARSE_TOP), ...this.queries].slice(0, RECENT_QUERIES);
    this.results = [...new Set(resultDocs)].slice(0, RESULT_DOCS);
  }

  /**
   * While chunks wait for vectors, a retrieve tells the order what to embed first: its query's
   * sparse top hits (whatever mode it was served in; the request's filter is not applied), by a
   * second BM25 search of the view, and the documents of its hits. Nothing when no chunk waits.
   */
  noteSearch(n: SearchNote): void {
    if (!n.view.segments.some((seg) => n.waiting(seg))) return;
    const top = n.bm25.search(n.view, n.analyzer.queryTerms(n.query), { k: SPARSE_TOP, unit: 'chunk', stamp: nextStamp() });
    const docs = n.hits.flatMap((h) => (h.citation?.source !== undefined ? [h.citation.source] : []));
    this.noteQuery(top.map((c) => c.seg.record.chunkKeys[c.local]), docs);
  }

  /** A document was opened (read with its text). */
  noteOpen(id: string): void {
    this.open = id;
  }

  /** Up to `n` chunks that wait for vectors, in this module's order. */
  next(p: PickInput): ChunkRef[] {
    const out: ChunkRef[] = [];
    const taken = new Set<number>();
    const waiting = p.view.segments.map((seg, s) => ({ seg, s })).filter(({ seg }) => p.waiting(seg));
    if (waiting.length === 0) return out;
    const take = (ref: ChunkRef | undefined): void => {
      if (ref && !taken.has(ref.key) && !p.embedded(ref.key)) taken.add(ref.key), out.push(ref);
    };
    // A chunk key's place among the waiting segments (chunk keys ascend within a segment).
    const locate = (key: number): ChunkRef | undefined => {
      for (const { seg, s } of waiting) {
        const keys = seg.record.chunkKeys;
        if (keys.length === 0 || key < keys[0] || key > keys[keys.length - 1]) continue;
        const local = localOf(seg, key);
        if (local >= 0 && !p.view.dead[s][local] && docAt(seg, local)) return { s, local, key };
      }
      return undefined;
    };
    for (const keys of this.queries) for (const key of keys) if (out.length < p.n) take(locate(key));
    const docs = [...(this.open !== undefined ? [this.open] : []), ...this.results];
    for (const id of docs) {
      const entry = out.length < p.n ? p.doc(id) : undefined;
      for (const key of entry?.chunkKeys ?? []) {
        if (out.length >= p.n) break;
        if (!taken.has(key) && !p.embedded(key)) take(locate(key));
      }
    }
    if (out.length < p.n) this.inDocumentOrder(p, waiting, out, taken);
    return out;
  }

  /** Fills `out` from the document-order cursor on (from the start when its segment is gone). */
  private inDocumentOrder(p: PickInput, waiting: { seg: LiveSegment; s: number }[], out: ChunkRef[], taken: Set<number>): void {
    let from = waiting.findIndex(({ seg }) => seg.id === this.cursor.id);
    let local = from >= 0 ? this.cursor.local : 0;
    if (from < 0) from = 0;
    const fromTop = from === 0 && local === 0;
    for (let w = from; w < waiting.length && out.length < p.n; w++, local = 0) {
      const { seg, s } = waiting[w];
      const dead = p.view.dead[s];
      const keys = seg.record.chunkKeys;
      for (; local < seg.size && out.length < p.n; local++) {
        const key = keys[local];
        if (dead[local] || taken.has(key) || p.embedded(key) || !docAt(seg, local)) continue;
        taken.add(key);
        out.push({ s, local, key });
      }
      this.cursor = { id: seg.id, local };
    }
    // Nothing ahead of the cursor: start over once from the top (a chunk behind it may still wait,
    // e.g. one whose batch failed in an earlier pass).
    if (out.length === 0 && !fromTop) {
      this.cursor = { id: -1, local: 0 };
      this.inDocumentOrder(p, waiting, out, taken);
    }
  }
}

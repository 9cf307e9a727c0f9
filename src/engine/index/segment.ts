/**
 * Immutable lexical segments: the payload stored as `SegmentRecord.lexical`.
 *
 * Layout (all structured-clone-able, so IndexedDB stores it as is):
 *   terms[t]                      the term dictionary, sorted (deterministic merges, binary-searchable)
 *   offsets[t] .. offsets[t+1]    the postings range of term t
 *   postings[i]                   local chunk ordinal (Uint16Array when the segment has ≤ 65,536 chunks)
 *   tfs[i]                        term frequency, context terms weighted by `contextWeight` (Uint16, clamped)
 *   lengths[c]                    weighted length of chunk c (BM25 dl)
 * plus per-chunk citation data (chunk index, [start,end) in the document, document length, context),
 * so queries and citations never need the store.
 */
import type { Sliced } from '../../util/slices.ts';

/** What the engine stores in `SegmentRecord.lexical`. */
export interface LexicalSegmentData {
  format: 1;
  /** `Analyzer.id` the terms were produced with. */
  analyzer: string;
  contextWeight: number;
  terms: string[];
  offsets: Uint32Array;
  postings: Uint16Array | Uint32Array;
  tfs: Uint16Array;
  lengths: Uint32Array;
  chunkIndex: Uint32Array;
  starts: Uint32Array;
  ends: Uint32Array;
  docLengths: Uint32Array;
  /** Situating context per chunk ('' when none). */
  contexts: string[];
}

/** One chunk as input to `buildLexical`. */
export interface ChunkTerms {
  terms: string[];
  contextTerms: string[];
  index: number;
  start: number;
  end: number;
  docLength: number;
  context: string;
}

const MAX_TF = 65535;

function postingsArray(chunks: number, n: number): Uint16Array | Uint32Array {
  return chunks <= 65536 ? new Uint16Array(n) : new Uint32Array(n);
}

/**
 * Lays out `term → [(ordinal, tf), …]` lists as sorted terms with offsets into flat postings and
 * tf arrays (tf clamped to 16 bits). `n` = chunks in the segment, `total` = number of pairs.
 */
function packPostings(lists: Map<string, number[]>, n: number, total: number) {
  const terms = [...lists.keys()].sort();
  const offsets = new Uint32Array(terms.length + 1);
  const postings = postingsArray(n, total);
  const tfs = new Uint16Array(total);
  let p = 0;
  for (let t = 0; t < terms.length; t++) {
    offsets[t] = p;
    const l = lists.get(terms[t])!;
    for (let i = 0; i < l.length; i += 2) {
      postings[p] = l[i];
      tfs[p++] = Math.min(MAX_TF, l[i + 1]);
    }
  }
  offsets[terms.length] = p;
  return { terms, offsets, postings, tfs };
}

/** Builds a segment from analysed chunks (local ordinal = position in `chunks`). */
export function buildLexical(chunks: ChunkTerms[], analyzer: string, contextWeight: number): LexicalSegmentData {
  const n = chunks.length;
  const lengths = new Uint32Array(n);
  // term → flat list of (ordinal, tf) pairs, appended in ordinal order.
  const lists = new Map<string, number[]>();
  let total = 0;
  const tf = new Map<string, number>();
  for (let c = 0; c < n; c++) {
    tf.clear();
    const ch = chunks[c];
    for (const t of ch.terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of ch.contextTerms) tf.set(t, (tf.get(t) ?? 0) + contextWeight);
    lengths[c] = ch.terms.length + contextWeight * ch.contextTerms.length;
    for (const [t, f] of tf) {
      let l = lists.get(t);
      if (l === undefined) lists.set(t, (l = []));
      l.push(c, f);
      total++;
    }
  }
  return {
    format: 1,
    analyzer,
    contextWeight,
    ...packPostings(lists, n, total),
    lengths,
    chunkIndex: Uint32Array.from(chunks, (c) => c.index),
    starts: Uint32Array.from(chunks, (c) => c.start),
    ends: Uint32Array.from(chunks, (c) => c.end),
    docLengths: Uint32Array.from(chunks, (c) => c.docLength),
    contexts: chunks.map((c) => c.context),
  };
}

/** Binary search in the sorted dictionary; -1 when absent. */
export function findTerm(terms: readonly string[], term: string): number {
  let lo = 0;
  let hi = terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = terms[mid];
    if (v === term) return mid;
    if (v < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * Merges segments, dropping chunks whose `keep` flag is 0. Returns the merged data and, for each
 * input, the new local ordinal of each kept chunk (-1 for dropped ones). Inputs must share analyzer
 * and contextWeight (the caller merges only compatible segments).
 */
export function* mergeLexical(parts: { data: LexicalSegmentData; keep: Uint8Array }[]): Sliced<{
  data: LexicalSegmentData;
  remap: Int32Array[];
}> {
  const remap: Int32Array[] = [];
  let n = 0;
  for (const { data, keep } of parts) {
    const m = new Int32Array(data.lengths.length).fill(-1);
    for (let c = 0; c < m.length; c++) if (keep[c]) m[c] = n++;
    remap.push(m);
  }
  const lists = new Map<string, number[]>();
  let total = 0;
  // A pause every 1,024 terms or 32,768 postings, whichever first (a common term has thousands).
  let since = 0;
  for (const [pi, { data }] of parts.entries()) {
    const m = remap[pi];
    for (let t = 0; t < data.terms.length; t++) {
      since += data.offsets[t + 1] - data.offsets[t];
      if ((t & 1023) === 0 || since >= 32_768) {
        since = 0;
        yield 'merge: postings';
      }
      let l: number[] | undefined;
      for (let i = data.offsets[t]; i < data.offsets[t + 1]; i++) {
        const to = m[data.postings[i]];
        if (to < 0) continue;
        if (l === undefined) {
          l = lists.get(data.terms[t]);
          if (l === undefined) lists.set(data.terms[t], (l = []));
        }
        l.push(to, data.tfs[i]);
        total++;
      }
    }
  }
  yield 'merge: postings gathered';
  const packed = packPostings(lists, n, total);
  yield 'merge: postings packed';
  const pick = <T extends Uint32Array>(get: (d: LexicalSegmentData) => T): Uint32Array => {
    const out = new Uint32Array(n);
    parts.forEach(({ data }, pi) => {
      const src = get(data);
      remap[pi].forEach((to, c) => {
        if (to >= 0) out[to] = src[c];
      });
    });
    return out;
  };
  const contexts = new Array<string>(n);
  parts.forEach(({ data }, pi) => remap[pi].forEach((to, c) => void (to >= 0 && (contexts[to] = data.contexts[c]))));
  const first = parts[0].data;
  return {
    data: {
      format: 1,
      analyzer: first.analyzer,
      contextWeight: first.contextWeight,
      ...packed,
      lengths: pick((d) => d.lengths),
      chunkIndex: pick((d) => d.chunkIndex),
      starts: pick((d) => d.starts),
      ends: pick((d) => d.ends),
      docLengths: pick((d) => d.docLengths),
      contexts,
    },
    remap,
  };
}

/**
 * The two compact pieces of a bundle (format.ts), as codec values with varint payloads:
 *
 *   core        per segment: analyzer, context weight, documents, BM25 length sum, and as varint
 *               deltas its chunk keys, each chunk's local document ordinal and chunk index;
 *   term shard  sorted terms, and per term, per segment holding it: the segment's position, the
 *               count, then (ordinal delta, tf, BM25 length of the chunk) per posting.
 */
import type { PartialSegmentInfo, TermPostings } from '../engine/contracts.ts';
import { decodeDeltas, encodeDeltas, VarintReader, VarintWriter } from './varint.ts';

/** One segment as the core file holds it. */
export interface CoreSegmentValue {
  analyzer: string;
  contextWeight: number;
  docs: number;
  lengthSum: number;
  chunks: number;
  chunkKeys: Uint8Array;
  docOf: Uint8Array;
  chunkIndex: Uint8Array;
}

export interface CoreValue {
  segments: CoreSegmentValue[];
}

/** What the writer knows of a segment. */
export interface CoreSegmentInput {
  analyzer: string;
  contextWeight: number;
  docs: number;
  lengthSum: number;
  chunkKeys: Uint32Array;
  docOf: Int32Array;
  chunkIndex: Uint32Array;
}

export function encodeCore(segments: readonly CoreSegmentInput[]): CoreValue {
  return {
    segments: segments.map((s) => ({
      analyzer: s.analyzer,
      contextWeight: s.contextWeight,
      docs: s.docs,
      lengthSum: s.lengthSum,
      chunks: s.chunkKeys.length,
      chunkKeys: encodeDeltas(s.chunkKeys),
      docOf: encodeDeltas(s.docOf),
      chunkIndex: encodeDeltas(s.chunkIndex),
    })),
  };
}

/** The segments of a core value, each with its chunk keys and the engine's partial-segment info. */
export function decodeCore(value: CoreValue): { chunkKeys: Uint32Array; partial: PartialSegmentInfo }[] {
  let docBase = 0;
  return value.segments.map((s) => {
    const out = {
      chunkKeys: decodeDeltas(s.chunkKeys, new Uint32Array(s.chunks)),
      partial: {
        analyzer: s.analyzer,
        contextWeight: s.contextWeight,
        docBase,
        docs: s.docs,
        docOf: decodeDeltas(s.docOf, new Int32Array(s.chunks)),
        chunkIndex: decodeDeltas(s.chunkIndex, new Uint32Array(s.chunks)),
        lengthSum: s.lengthSum,
      },
    };
    docBase += s.docs;
    return out;
  });
}

export interface TermShardValue {
  terms: string[];
  /** Byte end of each term's entry in `data`. */
  ends: Uint32Array;
  data: Uint8Array;
}

/** One term's postings in one segment, as the writer has them (ordinals ascending). */
export interface TermSegmentInput {
  /** The segment's position in the manifest's list. */
  segment: number;
  postings: ArrayLike<number>;
  tfs: ArrayLike<number>;
  lengths: ArrayLike<number>;
}

/** The bytes of one term's entry (its postings in every segment holding it). */
export function encodeTermEntry(parts: readonly TermSegmentInput[]): Uint8Array {
  const w = new VarintWriter();
  w.uint(parts.length);
  for (const p of parts) {
    w.uint(p.segment);
    w.uint(p.postings.length);
    let last = 0;
    for (let i = 0; i < p.postings.length; i++) {
      w.uint(p.postings[i] - last);
      last = p.postings[i];
      w.uint(p.tfs[i]);
      w.uint(p.lengths[i]);
    }
  }
  return w.bytes();
}

/** A shard from its terms' entries (`terms` sorted). */
export function encodeTermShard(terms: readonly string[], entries: readonly Uint8Array[]): TermShardValue {
  const ends = new Uint32Array(terms.length);
  const data = new Uint8Array(entries.reduce((n, e) => n + e.length, 0));
  let at = 0;
  entries.forEach((e, i) => {
    data.set(e, at);
    ends[i] = at += e.length;
  });
  return { terms: [...terms], ends, data };
}

/**
 * The postings of the shard's terms that `wanted` holds (all of them when undefined), by term;
 * `segmentIds[i]` is the id of the manifest's i-th segment.
 */
export function decodeTermShard(value: TermShardValue, wanted: ReadonlySet<string> | undefined, segmentIds: readonly number[], into: Map<string, TermPostings[]>): void {
  value.terms.forEach((term, t) => {
    if (wanted && !wanted.has(term)) return;
    const r = new VarintReader(value.data, t > 0 ? value.ends[t - 1] : 0);
    const parts: TermPostings[] = [];
    for (let s = r.uint(); s > 0; s--) {
      const segment = segmentIds[r.uint()];
      const n = r.uint();
      const postings = new Uint32Array(n);
      const tfs = new Uint16Array(n);
      const lengths = new Uint32Array(n);
      let last = 0;
      for (let i = 0; i < n; i++) {
        postings[i] = last += r.uint();
        tfs[i] = r.uint();
        lengths[i] = r.uint();
      }
      if (segment === undefined) throw new RangeError(`term shard names a segment the manifest does not list`);
      parts.push({ segment, postings, tfs, lengths });
    }
    into.set(term, parts);
  });
}

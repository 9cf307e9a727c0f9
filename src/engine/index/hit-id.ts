/**
 * Hit ids: how a candidate is named on the wire and how a name is read back. Here, below query
 * and feedback, because both name hits (a folder cycle otherwise).
 */
import type { Candidate } from './view.ts';
import { assertKnown } from './partial.ts';

/**
 * Stable hit id, unique within a result whatever the document ids are: the document id for unit
 * "document", and for a one-chunk document whose id has no `#`; else `docId#index`. Every id
 * holding a `#` therefore ends in `#<chunk index>` (document `a#1` as one chunk is `a#1#0`, never
 * the `a#1` of chunk 1 of `a`), so `parseHitId` splits at the last `#`.
 */
export function hitId(c: Candidate, unit: 'chunk' | 'document'): string {
  assertKnown(c.doc, 'id');
  if (unit === 'document' || (c.doc.chunkKeys.length === 1 && !c.doc.id.includes('#'))) return c.doc.id;
  return `${c.doc.id}#${c.seg.lex.chunkIndex[c.local]}`;
}

/**
 * The document and chunk a chunk-unit hit id names (the inverse of `hitId`); a bare id is its
 * document's only chunk. (A document-unit hit id is the document id itself.)
 */
export function parseHitId(id: string): { docId: string; index: number } {
  const at = id.lastIndexOf('#');
  const index = at >= 0 ? Number(id.slice(at + 1)) : NaN;
  return at >= 0 && /^\d+$/.test(id.slice(at + 1)) && Number.isSafeInteger(index) ? { docId: id.slice(0, at), index } : { docId: id, index: 0 };
}

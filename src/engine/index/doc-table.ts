/**
 * Per-segment document tables (`SegmentRecord.docTable`): a cold start reads each segment's
 * documents as a few packed arrays instead of one record per document, and builds a document's
 * DocEntry only when a query or a write first touches it (view.ts `docAt`). At a million chunks
 * that is the difference between ~20 s and well under a second before the first sparse answer.
 */
import type { DocTable } from '../contracts.ts';
import { docAt, type DocEntry, type IndexView, type LiveSegment } from './view.ts';

/** The table of a segment whose chunks belong to `docs` (by local ordinal; undefined = no live document). */
export function buildDocTable(docs: readonly (DocEntry | undefined)[]): DocTable {
  const docOf = new Int32Array(docs.length).fill(-1);
  const ids: string[] = [];
  const versions: number[] = [];
  const metas: string[] = [];
  let last: DocEntry | undefined;
  docs.forEach((d, c) => {
    if (d === undefined) return;
    if (d !== last) {
      ids.push(d.id);
      versions.push(d.version);
      metas.push(JSON.stringify(d.meta));
      last = d;
    }
    docOf[c] = ids.length - 1;
  });
  return { docOf, ids, versions: Uint32Array.from(versions), metas };
}

/** The table of a loaded or planned segment: its own, or one built from its (complete) document list. */
export function tableOf(seg: LiveSegment): DocTable {
  return seg.table ?? buildDocTable(seg.docs);
}

/** Live documents of a view by id (a document is live when one of its chunks is). */
export function liveDocuments(view: IndexView): Map<string, DocEntry> {
  const out = new Map<string, DocEntry>();
  view.segments.forEach((seg, si) => {
    const dead = view.dead[si];
    let last: DocEntry | undefined;
    for (let c = 0; c < seg.size; c++) {
      if (dead[c]) continue;
      const d = docAt(seg, c);
      if (d === undefined || d === last) continue;
      out.set(d.id, d);
      last = d;
    }
  });
  return out;
}

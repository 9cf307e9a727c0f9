/**
 * Per-segment document tables (`SegmentRecord.docTable`): a cold start reads each segment's
 * documents as a few packed values instead of one record per document, and builds a document's
 * DocEntry only when a query or a write first touches it (view.ts `docAt`). At a million chunks
 * that is the difference between ~20 s and under a second for `Engine.open`.
 */
import type { DocTable } from '../contracts.ts';
import { docAt, type DocEntry, type IndexView, type LiveSegment } from './view.ts';

/** The table of a segment whose chunks belong to `docs` (by local ordinal; undefined = no live document). */
export function buildDocTable(docs: readonly (DocEntry | undefined)[]): DocTable {
  const docOf = new Int32Array(docs.length).fill(-1);
  const ids: string[] = [];
  const idEnds: number[] = [];
  const versions: number[] = [];
  const metaIndex = new Map<string, number>();
  const metas: string[] = [];
  const metaEnds: number[] = [];
  const metaOf: number[] = [];
  let idLength = 0;
  let metaLength = 0;
  let last: DocEntry | undefined;
  docs.forEach((d, c) => {
    if (d === undefined) return;
    if (d !== last) {
      ids.push(d.id);
      idEnds.push((idLength += d.id.length));
      versions.push(d.version);
      const json = JSON.stringify(d.meta);
      let m = metaIndex.get(json);
      if (m === undefined) {
        metaIndex.set(json, (m = metas.length));
        metas.push(json);
        metaEnds.push((metaLength += json.length));
      }
      metaOf.push(m);
      last = d;
    }
    docOf[c] = ids.length - 1;
  });
  return {
    docOf,
    ids: ids.join(''),
    idEnds: Uint32Array.from(idEnds),
    versions: Uint32Array.from(versions),
    metas: metas.join(''),
    metaEnds: Uint32Array.from(metaEnds),
    metaOf: Uint32Array.from(metaOf),
  };
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

/**
 * Live documents of a view, counted without building their entries: from the document of each
 * chunk where a segment has a table (or is partial), from its entries otherwise.
 */
export function countLiveDocuments(view: IndexView): number {
  let n = 0;
  view.segments.forEach((seg, si) => {
    const dead = view.dead[si];
    const docOf = seg.table?.docOf ?? seg.record.partial?.docOf;
    let last: number | DocEntry | undefined;
    for (let c = 0; c < seg.size; c++) {
      if (dead[c]) continue;
      const d = docOf ? docOf[c] : seg.docs[c];
      if (d === undefined || d === -1 || d === last) continue;
      n++;
      last = d;
    }
  });
  return n;
}

/** Cold start: rebuilds the current view from what the store loaded (no document text is read; partial segments: index/partial.ts). */
import type { Embedder, LoadedIndex } from '../contracts.ts';
import { makeView, type DocEntry, type IndexView, type LiveSegment } from './view.ts';
import { liveSegment, newDocEntry } from './view.ts';
import { partialSegment } from './partial.ts';

/** Marks the load warning of a segment the manifest lists and the store lacks: its passages are lost. */
export const MISSING_SEGMENT = 'listed in the manifest is missing from the store';

/**
 * The view of what the store loaded, and its live documents by id. With document tables in every
 * segment (`loaded.documents` absent) nothing per document is built here: `docs` is undefined and
 * each DocEntry is made on first use (view.ts `docAt`, doc-table.ts `liveDocuments`).
 */
export function loadViews(
  loaded: LoadedIndex,
  analyzerId: string,
  embedder: Embedder | undefined,
): { view: IndexView; docs: Map<string, DocEntry> | undefined; warnings: string[] } {
  const warnings: string[] = [];
  const listed = loaded.documents;
  const docs = listed && new Map<string, DocEntry>();
  const byKey = new Map<number, DocEntry>();
  if (listed && docs) {
    for (const d of listed) {
      const entry = newDocEntry(d.id, d.meta, d.version, d.chunkKeys);
      docs.set(d.id, entry);
      for (const k of d.chunkKeys) byKey.set(k, entry);
    }
  }
  const tomb = new Set(loaded.manifest.tombstones);
  const byId = new Map(loaded.segments.map((s) => [s.id, s]));
  const segments: LiveSegment[] = [];
  const dead: Uint8Array[] = [];
  for (const id of loaded.manifest.segmentIds) {
    const record = byId.get(id);
    if (!record) {
      warnings.push(`segment ${id} ${MISSING_SEGMENT}`);
      continue;
    }
    const keys = record.chunkKeys;
    const d = new Uint8Array(keys.length);
    let seg: LiveSegment;
    if (record.partial) {
      const partial = record as typeof record & { partial: NonNullable<typeof record.partial> };
      const { docOf } = partial.partial;
      for (let c = 0; c < keys.length; c++) if (docOf[c] < 0 || tomb.has(keys[c])) d[c] = 1;
      seg = liveSegment(record, partialSegment(partial));
    } else if (listed) {
      const segDocs = Array.from(keys, (k, c) => {
        const entry = byKey.get(k);
        if (!entry || tomb.has(k)) d[c] = 1;
        return entry;
      });
      seg = liveSegment(record, segDocs);
    } else {
      const table = record.docTable!;
      for (let c = 0; c < keys.length; c++) if (table.docOf[c] < 0 || tomb.has(keys[c])) d[c] = 1;
      seg = liveSegment(record, new Array<DocEntry | undefined>(keys.length), table);
    }
    if (seg.lex.analyzer !== analyzerId) {
      warnings.push(`segment ${id} was analysed with '${seg.lex.analyzer}', the engine uses '${analyzerId}': re-add its documents to search them consistently`);
    }
    const dense = record.dense ?? record.denseApart;
    if (embedder && dense && (dense.identity !== embedder.identity || dense.dimension !== embedder.dimension)) {
      warnings.push(`segment ${id} has vectors from '${dense.identity}', the embedder is '${embedder.identity}': dense search skips it until it is re-embedded (in the background)`);
    }
    segments.push(seg);
    dead.push(d);
  }
  return { view: makeView(loaded.manifest.version, segments, dead), docs, warnings };
}

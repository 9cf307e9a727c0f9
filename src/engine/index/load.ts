/** Cold start: rebuilds the current view from what the store loaded (no document text is read). */
import type { Embedder, LoadedIndex } from '../contracts.ts';
import { makeView, type DocEntry, type IndexView } from './view.ts';
import { liveSegment, newDocEntry } from './view.ts';

export function loadViews(
  loaded: LoadedIndex,
  analyzerId: string,
  embedder: Embedder | undefined,
): { view: IndexView; docs: Map<string, DocEntry>; warnings: string[] } {
  const warnings: string[] = [];
  const docs = new Map<string, DocEntry>();
  const byKey = new Map<number, DocEntry>();
  for (const d of loaded.documents) {
    const entry = newDocEntry(d.id, d.meta, d.version, d.chunkKeys);
    docs.set(d.id, entry);
    for (const k of d.chunkKeys) byKey.set(k, entry);
  }
  const tomb = new Set(loaded.manifest.tombstones);
  const byId = new Map(loaded.segments.map((s) => [s.id, s]));
  const segments = [];
  const dead: Uint8Array[] = [];
  for (const id of loaded.manifest.segmentIds) {
    const record = byId.get(id);
    if (!record) {
      warnings.push(`segment ${id} listed in the manifest is missing from the store`);
      continue;
    }
    const keys = record.chunkKeys;
    const d = new Uint8Array(keys.length);
    const segDocs = Array.from(keys, (k, c) => {
      const entry = byKey.get(k);
      if (!entry || tomb.has(k)) d[c] = 1;
      return entry;
    });
    const seg = liveSegment(record, segDocs);
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

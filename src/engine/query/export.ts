/**
 * The whole corpus as portable data (the `x-inpage/export` vendor method): documents with text,
 * meta, chunk ranges and, when asked, each chunk's vector from the running model. The vectors
 * are read from the live segments (no embedding); a chunk whose segment has none for this model
 * (not embedded yet) goes out without one and is embedded again on import.
 */
import type { IndexStore } from '../contracts.ts';
import { segmentVectors, type DenseModel } from '../index/dense.ts';
import { localOf, type IndexView } from '../index/view.ts';

export interface ExportedChunk {
  index: number;
  start: number;
  end: number;
  vector?: Float32Array;
}

export interface ExportedDocument {
  id: string;
  text: string;
  meta: Record<string, unknown>;
  chunks: ExportedChunk[];
  /** Its chunks were indexed with a situating context (title › headings), which import rebuilds. */
  contextual?: true;
}

export interface ExportPage {
  documents: ExportedDocument[];
  /** Live documents in the index. */
  total: number;
  /** The model the vectors come from; absent when no vectors were asked for or there is no embedder. */
  model?: { identity: string; dimension: number };
}

function vectorOf(view: IndexView, key: number, model: DenseModel): Float32Array | undefined {
  for (const seg of view.segments) {
    const local = localOf(seg, key);
    if (local < 0) continue;
    const v = segmentVectors(seg, model);
    return v ? v.vector(local) : undefined; // as stored (int8 codes · scale)
  }
  return undefined;
}

/** `ids` read from the store (in order; ids deleted meanwhile are skipped), vectors from `view`. */
export async function exportDocuments(store: IndexStore, view: IndexView, ids: readonly string[], model?: DenseModel): Promise<ExportedDocument[]> {
  const docs = await store.getDocuments([...ids]);
  const out: ExportedDocument[] = [];
  for (const doc of docs) {
    if (!doc) continue;
    let contextual = false;
    const chunks = (await store.getChunks(doc.chunkKeys)).flatMap((c) => {
      if (!c) return [];
      if (c.context) contextual = true;
      const chunk: ExportedChunk = { index: c.index, start: c.start, end: c.end };
      const v = model && vectorOf(view, c.key, model);
      if (v) chunk.vector = v;
      return [chunk];
    });
    chunks.sort((a, b) => a.index - b.index);
    const d: ExportedDocument = { id: doc.id, text: doc.text, meta: doc.meta, chunks };
    if (contextual) d.contextual = true;
    out.push(d);
  }
  return out;
}

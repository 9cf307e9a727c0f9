/**
 * The whole corpus as portable data (the `x-inpage/export` vendor method): documents with text,
 * meta, chunk ranges and, when asked, each chunk's vector from the running model. The vectors
 * are read from the live segments (no embedding); a chunk whose segment has none for this model
 * (not embedded yet) goes out without one and is embedded again on import.
 */
import type { HitFeedback, IndexStore, QuarantineEntry } from '../contracts.ts';
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
  /** What `feedback` recorded about its hits, by hit id (absent: nothing). */
  feedback?: Record<string, HitFeedback>;
  /** Held out of answers since an integrity signal (absent: not quarantined). */
  quarantine?: Omit<QuarantineEntry, 'id'>;
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

/**
 * `ids` read from the store (in order; ids deleted meanwhile are skipped), vectors from `view`,
 * with each document's feedback and, from `quarantine`, whether it is held out.
 */
export async function exportDocuments(store: IndexStore, view: IndexView, ids: readonly string[], model?: DenseModel, quarantine: readonly QuarantineEntry[] = []): Promise<ExportedDocument[]> {
  const docs = await store.getDocuments([...ids]);
  const feedback = store.getFeedback ? await store.getFeedback([...ids]) : [];
  const held = new Map(quarantine.map((e) => [e.id, e]));
  const out: ExportedDocument[] = [];
  for (const [i, doc] of docs.entries()) {
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
    const f = feedback[i];
    if (f && Object.keys(f.hits).length) d.feedback = f.hits;
    const q = held.get(doc.id);
    if (q) d.quarantine = { reasons: [...q.reasons], at: q.at };
    out.push(d);
  }
  return out;
}

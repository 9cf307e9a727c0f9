/**
 * Browsing the corpus (the `x-inpage/documents` and `x-inpage/document` vendor methods): a sorted
 * page of document summaries from in-memory state only, and one document with its text and chunk
 * ranges from the store. The shapes are the extension's wire types (src/protocol/inpage.ts).
 */
import type { InpageDocument, InpageDocumentSummary, InpageDocumentsResult } from '../../protocol/inpage.ts';
import { copyJson } from '../../protocol/json.ts';
import type { IndexStore } from '../contracts.ts';
import type { DocEntry, IndexView } from '../index/view.ts';
import { localOf, storedMeta } from '../index/view.ts';

export type DocumentSummary = InpageDocumentSummary;
export type DocumentDetail = InpageDocument;
export type DocumentPage = InpageDocumentsResult;

/** Text length of a document, read from the segment holding its first chunk (0 if none is loaded). */
function charsOf(view: IndexView, entry: DocEntry): number {
  const key = entry.chunkKeys[0];
  if (key === undefined) return 0;
  for (const seg of view.segments) {
    const local = localOf(seg, key);
    if (local >= 0) return seg.lex.docLengths[local];
  }
  return 0;
}

/** Summaries of `entries` against `view` (meta is cloned: callers may mutate results). */
export function summarize(view: IndexView, entries: readonly DocEntry[]): DocumentSummary[] {
  return entries.map((e) => {
    const s: DocumentSummary = { id: e.id, meta: copyJson(e.meta), chunks: e.chunkKeys.length, chars: charsOf(view, e) };
    if (typeof e.meta.title === 'string') s.title = e.meta.title;
    return s;
  });
}

/**
 * One document from the store, or undefined when absent. The chunk ranges come from the same
 * document record's chunk keys, so text and ranges always belong to one written version.
 */
export async function readDocument(store: IndexStore, id: string): Promise<DocumentDetail | undefined> {
  const [doc] = await store.getDocuments([id]);
  if (!doc) return undefined;
  const chunks = (await store.getChunks(doc.chunkKeys))
    .flatMap((c) => (c ? [{ index: c.index, start: c.start, end: c.end }] : []))
    .sort((a, b) => a.index - b.index);
  return { id: doc.id, text: doc.text, meta: storedMeta(doc.meta), chunks };
}

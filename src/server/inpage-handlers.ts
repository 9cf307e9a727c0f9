/**
 * The `x-inpage` vendor extension (§6.2): browse and clear the in-page corpus. Callable only while
 * the `x-inpage` capability is advertised (the session gates vendor methods on it).
 *
 *   x-inpage/documents  { offset?: int ≥ 0, limit?: 1..1000 = 100 } → { documents: [{ id, title?, meta, chunks, chars }], total }
 *   x-inpage/document   { id: string, offset?: int ≥ 0, length?: int ≥ 1 } → { id, text, meta, chunks: [{ index, start, end }] }   (-32015 when absent)
 *                       With `offset` or `length`, `text` is only the range [offset, offset + length) (clamped),
 *                       `chunks` only those overlapping it, and the result adds `offset`, `textLength` (the
 *                       whole text's length) and `chunkCount`, so a viewer can page through a huge document.
 *   x-inpage/facets     { field: string, limit?: 1..1000 = 100 } → { values: [{ value, count }], distinct }
 *                       (a metadata field's values with document counts, most frequent first: filter
 *                       builders offer them, since keyword filters match exactly)
 *   x-inpage/clear      {} → { deleted: int }   (acknowledged once the clear is durable)
 *   x-inpage/export     { offset?: int ≥ 0, limit?: 1..100 = 20, vectors?: bool = true }
 *                       → { documents: [{ id, text, meta, chunks: [{ index, start, end, vector? }] }], total, next?, model?: { identity, dimension }, encoding: "f32-base64" }
 *                       (the whole corpus, a page at a time, sorted by id; vectors as §7.3.1 f32-base64)
 *   x-inpage/import     { documents: [{ id, text, meta?, contextual?, chunks?: [{ start, end, vector }] }], model?: { identity, dimension } }
 *                       → { ids, chunks, vectorsReused, indexVersion }   (an upsert by id, indexed as it was
 *                       exported: chunked unless its one chunk is the whole text, with a context when
 *                       `contextual`; the given vectors are reused only when `model` is the running model
 *                       and every chunk's range matches, else the documents are embedded again)
 *   x-inpage/feedback   { id: string } → { id, hits: { [hitId]: counts } }   (what `feedback` recorded about a document's hits; {} when nothing)
 *   x-inpage/quarantine {} → { documents: [{ id, reasons, at, exists, title? }] }   (held out after an integrity signal, oldest first)
 *   x-inpage/release    { ids: string[] } → { released: int, indexVersion }   (back in answers; a write, a new version when any was held)
 *   x-inpage/map        { limit?: 2..5000 = 2000, include?: string[] (≤ 1000 hit ids), query?: string, communityLevel?: int ≥ 0 }
 *                       → { points: [{ id, doc, x, y, community? }], total, withVectors, model?, explained?, query?: { x, y }, indexVersion }
 *                       (a PCA projection of the stored vectors, computed here in the worker; with
 *                       `communityLevel`, each point names its `graph communities` id at that level)
 */
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError } from '../protocol/errors.ts';
import { optArray, optBool, optInt, optString, paramsObject, reqString, stringArray } from '../protocol/validate-kit.ts';
import type {
  InpageClearResult, InpageDocument, InpageDocumentRange, InpageDocumentsResult, InpageExportResult, InpageFacetsResult, InpageFeedbackResult,
  InpageImportResult, InpageMapResult, InpageQuarantineResult, InpageReleaseResult,
} from '../protocol/inpage.ts';
import { encodeF32Base64 } from '../protocol/vector-codec.ts';
import { engineReady, type ServedEngine, type VendorHandler } from './backend.ts';
import { importPlan, runImport } from './inpage-import.ts';

/** The capability advertising the extension's methods. */
export const INPAGE_CAPABILITIES = Object.freeze({
  'x-inpage': Object.freeze({ documents: true, clear: true, document: true, facets: true, export: true, import: true, map: true, feedback: true, quarantine: true, release: true }),
});

/** The `x-inpage` methods that write (they join the session's write ordering). */
export const INPAGE_WRITES: readonly string[] = Object.freeze(['x-inpage/clear', 'x-inpage/import', 'x-inpage/release']);

/** Deadlines of the extension's long methods (`Backend.deadlines`): an import re-embeds when its vectors are from another model, as long as index/add. */
export const INPAGE_DEADLINES: Readonly<Record<string, number>> = Object.freeze({ 'x-inpage/import': 600_000 });

/** Default and largest page of `x-inpage/export` (whole texts and vectors: smaller pages). */
export const EXPORT_DEFAULT_LIMIT = 20;
export const EXPORT_MAX_LIMIT = 100;

/** Default and largest sample of `x-inpage/map`, and the most hit ids it places besides. */
export const MAP_DEFAULT_LIMIT = 2000;
export const MAP_MAX_LIMIT = 5000;
export const MAP_MAX_INCLUDE = 1000;

/** Default and largest page of `x-inpage/documents`. */
export const DOCUMENTS_DEFAULT_LIMIT = 100;
export const DOCUMENTS_MAX_LIMIT = 1000;

export interface InpageHandlerOptions {
  /** Resolves to the opened engine; rejects if storage could not be opened. */
  engine: Promise<ServedEngine>;
}

type Ready = () => Promise<ServedEngine>;

/** The `x-inpage/*` handlers by full method name, for `Backend.vendorHandlers`. */
export function createInpageHandlers(opts: InpageHandlerOptions): Record<string, VendorHandler> {
  const ready = engineReady(opts.engine);
  return { ...browseHandlers(ready), ...transferHandlers(ready), ...corpusHandlers(ready), ...writeHandlers(ready) };
}

/** documents, document, facets: paging through the corpus. */
function browseHandlers(ready: Ready): Record<string, VendorHandler> {
  return {
    async 'x-inpage/documents'(raw) {
      const p = paramsObject(raw);
      const offset = optInt(p, 'offset', 'offset', { min: 0 }) ?? 0;
      const limit = optInt(p, 'limit', 'limit', { min: 1, max: DOCUMENTS_MAX_LIMIT }) ?? DOCUMENTS_DEFAULT_LIMIT;
      return (await ready()).documents(offset, limit);
    },

    async 'x-inpage/document'(raw) {
      const p = paramsObject(raw);
      const id = reqString(p, 'id');
      const offset = optInt(p, 'offset', 'offset', { min: 0 });
      const length = optInt(p, 'length', 'length', { min: 1 });
      const doc = await (await ready()).document(id);
      if (!doc) throw new RcpError(ErrorCode.NotFound, `document not found: ${id.slice(0, 64)}`, { field: 'id', detail: 'no document with this id' });
      return offset === undefined && length === undefined ? doc : documentRange(doc, offset ?? 0, length ?? doc.text.length);
    },

    async 'x-inpage/facets'(raw) {
      const p = paramsObject(raw);
      const field = reqString(p, 'field', 'field', { nonEmpty: true });
      const limit = optInt(p, 'limit', 'limit', { min: 1, max: DOCUMENTS_MAX_LIMIT }) ?? DOCUMENTS_DEFAULT_LIMIT;
      return (await ready()).facets(field, limit);
    },
  };
}

/** export and import: the whole corpus out a page at a time, and back in (src/server/inpage-import.ts). */
function transferHandlers(ready: Ready): Record<string, VendorHandler> {
  return {
    async 'x-inpage/export'(raw): Promise<InpageExportResult> {
      const p = paramsObject(raw);
      const offset = optInt(p, 'offset', 'offset', { min: 0 }) ?? 0;
      const limit = optInt(p, 'limit', 'limit', { min: 1, max: EXPORT_MAX_LIMIT }) ?? EXPORT_DEFAULT_LIMIT;
      const vectors = optBool(p, 'vectors') ?? true;
      const page = await (await ready()).exportDocuments(offset, limit, vectors);
      const out: InpageExportResult = {
        documents: page.documents.map((d) => ({ ...d, chunks: d.chunks.map((c) => (c.vector ? { ...c, vector: encodeF32Base64(c.vector) } : { index: c.index, start: c.start, end: c.end })) })),
        total: page.total,
        encoding: 'f32-base64',
      };
      if (offset + limit < page.total) out.next = offset + limit;
      if (page.model) out.model = page.model;
      return out;
    },

    async 'x-inpage/import'(raw, ctx): Promise<InpageImportResult> {
      const plan = importPlan(paramsObject(raw));
      return runImport(await ready(), plan, ctx);
    },
  };
}

/** map, feedback, quarantine: what the corpus looks like and what was learnt about it. */
function corpusHandlers(ready: Ready): Record<string, VendorHandler> {
  return {
    async 'x-inpage/map'(raw, ctx): Promise<InpageMapResult> {
      const p = paramsObject(raw);
      const limit = optInt(p, 'limit', 'limit', { min: 2, max: MAP_MAX_LIMIT }) ?? MAP_DEFAULT_LIMIT;
      const includeRaw = optArray(p, 'include');
      if (includeRaw && includeRaw.length > MAP_MAX_INCLUDE) throw new RcpError(ErrorCode.InvalidParams, `include: at most ${MAP_MAX_INCLUDE} ids`, { field: 'include' });
      const include = includeRaw ? stringArray(includeRaw, 'include') : undefined;
      const query = optString(p, 'query');
      const communityLevel = optInt(p, 'communityLevel', 'communityLevel', { min: 0 });
      return (await ready()).corpusMap({ limit, include, query: query?.trim() ? query : undefined, communityLevel, signal: ctx.signal });
    },

    async 'x-inpage/feedback'(raw): Promise<InpageFeedbackResult> {
      const id = reqString(paramsObject(raw), 'id', 'id', { nonEmpty: true });
      const record = await (await ready()).documentFeedback(id);
      return { id, hits: record?.hits ?? {} };
    },

    async 'x-inpage/quarantine'(raw): Promise<InpageQuarantineResult> {
      paramsObject(raw);
      return { documents: await (await ready()).quarantine() };
    },
  };
}

/** release and clear: the writes besides import (INPAGE_WRITES). */
function writeHandlers(ready: Ready): Record<string, VendorHandler> {
  return {
    async 'x-inpage/release'(raw, ctx): Promise<InpageReleaseResult> {
      const ids = stringArray(optArray(paramsObject(raw), 'ids') ?? [], 'ids');
      const out = await (await ready()).release(ids, { signal: ctx.signal });
      ctx.log('info', `x-inpage/release: ${out.released} document(s) back in answers`);
      return out;
    },

    async 'x-inpage/clear'(raw, ctx): Promise<InpageClearResult> {
      paramsObject(raw);
      const { deleted } = await (await ready()).clear({ signal: ctx.signal });
      ctx.log('info', `x-inpage/clear: ${deleted} documents removed`);
      return { deleted };
    },
  };
}

/** The part of a document a viewer asked for: text in [offset, offset + length) and the chunks overlapping it. */
export function documentRange(doc: InpageDocument, offset: number, length: number): InpageDocumentRange {
  const start = Math.min(offset, doc.text.length);
  const end = Math.min(doc.text.length, start + length);
  return {
    id: doc.id,
    text: doc.text.slice(start, end),
    meta: doc.meta,
    chunks: doc.chunks.filter((c) => c.end > start && c.start < end),
    offset: start,
    textLength: doc.text.length,
    chunkCount: doc.chunks.length,
  };
}


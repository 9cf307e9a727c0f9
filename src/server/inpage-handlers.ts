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
 */
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError } from '../protocol/errors.ts';
import { optInt, paramsObject, reqString } from '../protocol/validate-kit.ts';
import type { InpageClearResult, InpageDocument, InpageDocumentRange, InpageDocumentsResult, InpageFacetsResult } from '../protocol/inpage.ts';
import type { VendorHandler } from './backend.ts';
import { engineReady } from './engine-ready.ts';

/** What the extension needs from the engine (src/engine's Engine implements it). */
export interface InpageEngine {
  documents(offset: number, limit: number): Promise<InpageDocumentsResult>;
  document(id: string): Promise<InpageDocument | undefined>;
  clear(opts: { signal?: AbortSignal }): Promise<InpageClearResult>;
  facets(field: string, limit: number): Promise<InpageFacetsResult>;
}

/** The capability advertising the three methods. */
export const INPAGE_CAPABILITIES = Object.freeze({ 'x-inpage': Object.freeze({ documents: true, clear: true, document: true, facets: true }) });

/** The `x-inpage` methods that write (they join the session's write ordering). */
export const INPAGE_WRITES: readonly string[] = Object.freeze(['x-inpage/clear']);

/** Default and largest page of `x-inpage/documents`. */
export const DOCUMENTS_DEFAULT_LIMIT = 100;
export const DOCUMENTS_MAX_LIMIT = 1000;

export interface InpageHandlerOptions {
  /** Resolves to the opened engine; rejects if storage could not be opened. */
  engine: Promise<InpageEngine>;
  /** Maps storage failures (as the engine backend does); unmapped open failures are -32010. */
  mapError?(e: unknown): RcpError | undefined;
}

/** The `x-inpage/*` handlers by full method name, for `Backend.vendorHandlers`. */
export function createInpageHandlers(opts: InpageHandlerOptions): Record<string, VendorHandler> {
  const ready = engineReady(opts.engine, opts.mapError);
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

/** `x-inpage/document` with a range: a slice of the text and where it sits in the whole. */

/**
 * Typed calls to this engine's vendor extension `x-inpage` (document listing, document text,
 * clearing the index). They exist only when the server advertises the `x-inpage` capability;
 * callers must check `hasInpage(client)` first and degrade when it is absent.
 */
import type {
  InpageClearResult, InpageDocument, InpageDocumentRange, InpageDocumentsResult, InpageExportDocument, InpageExportResult, InpageFacetsResult,
  InpageFeedbackResult, InpageImportResult, InpageMapResult, InpageModelIdentity, InpageQuarantineResult, InpageReleaseResult,
} from '../protocol/inpage.ts';
import type { CallOptions, RcpClient } from './rcp-client.ts';

export type {
  InpageClearResult,
  InpageDocument,
  InpageDocumentRange,
  InpageDocumentSummary,
  InpageDocumentsResult,
  InpageExportDocument,
  InpageExportResult,
  InpageFacetsResult,
  InpageFeedbackResult,
  InpageHitFeedback,
  InpageImportResult,
  InpageMapResult,
  InpageModelIdentity,
  InpageQuarantined,
  InpageQuarantineResult,
  InpageReleaseResult,
} from '../protocol/inpage.ts';

/** The vendor capability key. */
export const INPAGE_CAPABILITY = 'x-inpage';

/** Whether the connected server advertises the `x-inpage` methods. */
export const hasInpage = (client: RcpClient): boolean => client.capabilities?.[INPAGE_CAPABILITY] !== undefined;

/** `RcpClient.request` typed for method names outside the RCP/1 table (vendor methods pass its gate). */
type LooseRequest = (method: string, params: Record<string, unknown>, options?: CallOptions) => Promise<unknown>;
const call = <R>(client: RcpClient, method: string, params: Record<string, unknown>, options?: CallOptions) =>
  (client.request as unknown as LooseRequest).call(client, method, params, options) as Promise<R>;

export const listDocuments = (client: RcpClient, params: { offset?: number; limit?: number } = {}, options?: CallOptions) =>
  call<InpageDocumentsResult>(client, 'x-inpage/documents', params, options);

export const getDocument = (client: RcpClient, id: string, options?: CallOptions) => call<InpageDocument>(client, 'x-inpage/document', { id }, options);

/** A range of a document's text (`[offset, offset + length)`, clamped) with the chunks overlapping it and the whole text's length. */
export const getDocumentRange = (client: RcpClient, id: string, offset: number, length: number, options?: CallOptions) =>
  call<InpageDocumentRange>(client, 'x-inpage/document', { id, offset, length }, options);

/** A metadata field's values with document counts, most frequent first. */
export const facetValues = (client: RcpClient, field: string, limit = 100, options?: CallOptions) =>
  call<InpageFacetsResult>(client, 'x-inpage/facets', { field, limit }, options);

export const clearIndex = (client: RcpClient, options?: CallOptions) => call<InpageClearResult>(client, 'x-inpage/clear', {}, options);

/** A page of whole documents (text, meta, chunk ranges, vectors from the running model) for a portable export. */
export const exportPage = (client: RcpClient, params: { offset?: number; limit?: number; vectors?: boolean } = {}, options?: CallOptions) =>
  call<InpageExportResult>(client, 'x-inpage/export', params, options);

/** Upserts exported documents; their vectors are reused when `model` is the running model. */
export const importPage = (client: RcpClient, documents: InpageExportDocument[], model?: InpageModelIdentity, options?: CallOptions) =>
  call<InpageImportResult>(client, 'x-inpage/import', model ? { documents, model } : { documents }, options);

/** The corpus on two principal axes (computed in the worker), with `include` hits and the query placed; `communityLevel` tags each point with its graph community. */
export const corpusMap = (client: RcpClient, params: { limit?: number; include?: string[]; query?: string; communityLevel?: number } = {}, options?: CallOptions) =>
  call<InpageMapResult>(client, 'x-inpage/map', params, options);

/** What `feedback` recorded about one document's hits. */
export const documentFeedback = (client: RcpClient, id: string, options?: CallOptions) => call<InpageFeedbackResult>(client, 'x-inpage/feedback', { id }, options);

/** The documents held out of answers after an integrity signal, oldest first. */
export const quarantined = (client: RcpClient, options?: CallOptions) => call<InpageQuarantineResult>(client, 'x-inpage/quarantine', {}, options);

/** Puts quarantined documents back in answers. */
export const release = (client: RcpClient, ids: string[], options?: CallOptions) => call<InpageReleaseResult>(client, 'x-inpage/release', { ids }, options);

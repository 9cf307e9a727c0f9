/**
 * The `rcp-in-page` package: an in-page RCP/1 retrieval engine in a Web Worker, the RCP client
 * that talks to it, and §16 federation over it and other RCP servers.
 */
export { createInPageEngine, InPageEngine, type InPageEngineOptions } from '../client/in-page-engine.ts';
export { RcpClient, type CallOptions, type ClientOptions } from '../client/rcp-client.ts';
export { clearIndex, getDocument, hasInpage, listDocuments, type InpageDocument, type InpageDocumentsResult, type InpageDocumentSummary } from '../client/inpage.ts';
export { RcpError, type ErrorData } from '../protocol/errors.ts';
export { ErrorCode } from '../protocol/codes.ts';
export type { ControlApi, EngineConfig, ModelStatus, WorkerStatus } from '../protocol/control.ts';
export type { DocumentDetail, DocumentPage, DocumentSummary } from '../engine/query/documents.ts';
export type { Transport } from '../transport/transport.ts';
export type * from '../protocol/types.ts';
export {
  Federation,
  DEFAULT_FEDERATION_DEADLINE_MS,
  DEFAULT_FEDERATION_DEPTH,
  type EngineOutcome,
  type EngineState,
  type FederatedCallOptions,
  type FederatedResult,
  type FederationOptions,
} from '../client/federation/federation.ts';
export { enginesFromRegistry, type EngineEntry, type EngineSpec } from '../client/federation/engines.ts';
export type { FederatedFusion } from '../client/federation/fuse-hits.ts';
export { HttpTransport, type HttpTransportOptions } from '../transport/http-transport.ts';

/**
 * Wire shapes of this engine's vendor extension `x-inpage` (§6.2): results of
 * `x-inpage/documents`, `x-inpage/document` (whole or a range), `x-inpage/facets` and `x-inpage/clear`. Types only: the engine produces
 * them, the server sends them as they are, the client reads them.
 */

/** A document as listed: no text, only what the engine keeps in memory. */
export interface InpageDocumentSummary {
  id: string;
  /** `meta.title` when it is a string. */
  title?: string;
  meta: Record<string, unknown>;
  /** Number of chunks. */
  chunks: number;
  /** Length of the document text in UTF-16 code units. */
  chars: number;
}

/** `x-inpage/documents`: a page of summaries sorted by id. */
export interface InpageDocumentsResult {
  documents: InpageDocumentSummary[];
  /** Live documents in the index. */
  total: number;
}

/** `x-inpage/document`: one document with its full text and the `[start, end)` range of each chunk, in chunk order. */
export interface InpageDocument {
  id: string;
  text: string;
  meta: Record<string, unknown>;
  chunks: { index: number; start: number; end: number }[];
}

/** `x-inpage/clear`: how many documents were removed (acknowledged once the clear is durable). */
export interface InpageClearResult {
  deleted: number;
}

/** `x-inpage/document` with `offset`/`length`: a window of the text with the chunks overlapping it. */
export interface InpageDocumentRange extends InpageDocument {
  /** Where `text` starts in the document. */
  offset: number;
  /** Length of the whole document text (UTF-16 code units). */
  textLength: number;
  /** Chunks of the whole document. */
  chunkCount: number;
}

/** One value of a metadata field with the number of live documents holding it. */
export interface InpageFacetValue {
  value: string | number | boolean;
  count: number;
}

/** `x-inpage/facets`: a field's values, most frequent first, and how many distinct values exist. */
export interface InpageFacetsResult {
  values: InpageFacetValue[];
  distinct: number;
}

/** The model a set of exported vectors comes from; vectors are reused on import only for the same identity and dimension. */
export interface InpageModelIdentity {
  identity: string;
  dimension: number;
}

/** One chunk in an export: its range and, when the running model embedded it, its vector (f32-base64, §7.3.1). */
export interface InpageExportChunk {
  index: number;
  start: number;
  end: number;
  vector?: string;
}

export interface InpageExportDocument {
  id: string;
  text: string;
  meta: Record<string, unknown>;
  chunks: InpageExportChunk[];
  /** Indexed with a situating context (title › headings); an import indexes it the same way. */
  contextual?: boolean;
}

/** `x-inpage/export`: a page of whole documents sorted by id; `next` is the offset of the following page. */
export interface InpageExportResult {
  documents: InpageExportDocument[];
  total: number;
  next?: number;
  /** Present when vectors were asked for and the engine has a model. */
  model?: InpageModelIdentity;
  encoding: 'f32-base64';
}

/** `x-inpage/import`: documents upserted by id; `vectorsReused` chunks took their given vector instead of being embedded. */
export interface InpageImportResult {
  ids: string[];
  chunks: number;
  vectorsReused: number;
  indexVersion: string;
}

/** `x-inpage/map`: passages on the first two principal axes of their vectors, coloured by `doc` in a viewer. */
export interface InpageMapResult {
  /** `community`: the point's `graph communities` id at the `communityLevel` asked for (absent: not in the graph). */
  points: { id: string; doc: string; x: number; y: number; community?: string }[];
  /** Live passages in the index. */
  total: number;
  /** Of those, how many have a vector from the running model. */
  withVectors: number;
  model?: InpageModelIdentity;
  /** Share of the sample's variance on each axis. */
  explained?: [number, number];
  /** Where the query lands, when one was given (and the model could embed it). */
  query?: { x: number; y: number };
  /** The index version mapped. */
  indexVersion?: string;
}

/** `x-inpage/feedback`: how often each `feedback` signal came for one hit (the wire form of the engine's counts). */
export interface InpageHitFeedback {
  helpful: number;
  unhelpful: number;
  used: number;
  cited: number;
  /** Sum and count of the `reward` values (their mean is rewardSum / rewards). */
  rewardSum: number;
  rewards: number;
  poisonSuspected: number;
  injectionSuspected: number;
  /** ms since the epoch of the last signal. */
  last: number;
}

/** `x-inpage/feedback`: what `feedback` recorded about one document's hits, by hit id ({} when nothing). */
export interface InpageFeedbackResult {
  id: string;
  hits: Record<string, InpageHitFeedback>;
}

/** One document held out of answers after an integrity signal (`x-inpage/quarantine`). */
export interface InpageQuarantined {
  id: string;
  reasons: ('poisonSuspected' | 'injectionSuspected')[];
  /** ms since the epoch when it was quarantined. */
  at: number;
  /** Whether the document is still in the index (a deleted one stays listed until released). */
  exists: boolean;
  title?: string;
}

export interface InpageQuarantineResult {
  documents: InpageQuarantined[];
}

export interface InpageReleaseResult {
  released: number;
  indexVersion: string;
}

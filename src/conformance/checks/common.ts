/** What several checks share: a cheap read-only gated call, the probe corpus, hits of a result. */
import { isObject } from '../../protocol/json.ts';
import type { Capabilities } from '../../protocol/types.ts';

/** A cheap, read-only request to a capability-gated method the server advertises (retrieve first). */
export function gatedCall(caps: Capabilities | undefined): { method: string; params: Record<string, unknown> } {
  const c = caps ?? {};
  if (c.retrieve) return { method: 'retrieve', params: { query: 'conformance', k: 1 } };
  if (c.embed) return { method: 'embed', params: { inputs: ['conformance'] } };
  if (c.rerank) return { method: 'rerank', params: { query: 'conformance', passages: ['a passage'] } };
  if (c.sparseEmbed) return { method: 'embed/sparse', params: { texts: ['conformance'] } };
  if (c.transform?.methods?.length) return { method: 'query/transform', params: { query: 'conformance', method: c.transform.methods[0] } };
  if (c.graph?.ops?.length) return { method: 'graph', params: { op: c.graph.ops[0], query: 'conformance' } };
  return { method: 'retrieve', params: { query: 'conformance', k: 1 } };
}

/** Ids of the documents the run writes (and deletes): a prefix no real corpus uses. */
export const PROBE_PREFIX = 'rcp-conformance-probe:';

/** Four short documents (one chunk each) with words no real corpus is likely to hold together. */
export const PROBE_DOCS = [
  { id: `${PROBE_PREFIX}1`, text: 'The quokka conformance probe nibbles leaves in the Zephyrine valley at dawn.' },
  { id: `${PROBE_PREFIX}2`, text: 'A quokka and a wombat share the Zephyrine meadow in the conformance probe.' },
  { id: `${PROBE_PREFIX}3`, text: 'Unicode probe: 東京 日本語 العربية émigré naïve 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🦘 kangaroo.' },
  { id: `${PROBE_PREFIX}4`, text: 'Nothing about marsupials here, only a xylograph of lighthouses.' },
] as const;

/** The query the probe documents answer (two of them hold it). */
export const PROBE_QUERY = 'quokka zephyrine';

/** The hits of a retrieve result, when it has a hits array. */
export function hitsOf(result: Record<string, unknown> | undefined): Record<string, unknown>[] | undefined {
  const hits = result?.hits;
  return Array.isArray(hits) ? (hits as unknown[]).filter(isObject) : undefined;
}

/** The document a hit comes from: `chunk.docId`, else `citation.source`, else the hit id. */
export function docOf(hit: Record<string, unknown>): string {
  if (isObject(hit.chunk) && typeof hit.chunk.docId === 'string') return hit.chunk.docId;
  if (isObject(hit.citation) && typeof hit.citation.source === 'string') return hit.citation.source;
  return String(hit.id);
}

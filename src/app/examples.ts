/**
 * Ready-to-send JSON-RPC examples for the console: one per method the server advertises (from the
 * initialize result), plus deliberately bad requests that show what an RCP error looks like.
 */
import { INPAGE_CAPABILITY } from '../client/inpage.ts';
import { METHOD_GATES } from '../protocol/methods.ts';
import type { InitializeResult, Method } from '../protocol/types.ts';

export interface Example {
  label: string;
  /** The exact text sent (ids are rewritten per send, see `withFreshId`). */
  text: string;
}

const frame = (method: string, params: unknown, id: string | number = 'console') => JSON.stringify({ jsonrpc: '2.0', id, method, params }, null, 2);

/** A working params example per method (the console examples and the schema forms start from these). */
export const EXAMPLE_PARAMS: Partial<Record<Method, unknown>> = {
  initialize: { protocolVersion: 1, client: { name: 'console', version: '1' } },
  info: {},
  ping: { nonce: 'hello' },
  retrieve: { query: 'white whale', k: 3, includeText: true },
  'index/add': { documents: [{ id: 'console-1', text: 'A note added from the RCP console about harpoons and lances.', meta: { title: 'Console note', tags: ['console'] } }], chunk: true },
  'index/delete': { ids: ['console-1'] },
  embed: { inputs: ['Call me Ishmael.'], kind: 'query' },
  'embed/sparse': { texts: ['Call me Ishmael.'], kind: 'query' },
  'embed/multi': { inputs: ['the white whale'], kind: 'query' },
  rerank: { query: 'whale hunting', passages: ['The harpooneer struck the whale.', 'Congress shall assemble once a year.'] },
  'query/transform': { query: 'whale', method: 'multi-query', n: 3 },
  graph: { op: 'local', query: 'whale', k: 5 },
  'catalog/list': {},
  feedback: { query: 'whale', signals: [] },
  'memory/build': {},
  'memory/recall': { query: 'whale' },
};

/** Examples for everything `init` advertises, in a stable order. */
export function examplesFor(init: InitializeResult): Example[] {
  const caps = init.capabilities;
  const out: Example[] = [];
  for (const [method, gate] of Object.entries(METHOD_GATES) as [Method, string | null][]) {
    if (method === 'shutdown') continue; // listed last: it ends the session
    if (gate !== null && (caps as Record<string, unknown>)[gate] === undefined) continue;
    out.push({ label: method, text: frame(method, EXAMPLE_PARAMS[method] ?? {}) });
  }
  const r = caps.retrieve;
  if (r?.modes?.includes('hybrid')) {
    out.push({
      label: 'retrieve (hybrid, weighted fusion, MMR)',
      text: frame('retrieve', { query: 'freedom and liberty', k: 5, mode: 'hybrid', fusion: r.fusion?.includes('weighted') ? { method: 'weighted' } : undefined, mmr: r.mmr ? { lambda: 0.7 } : undefined }),
    });
  }
  const fields = caps.filter?.fields;
  if (fields && !Array.isArray(fields) && fields.year === 'int') {
    out.push({ label: 'retrieve (filter: year ≥ 1900)', text: frame('retrieve', { query: 'war', k: 3, filter: { field: 'year', op: 'gte', value: 1900 } }) });
  }
  if (caps[INPAGE_CAPABILITY] !== undefined) {
    out.push({ label: 'x-inpage/documents', text: frame('x-inpage/documents', { offset: 0, limit: 5 }) });
    out.push({ label: 'x-inpage/document', text: frame('x-inpage/document', { id: 'moby-dick-chapter-1' }) });
    out.push({ label: 'x-inpage/clear (deletes every document!)', text: frame('x-inpage/clear', {}) });
  }
  out.push({ label: 'notifications/cancel (a notification: no answer)', text: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancel', params: { id: 'console', reason: 'demo' } }, null, 2) });
  out.push({ label: 'batch: two pings', text: JSON.stringify([{ jsonrpc: '2.0', id: 'console-a', method: 'ping', params: {} }, { jsonrpc: '2.0', id: 'console-b', method: 'ping', params: { nonce: 2 } }], null, 2) });
  out.push({ label: 'bad request: invalid params (k = -1)', text: frame('retrieve', { query: 'whale', k: -1 }) });
  out.push({ label: 'bad request: filter on an unknown field', text: frame('retrieve', { query: 'whale', filter: { field: 'colour', op: 'eq', value: 'white' } }) });
  out.push({ label: 'bad request: unknown method', text: frame('no/such-method', {}) });
  out.push({ label: 'bad request: not JSON', text: '{"jsonrpc": "2.0", "id": "console", "method": ' });
  out.push({ label: 'shutdown (ends this page’s session — reload after)', text: frame('shutdown', {}) });
  return out;
}

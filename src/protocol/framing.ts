import { isObject } from './json.ts';

/**
 * Why a JSON value without `id` is not a notification (§4.5: `jsonrpc: "2.0"` and a string
 * `method`), or undefined when it is one. Anything else without an id is answered -32600 with
 * `id: null` (JSON-RPC 2.0, §11). §5.3's compact `{method, params}` envelope is not accepted (a
 * MAY): with no id it could never be answered, so it gets -32600 like every other malformed frame.
 */
export function notificationProblem(msg: Record<string, unknown>): string | undefined {
  if (msg.jsonrpc === '2.0' && typeof msg.method === 'string') return undefined;
  if (typeof msg.method === 'string' && !('jsonrpc' in msg)) {
    return 'the compact {method, params} envelope is not accepted; send a JSON-RPC 2.0 request with an id (§5.3)';
  }
  if (msg.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  return 'method must be a string';
}

/**
 * True for a frame the server never answers (a well-formed notification, §4.5). A transport that
 * must know whether an answer is coming (the HTTP bridge: 204 or wait) asks this, not `'id' in msg`.
 */
export const isNotification = (msg: unknown): boolean =>
  isObject(msg) && !('id' in msg) && notificationProblem(msg) === undefined;

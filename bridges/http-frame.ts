/**
 * What an HTTP request body is, in JSON-RPC terms, before it reaches a session: which answers it
 * is owed, keyed by id, or the answer the transport gives itself (§5.2's 400 row) because the
 * body is no JSON-RPC message at all. Pure: no I/O.
 */
import { isNotification, notificationProblem } from '../src/protocol/framing.ts';
import { isObject, isValidId } from '../src/protocol/json.ts';

/** The key an id is correlated by (`1` and `"1"` differ). */
export const idKey = (id: unknown): string => JSON.stringify(id);

export interface RequestInfo {
  key: string;
  method: string;
  /** `_meta.progressToken`, keyed like ids: progress and log frames for it belong to this request. */
  token?: string;
}

export type Classified =
  /** One request with a valid id: answered by the frame bearing that id. */
  | { kind: 'request'; request: RequestInfo }
  /** A well-formed notification: forwarded, never answered (HTTP 204). */
  | { kind: 'notification'; method: string; params: unknown }
  /**
   * A batch. `requests` are its members with a valid id; `unanswerable` counts members that are
   * neither a request nor a notification (each owed a -32600 with id null, §11).
   */
  | { kind: 'batch'; requests: RequestInfo[]; unanswerable: number; notifications: number }
  /** Answered by the transport with `body` and `status`, forwarding nothing: not a JSON-RPC message, or a path/method mismatch. */
  | { kind: 'reject'; status: number; body: unknown };

export const rpcError = (code: number, message: string, id: unknown = null, data?: { detail: string }) => ({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } });

/**
 * Classifies a parsed body. `urlMethod` is the method named by the path ('' for `POST <base>`);
 * §5.2: it must match the body's method.
 */
export function classify(body: unknown, urlMethod: string): Classified {
  if (Array.isArray(body)) {
    if (body.length === 0) return reject(-32600, 'invalid request: empty batch');
    const requests: RequestInfo[] = [];
    let unanswerable = 0;
    let notifications = 0;
    for (const m of body) {
      if (isObject(m) && 'id' in m && isValidId(m.id)) requests.push(info(m, m.id));
      else if (isNotification(m)) notifications++;
      else unanswerable++;
    }
    return { kind: 'batch', requests, unanswerable, notifications };
  }
  if (!isObject(body)) return reject(-32600, 'invalid request: not a JSON-RPC object');
  if (!('id' in body)) {
    // The same verdict and words as the server's (src/protocol/framing.ts): over HTTP as over stdio.
    const problem = notificationProblem(body);
    if (problem) return { kind: 'reject', status: 400, body: rpcError(-32600, `invalid request: ${problem}`, null, { detail: problem }) };
    if (urlMethod !== '' && body.method !== urlMethod) return reject(-32600, `invalid request: path method '${short(urlMethod)}' does not match body method`);
    return { kind: 'notification', method: body.method as string, params: body.params };
  }
  if (!isValidId(body.id)) return reject(-32600, 'invalid request: id must be a string or a finite number');
  if (urlMethod !== '' && body.method !== urlMethod) {
    // A well-formed JSON-RPC error: HTTP 200 (§5.2), echoing the id.
    return { kind: 'reject', status: 200, body: rpcError(-32600, `invalid request: path method '${short(urlMethod)}' does not match body method`, body.id) };
  }
  return { kind: 'request', request: info(body, body.id) };
}

/** A -32600 for every unanswerable batch member: the whole answer when no member has an id. */
export function unanswerableEntries(n: number): unknown[] {
  return Array.from({ length: n }, () => rpcError(-32600, 'invalid request: batch member is neither a request nor a notification'));
}

function info(m: Record<string, unknown>, id: string | number): RequestInfo {
  const meta = isObject(m.params) && isObject(m.params._meta) ? m.params._meta : undefined;
  const token = meta && isValidId(meta.progressToken) ? idKey(meta.progressToken) : undefined;
  return { key: idKey(id), method: typeof m.method === 'string' ? m.method : '', ...(token ? { token } : {}) };
}

const reject = (code: number, message: string): Classified => ({ kind: 'reject', status: 400, body: rpcError(code, message) });
const short = (s: string) => (s.length > 64 ? `${s.slice(0, 64)}…` : s);

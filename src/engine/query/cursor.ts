/**
 * Opaque retrieve cursors (§10). A cursor names the index version it pages through, the offset of
 * the next page, a hash of the request that produced it and, when the request carried a
 * `sessionId`, the session sequence number the page chain started at (so dedup stays stable
 * across pages). Malformed, foreign (different params) or expired (version gone) ⇒ -32015.
 */
import { RcpError } from '../../protocol/errors.ts';
import { ErrorCode } from '../../protocol/codes.ts';
import type { RetrieveParams } from '../../protocol/types.ts';
import { canonicalJson } from '../../util/canonical-json.ts';

export interface CursorState {
  /** Index version the chain pages through. */
  version: number;
  offset: number;
  hash: string;
  /** Session sequence the chain started at. */
  session?: number;
}

const notFound = (detail: string): RcpError => new RcpError(ErrorCode.NotFound, `cursor not found: ${detail}`, { field: 'cursor', detail });

/** FNV-1a (two 32-bit lanes) of the request minus `cursor`, `indexVersion` and `_meta`. */
export function paramsHash(params: RetrieveParams): string {
  const { cursor: _c, _meta: _m, indexVersion: _v, ...rest } = params;
  const text = canonicalJson(rest);
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return (h1 >>> 0).toString(36) + (h2 >>> 0).toString(36);
}

const toB64Url = (s: string): string => btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const fromB64Url = (s: string): string => atob(s.replace(/-/g, '+').replace(/_/g, '/'));

export function encodeCursor(c: CursorState): string {
  return toB64Url(JSON.stringify([1, c.version, c.offset, c.hash, c.session ?? null]));
}

/** Decodes a cursor; throws -32015 when it is malformed. */
export function decodeCursor(text: string): CursorState {
  let v: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('bad alphabet');
    v = JSON.parse(fromB64Url(text));
  } catch {
    throw notFound('malformed cursor');
  }
  const ok =
    Array.isArray(v) &&
    v.length === 5 &&
    v[0] === 1 &&
    Number.isSafeInteger(v[1]) &&
    Number.isSafeInteger(v[2]) &&
    v[2] >= 0 &&
    typeof v[3] === 'string' &&
    (v[4] === null || Number.isSafeInteger(v[4]));
  if (!ok) throw notFound('malformed cursor');
  const arr = v as [1, number, number, string, number | null];
  return { version: arr[1], offset: arr[2], hash: arr[3], ...(arr[4] !== null ? { session: arr[4] } : {}) };
}

export { notFound as cursorNotFound };

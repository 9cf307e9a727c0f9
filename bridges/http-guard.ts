/**
 * Who may talk to the HTTP bridge. The bridge exposes the whole index (read, write, clear) to
 * whoever reaches it, so it trusts only loopback clients that are not a web page in disguise:
 * - `Host` must name loopback, which defeats DNS rebinding (a page on evil.example whose name
 *   was re-pointed at 127.0.0.1 still sends `Host: evil.example`);
 * - a browser's `Origin` must be one the operator allowed (`--allow-origin`), so no web page can
 *   read or write through a visitor's browser;
 * - POST bodies must be `application/json`, which a page can only send after a CORS preflight;
 * - with a bearer token configured, every request must carry it (§5.2: auth before `initialize`).
 * Pure functions over header values: unit-testable without a socket.
 */
import { timingSafeEqual } from 'node:crypto';

export interface GuardOptions {
  /** Origins allowed to call from a browser (exact `scheme://host[:port]`). */
  allowOrigins: ReadonlySet<string>;
  /** When set, `Authorization: Bearer <token>` is required. */
  token?: string;
}

export interface Refusal {
  status: 401 | 403 | 415;
  message: string;
  headers?: Record<string, string>;
}

export interface RequestHead {
  method: string;
  host?: string;
  origin?: string;
  authorization?: string;
  contentType?: string;
}

const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

/** True when `host` (a Host header value) names the loopback interface. */
export function isLoopbackHost(host: string | undefined): boolean {
  return host !== undefined && LOOPBACK_HOST.test(host.trim());
}

/** A browser origin that may call, or undefined (no Origin header = not a browser page: fine). */
export function originAllowed(origin: string | undefined, opts: GuardOptions): boolean {
  return origin === undefined || opts.allowOrigins.has(origin);
}

/** The reason to refuse a request before reading its body, or undefined to let it through. */
export function refuse(head: RequestHead, opts: GuardOptions): Refusal | undefined {
  if (!isLoopbackHost(head.host)) return { status: 403, message: 'forbidden: the Host header must name loopback (localhost, 127.0.0.1 or [::1])' };
  if (!originAllowed(head.origin, opts)) return { status: 403, message: `forbidden: origin ${head.origin} is not allowed (start the bridge with --allow-origin ORIGIN)` };
  if (head.method === 'OPTIONS') return undefined; // a preflight carries no credentials
  if (opts.token !== undefined && !bearerMatches(head.authorization, opts.token)) {
    return { status: 401, message: 'unauthorized: send Authorization: Bearer <token>', headers: { 'WWW-Authenticate': 'Bearer realm="rcp"' } };
  }
  if (head.method === 'POST' && !isJson(head.contentType)) return { status: 415, message: 'unsupported media type: send Content-Type: application/json' };
  return undefined;
}

/** CORS headers for an allowed browser origin (never `*`); none for non-browser clients. */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  if (origin === undefined) return { Vary: 'Origin' };
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': 'POST, OPTIONS',
    'Access-Control-Allow-Headers': 'Content-Type, Accept, Authorization, RCP-Session',
    'Access-Control-Max-Age': '600',
    Vary: 'Origin',
  };
}

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';')[0].trim().toLowerCase() === 'application/json';
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1]);
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want); // constant time: no guessing by timing
}

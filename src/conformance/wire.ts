/**
 * The checker's view of a connection: send one frame, get back what the server sent for it.
 * Two shapes exist. A stream (stdio §5.1, the in-page MessagePort) carries frames both ways at
 * any time, so an exchange waits for the answer with the expected id (or, for a notification, a
 * quiet window) and keeps whatever else arrived meanwhile. HTTP (§5.2) answers each POST with one
 * body. Either way a fault (unreachable, timed out, not JSON-RPC, too large) is reported as data,
 * never thrown, so a broken server becomes a failed check with its reason.
 */
import type { Id } from '../protocol/types.ts';

/** What an exchange waits for. */
export type Expect =
  /**
   * The response to one request: the frame whose `id` equals this (null: an unparseable request's
   * answer); `alsoNull` also takes an answer with `id: null` (a request whose id a server may not trust).
   */
  | { kind: 'response'; id: Id | null; alsoNull?: boolean }
  /** The answer to a batch: an array (or, for an empty batch, a single -32600 object). */
  | { kind: 'batch' }
  /** Nothing at all: a notification, or a batch of notifications. */
  | { kind: 'silence' };

export interface SendOptions {
  expect: Expect;
  /** The method, for HTTP's `POST <base>/<method>`; absent for a batch or a frame without one. */
  method?: string;
  timeoutMs: number;
  /** HTTP: extra headers for this request (e.g. `Accept: text/event-stream`), or `null` to drop one. */
  headers?: Record<string, string | null>;
}

export interface HttpInfo {
  status: number;
  contentType: string;
  /** The URL posted to. */
  url: string;
}

export interface Reply {
  /** Every frame that came back for this exchange, in arrival order, as text. */
  frames: string[];
  /** HTTP only: the status and content type of the answer. */
  http?: HttpInfo;
  /** Why no usable answer came: set for transport faults (the frames, if any, are kept). */
  fault?: Fault;
  /** How long the exchange took, ms. */
  ms: number;
}

export interface Fault {
  kind: 'unreachable' | 'timeout' | 'not-rpc' | 'too-large' | 'closed';
  message: string;
}

export interface Wire {
  /** Which framing applies: some checks are about one transport only. */
  readonly transport: 'stdio' | 'port' | 'http';
  /** A short description of the endpoint, for reports. */
  readonly label: string;
  send(text: string, options: SendOptions): Promise<Reply>;
  /**
   * Stream transports with byte framing (stdio): writes raw bytes, newline and all, for the §5.1
   * framing checks (blank lines, a frame split across writes). Absent elsewhere.
   */
  writeRaw?(chunk: string): void;
  /** Stream transports: waits for an answer without sending anything (the frame goes by `writeRaw`). */
  listen?(expect: Expect, timeoutMs: number): Promise<Reply>;
  /** Frames that arrived outside any exchange (late answers, unsolicited notifications). */
  strays(): string[];
  /** stdio: what the server wrote to stderr so far. */
  stderr?(): string;
  /** Resolves when the server side ended the connection (a process exit, a closed port), or after `ms`. */
  closedWithin?(ms: number): Promise<boolean>;
  close(): Promise<void>;
}

/** The `id` of a response object, or undefined when `value` is not one. */
export function responseId(value: unknown): Id | null | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const m = value as Record<string, unknown>;
  if ('method' in m || !('id' in m)) return undefined;
  return m.id as Id | null;
}

/** Whether `value` is the response an exchange expecting `expect` waits for. */
export function answers(expect: Expect, value: unknown): boolean {
  if (expect.kind !== 'response') return false;
  const id = responseId(value);
  return id !== undefined && (id === expect.id || (id === null && expect.alsoNull === true));
}

export function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

import { ErrorCode, RETRYABLE } from './codes.ts';
import type { ErrorObject } from './types.ts';

/** Conventional `error.data` fields (§12.1); unknown keys are allowed. */
export interface ErrorData {
  field?: string;
  option?: string;
  retryable?: boolean;
  retryAfterMs?: number;
  detail?: string;
  [key: string]: unknown;
}

/**
 * The one error type of the project: carries an RCP/JSON-RPC code and optional data.
 * Its message is `[RCP <code>] <message>` so logs show the code without extra work.
 */
export class RcpError extends Error {
  readonly code: number;
  readonly data: ErrorData | undefined;
  /** The message without the `[RCP code]` prefix, as it travels on the wire. */
  readonly rawMessage: string;

  constructor(code: number, message: string, data?: ErrorData) {
    super(`[RCP ${code}] ${message}`);
    this.name = 'RcpError';
    this.code = code;
    this.data = data;
    this.rawMessage = message;
  }

  /**
   * §12.2: whether an identical retry might succeed. `data.retryable` from the server wins;
   * otherwise the table decides ("maybe" counts as retryable once). Unknown codes are not retryable.
   */
  retryable(): boolean {
    if (typeof this.data?.retryable === 'boolean') return this.data.retryable;
    const rule = RETRYABLE[this.code];
    return rule === true || rule === 'maybe';
  }

  /** §12.1: the server's back-off hint in ms, if it gave a valid one. */
  retryAfterMs(): number | undefined {
    const ms = this.data?.retryAfterMs;
    return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
  }

  /** The JSON-RPC error object for this error. */
  toJSON(): ErrorObject {
    const out: ErrorObject = { code: this.code, message: this.rawMessage };
    if (this.data !== undefined) out.data = this.data;
    return out;
  }

  /** Rebuilds an RcpError from a wire error object (client side). */
  static fromObject(e: ErrorObject): RcpError {
    const data = e.data && typeof e.data === 'object' && !Array.isArray(e.data) ? (e.data as ErrorData) : undefined;
    return new RcpError(e.code, e.message, data);
  }
}

/** Shorthands for the errors handlers raise most; each names the offending path or option. */
export const invalidParams = (field: string, detail: string): RcpError =>
  new RcpError(ErrorCode.InvalidParams, `invalid params: ${field}: ${detail}`, { field, detail });

export const optionUnsupported = (option: string, detail: string): RcpError =>
  new RcpError(ErrorCode.OptionUnsupported, `option unsupported: ${option}: ${detail}`, { option, detail });

export const backendUnavailable = (detail: string, retryAfterMs?: number): RcpError =>
  new RcpError(ErrorCode.BackendUnavailable, `backend unavailable: ${detail}`, {
    detail,
    retryable: true,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });

/** §12 / §15.5: a request over an advertised limit (batch size, document count, bytes). Not retryable as is. */
export const payloadTooLarge = (field: string, detail: string): RcpError =>
  new RcpError(ErrorCode.PayloadTooLarge, `payload too large: ${field}: ${detail}`, { field, detail });

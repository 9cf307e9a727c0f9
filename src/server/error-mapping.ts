import { ErrorCode } from '../protocol/codes.ts';
import { RcpError } from '../protocol/errors.ts';
import type { ErrorObject } from '../protocol/types.ts';

/**
 * Turns anything a handler threw into a wire error object. RcpErrors pass through; the backend
 * may map its own failures (storage DOMExceptions…); an aborted signal's reason is already an
 * RcpError (-32006 / -32014); anything else is -32603 with a short detail and no stack.
 */
export function toErrorObject(e: unknown, mapError?: (e: unknown) => RcpError | undefined): ErrorObject {
  if (e instanceof RcpError) return e.toJSON();
  const mapped = mapError?.(e);
  if (mapped) return mapped.toJSON();
  if (isAbortError(e)) return new RcpError(ErrorCode.Cancelled, 'cancelled').toJSON();
  const detail = e instanceof Error ? e.message : String(e);
  return new RcpError(ErrorCode.InternalError, 'internal error', { detail: detail.slice(0, 500) }).toJSON();
}

const isAbortError = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError';

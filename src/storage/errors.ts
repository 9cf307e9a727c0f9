import { ErrorCode } from '../protocol/codes.ts';
import { RcpError, backendUnavailable } from '../protocol/errors.ts';

/**
 * Thrown by the store for conditions the browser does not report as a DOMException: IndexedDB
 * missing from this context, or an open blocked by another tab for longer than the timeout.
 */
export class StorageUnavailableError extends Error {
  readonly reason: 'unsupported' | 'blocked';

  constructor(reason: 'unsupported' | 'blocked', message: string) {
    super(message);
    this.name = 'StorageUnavailableError';
    this.reason = reason;
  }
}

/** DOMException names meaning "the database cannot be used right now" (→ -32010). */
const UNAVAILABLE = new Set([
  'StorageUnavailableError',
  'InvalidStateError', // connection closed (versionchange, close()) or store missing
  'UnknownError', // disk I/O failure, corrupted profile
  'VersionError', // another tab upgraded the schema past ours
  'NotFoundError', // object store missing: schema not what we expect
  'NotSupportedError',
  'SecurityError', // private mode / storage disabled
  'AbortError', // transaction aborted without a cause (e.g. connection forcibly closed)
  'TimeoutError',
  'TransactionInactiveError',
]);

/** Errors a retry of the identical request cannot fix (-32603 with `retryable: false`). */
const DETERMINISTIC = new Set(['DataCloneError', 'DataError', 'ConstraintError', 'ReadOnlyError', 'TypeError']);

function errorName(e: unknown): string | undefined {
  return e && typeof e === 'object' && typeof (e as { name?: unknown }).name === 'string'
    ? (e as { name: string }).name
    : undefined;
}

function errorMessage(e: unknown): string {
  if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') {
    return (e as { message: string }).message;
  }
  return String(e);
}

/** True for a quota failure in any browser (the standard name, Firefox's legacy one, or code 22). */
export function isQuotaExceeded(e: unknown): boolean {
  const name = errorName(e);
  return (
    name === 'QuotaExceededError' ||
    name === 'NS_ERROR_DOM_QUOTA_REACHED' ||
    (e instanceof Error && (e as { code?: unknown }).code === 22)
  );
}

/**
 * Maps an error thrown by the IndexedDB store to the RCP error the server replies with. The store
 * itself lets DOMExceptions through unchanged (house style: map only at the server boundary);
 * the server applies this function once, where it builds the error reply.
 *
 * - RcpError → returned unchanged.
 * - QuotaExceededError → -32013 PayloadTooLarge, `retryable: false` (the same batch cannot fit).
 * - unavailable IndexedDB (missing, blocked, closed, version, I/O) → -32010 BackendUnavailable.
 * - anything else → -32603 InternalError; `retryable: false` when the cause is deterministic.
 * Every mapped error carries `data.detail` naming the original error.
 */
export function mapStorageError(e: unknown): RcpError {
  if (e instanceof RcpError) return e;
  const name = errorName(e) ?? 'Error';
  const message = errorMessage(e);
  if (isQuotaExceeded(e)) {
    const detail = `storage quota exceeded (${name}${message ? `: ${message}` : ''}); free space or delete documents, then retry`;
    return new RcpError(ErrorCode.PayloadTooLarge, `payload too large: ${detail}`, { detail, retryable: false });
  }
  if (UNAVAILABLE.has(name)) return backendUnavailable(`IndexedDB ${name}: ${message}`);
  const detail = `IndexedDB ${name}: ${message}`;
  return new RcpError(ErrorCode.InternalError, `internal error: ${detail}`, {
    detail,
    ...(DETERMINISTIC.has(name) ? { retryable: false } : {}),
  });
}

/**
 * The one place where failures of storage and models become RCP errors (house style: the store
 * and the models throw plain errors and DOMExceptions; only the server boundary maps them).
 * Matched by `name`, so the server imports neither layer.
 */
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError, backendUnavailable, invalidParams } from '../protocol/errors.ts';

/** Names meaning "the database or a model cannot be used right now" (→ -32010). */
const UNAVAILABLE = new Set([
  'StorageUnavailableError', // src/storage: IndexedDB missing, or the open blocked too long
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

/** IndexedDB DOMExceptions a retry of the identical request cannot fix (-32603, `retryable: false`). */
const DETERMINISTIC = new Set(['DataCloneError', 'DataError', 'ConstraintError', 'ReadOnlyError']);

function nameOf(e: unknown): string | undefined {
  return e && typeof e === 'object' && typeof (e as { name?: unknown }).name === 'string' ? (e as { name: string }).name : undefined;
}

function messageOf(e: unknown): string {
  return e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string' ? (e as { message: string }).message : String(e);
}

/** True for a quota failure in any browser (the standard name, Firefox's legacy one, or code 22). */
export function isQuotaExceeded(e: unknown): boolean {
  const name = nameOf(e);
  return name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED' || (e instanceof Error && (e as { code?: unknown }).code === 22);
}

/**
 * The RCP error for a storage or model failure, or undefined for anything else (an RcpError
 * passes through unchanged; a plain bug — TypeError, RangeError, Error — is left to the session,
 * which answers -32603 without naming a layer it did not come from).
 *
 * - quota exceeded → -32013, `retryable: false` (the same batch cannot fit);
 * - a model that failed to load → -32010, retryable;
 * - unavailable IndexedDB (missing, blocked, closed, version, I/O) → -32010;
 * - a deterministic IndexedDB failure (DataCloneError…) → -32603, `retryable: false`.
 * Every mapped error carries `data.detail` naming the original error.
 */
export function mapBackendError(e: unknown): RcpError | undefined {
  if (e instanceof RcpError) return e;
  const name = nameOf(e);
  const message = messageOf(e);
  if (isQuotaExceeded(e)) {
    const detail = `storage quota exceeded (${name}${message ? `: ${message}` : ''}); free space or delete documents, then retry`;
    return new RcpError(ErrorCode.PayloadTooLarge, `payload too large: ${detail}`, { detail, retryable: false });
  }
  if (name === 'ModelUnavailableError') return backendUnavailable(message);
  // src/bundle: a bundle file missing, damaged or from another build (the message names it).
  if (name === 'BundleError') return backendUnavailable(message);
  if (name === 'UnembeddableInputError') return invalidParams(String((e as { field?: unknown }).field ?? 'inputs'), message);
  if (name !== undefined && UNAVAILABLE.has(name)) return backendUnavailable(`IndexedDB ${name}: ${message}`);
  if (name !== undefined && DETERMINISTIC.has(name)) {
    const detail = `IndexedDB ${name}: ${message}`;
    return new RcpError(ErrorCode.InternalError, `internal error: ${detail}`, { detail, retryable: false });
  }
  return undefined;
}

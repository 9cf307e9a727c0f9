/**
 * The one place where anything a handler threw becomes an RCP error: one ordered list of rules,
 * the first that matches decides (house style: the store and the models throw plain errors and
 * DOMExceptions; only the server boundary maps them). The session answers every failed request
 * through `toErrorObject`; a handler waiting for an engine whose storage could not be opened
 * through `openFailure`.
 *
 *  1. an RcpError passes unchanged (a cancel or deadline is the aborted signal's RcpError reason);
 *  2. quota exceeded, in any browser → -32013, `retryable: false` (the same batch cannot fit);
 *  3. a model that cannot serve (ModelUnavailableError, src/engine/errors.ts) → -32010, retryable;
 *  4. an input the model cannot represent (UnembeddableInputError) → -32602 naming its field;
 *  5. IndexedDB unavailable (missing, blocked, closed, another schema version, I/O, a transaction
 *     aborted without a cause) → -32010;
 *  6. a deterministic IndexedDB failure (DataCloneError…) → -32603, `retryable: false`;
 *  7. anything else (a plain bug: TypeError, RangeError, Error) → -32603 with a short detail, no
 *     stack, naming no layer it did not come from.
 *
 * Storage failures are DOMExceptions and the storage layer's StorageUnavailableError, matched by
 * `name`; model failures are the engine's classes, matched with `instanceof`. Every mapped error
 * carries `data.detail` naming the original error.
 */
import { ModelUnavailableError, UnembeddableInputError } from '../engine/errors.ts';
import { ErrorCode } from '../protocol/codes.ts';
import { RcpError, backendUnavailable, invalidParams } from '../protocol/errors.ts';
import type { ErrorObject } from '../protocol/types.ts';

/** Names meaning "the database cannot be used right now" (→ -32010). */
const STORAGE_UNAVAILABLE = new Set([
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
const STORAGE_DETERMINISTIC = new Set(['DataCloneError', 'DataError', 'ConstraintError', 'ReadOnlyError']);

/** What a rule sees of a thrown value. */
interface Thrown {
  value: unknown;
  name: string | undefined;
  message: string;
}

type Rule = (t: Thrown) => RcpError | undefined;

/** Rules 1–6 of the header, in order. */
const RULES: readonly Rule[] = [
  ({ value }) => (value instanceof RcpError ? value : undefined),
  ({ value, name, message }) => {
    if (!isQuotaExceeded(value)) return undefined;
    const detail = `storage quota exceeded (${name}${message ? `: ${message}` : ''}); free space or delete documents, then retry`;
    return new RcpError(ErrorCode.PayloadTooLarge, `payload too large: ${detail}`, { detail, retryable: false });
  },
  ({ value, message }) => (value instanceof ModelUnavailableError ? backendUnavailable(message) : undefined),
  ({ value, message }) => (value instanceof UnembeddableInputError ? invalidParams(value.field, message) : undefined),
  ({ name, message }) => (name !== undefined && STORAGE_UNAVAILABLE.has(name) ? backendUnavailable(`IndexedDB ${name}: ${message}`) : undefined),
  ({ name, message }) => {
    if (name === undefined || !STORAGE_DETERMINISTIC.has(name)) return undefined;
    const detail = `IndexedDB ${name}: ${message}`;
    return new RcpError(ErrorCode.InternalError, `internal error: ${detail}`, { detail, retryable: false });
  },
];

/** True for a quota failure in any browser (the standard name, Firefox's legacy one, or code 22). */
export function isQuotaExceeded(e: unknown): boolean {
  const name = nameOf(e);
  return name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED' || (e instanceof Error && (e as { code?: unknown }).code === 22);
}

/** The RCP error of rules 1–6, or undefined when none matches (rule 7 is the caller's). */
export function matchError(e: unknown): RcpError | undefined {
  const thrown: Thrown = { value: e, name: nameOf(e), message: messageOf(e) };
  for (const rule of RULES) {
    const mapped = rule(thrown);
    if (mapped) return mapped;
  }
  return undefined;
}

/** The wire error for anything a handler threw (rules 1–7). */
export function toErrorObject(e: unknown): ErrorObject {
  const mapped = matchError(e);
  if (mapped) return mapped.toJSON();
  return new RcpError(ErrorCode.InternalError, 'internal error', { detail: messageOf(e).slice(0, 500) }).toJSON();
}

/** The error for a request that needs an engine whose storage could not be opened: rules 1–6, else -32010. */
export function openFailure(e: unknown): RcpError {
  return matchError(e) ?? backendUnavailable(`index storage could not be opened: ${messageOf(e)}`);
}

function nameOf(e: unknown): string | undefined {
  return e && typeof e === 'object' && typeof (e as { name?: unknown }).name === 'string' ? (e as { name: string }).name : undefined;
}

function messageOf(e: unknown): string {
  return e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string' ? (e as { message: string }).message : String(e);
}

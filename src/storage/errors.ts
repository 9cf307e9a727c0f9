/**
 * Thrown by the store for conditions the browser does not report as a DOMException: IndexedDB
 * missing from this context, or an open blocked by another tab for longer than the timeout.
 * A plain error, like the DOMExceptions the store lets through: the server maps both to RCP
 * codes (src/server/errors.ts).
 */
export class StorageUnavailableError extends Error {
  readonly reason: 'unsupported' | 'blocked';

  constructor(reason: 'unsupported' | 'blocked', message: string) {
    super(message);
    this.name = 'StorageUnavailableError';
    this.reason = reason;
  }
}

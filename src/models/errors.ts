/**
 * A configured model cannot serve now (its load failed; the next call after a back-off retries).
 * A plain error: the server maps it to -32010, retryable (src/server/backend-errors.ts).
 */
export class ModelUnavailableError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ModelUnavailableError';
  }
}

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

/**
 * An input the model cannot represent (its vector would be all zeros). A plain error: the server
 * answers -32602 naming `field` (src/server/backend-errors.ts).
 */
export class UnembeddableInputError extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
    this.name = 'UnembeddableInputError';
  }
}

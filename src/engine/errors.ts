/**
 * What an Embedder or Reranker (contracts.ts) throws when its model cannot do the work, as classes
 * the engine and the server test with `instanceof`, never by name: recall serves hybrid from its
 * sparse half on a ModelUnavailableError (query/recall.ts); the server maps both to RCP codes
 * (src/server/errors.ts). The models (src/models) throw them.
 */

/** A configured model cannot serve now (its load failed; a later call may retry). → -32010, retryable. */
export class ModelUnavailableError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ModelUnavailableError';
  }
}

/** An input the model cannot represent (its vector would be all zeros). → -32602 naming `field`. */
export class UnembeddableInputError extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
    this.name = 'UnembeddableInputError';
  }
}

/** Cancellation helpers: abort checks between stages and event-loop yields inside long loops. */

/** Throws the signal's reason (a DOMException "AbortError" unless the caller gave another). */
export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/**
 * Lets queued events (an abort, a cancel message) run. A synchronous loop cannot observe an abort
 * that arrives as a message, so long loops call this every few milliseconds.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** A loop helper: yields and checks the signal when `budgetMs` has passed since the last yield. */
export function makeTicker(signal: AbortSignal | undefined, budgetMs = 20): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < budgetMs) return;
    await yieldToEventLoop();
    last = performance.now();
    checkAborted(signal);
  };
}

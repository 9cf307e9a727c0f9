/**
 * Reads a person is waiting for (retrieve, a document, a listing) come before background
 * embedding. On WASM each embedding batch runs on the worker's own thread for about a second, so
 * a request whose every await had to wait behind the next batch took seconds (opening a 30 MB
 * document while its passages embedded: 5.9 s). The background pass asks `idle()` before each
 * batch; a steady stream of requests delays it by at most `maxWaitMs` per batch, so it still ends.
 */
/** The longest a background step defers to foreground requests (a steady stream must not stop it). */
export const FOREGROUND_MAX_WAIT_MS = 2_000;

export class ForegroundGate {
  private active = 0;
  private waiters: (() => void)[] = [];

  /** Runs `work` as foreground: background batches wait until it settles. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await work();
    } finally {
      if (--this.active === 0) for (const wake of this.waiters.splice(0)) wake();
    }
  }

  /** True while foreground work runs. */
  get busy(): boolean {
    return this.active > 0;
  }

  /** Background steps held by `idle()` right now. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Settles when no foreground work runs, or after `maxWaitMs` at the latest. */
  idle(maxWaitMs: number): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((ok) => {
      const timer = setTimeout(ok, maxWaitMs);
      this.waiters.push(() => (clearTimeout(timer), ok()));
    });
  }
}

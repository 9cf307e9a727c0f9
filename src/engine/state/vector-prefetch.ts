/**
 * When a cold start reads the vectors kept apart (`IndexState.vectorsLoaded`): not at open, but
 * once the first retrieve has answered, or after a short idle time with no retrieve in flight.
 *
 * Why: the read is one large IndexedDB request (~440 MB at a million 384-d chunks) and its
 * deserialization runs on the engine's thread. Started at open, it held up the first sparse
 * answer, whose only store read (the hits' texts) queued behind it: 1.3 s at 1M, 60 ms at 100k
 * (measured in the bench's cold start). Whatever needs the vectors earlier (dense search, a
 * write, re-embedding) still reads them at once through `vectorsLoaded()`.
 */

/** Idle time after open before the vectors are read when no query came (ms). */
export const VECTORS_IDLE_READ_MS = 250;

export class VectorPrefetch {
  private started = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `read` starts the background read (it must not throw; failures are retried by the next need);
   * `busy` says whether a request is running (the engine's ForegroundGate).
   */
  constructor(
    private readonly read: () => void,
    private readonly busy: () => boolean,
    private readonly idleMs = VECTORS_IDLE_READ_MS,
  ) {}

  /** After open: read once the first retrieve answered, or after the idle time if none is running. */
  arm(): void {
    if (this.started || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.busy()) this.start();
    }, this.idleMs);
  }

  /** Wraps a retrieve: the read starts when it has settled (its answer is on its way by then). */
  async around<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } finally {
      this.start();
    }
  }

  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.started = true;
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.read();
  }
}

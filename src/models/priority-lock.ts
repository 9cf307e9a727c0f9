/**
 * One inference at a time, queries first: a waiting query batch runs before waiting document
 * batches, so a search typed while the background re-embedding works waits for at most the one
 * document batch in flight, not for the whole backlog queued before it.
 */
export class PriorityLock {
  private held = false;
  private readonly waiting: { urgent: boolean; go: () => void }[] = [];
  private idleWaiters: (() => void)[] = [];

  /** Runs `task` when the lock is free; `urgent` tasks overtake waiting non-urgent ones (FIFO within a class). */
  async run<T>(urgent: boolean, task: () => Promise<T>): Promise<T> {
    if (this.held) {
      await new Promise<void>((go) => {
        const at = urgent ? this.waiting.findIndex((w) => !w.urgent) : -1;
        this.waiting.splice(at < 0 ? this.waiting.length : at, 0, { urgent, go });
      });
    }
    this.held = true;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next.go();
      else {
        this.held = false;
        for (const f of this.idleWaiters.splice(0)) f();
      }
    }
  }

  /** Settles once nothing runs or waits. */
  idle(): Promise<void> {
    return this.held ? new Promise((ok) => this.idleWaiters.push(ok)) : Promise.resolve();
  }
}

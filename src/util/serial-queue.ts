/**
 * Runs tasks one at a time, in call order. A failed task does not block the ones after it; its
 * caller still sees the failure.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task, task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Settles (never rejects) once every task queued so far has settled. */
  async idle(): Promise<void> {
    await this.tail;
  }
}

/**
 * Watches frames crossing the stdio bridge to know which requests still await an answer, so EOF
 * and shutdown can wait for them (§5.1, §13.1), and whether a `shutdown` SUCCEEDED: only a
 * `shutdown` answered with a result ends the session; a rejected one (-32602…) changes nothing.
 */
export class RequestTracker {
  /** Methods of the requests in flight, by id key (a list: a client may reuse an id). */
  private readonly open = new Map<string, string[]>();
  shutdownAnswered = false;
  private waiters: (() => void)[] = [];

  /** Records the requests in a frame sent to the server. */
  sent(frame: string): void {
    for (const m of parseAll(frame)) {
      // Only well-formed ids: the server answers a bad one with id null, which can't be matched.
      if (!(typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id))) || typeof m.method !== 'string') continue;
      const key = JSON.stringify(m.id);
      this.open.set(key, [...(this.open.get(key) ?? []), m.method]);
    }
  }

  /** Records the responses in a frame from the server. */
  answered(frame: string): void {
    for (const m of parseAll(frame)) {
      if (m.method !== undefined || m.id === undefined) continue;
      const key = JSON.stringify(m.id);
      const methods = this.open.get(key);
      if (!methods) continue;
      const method = methods.shift();
      if (methods.length === 0) this.open.delete(key);
      if (method === 'shutdown' && typeof m.result === 'object' && m.result !== null) this.shutdownAnswered = true;
    }
    if (this.open.size === 0) this.waiters.splice(0).forEach((w) => w());
  }

  /** Requests awaiting an answer. */
  get pending(): number {
    return this.open.size;
  }

  /** Resolves when nothing is in flight, or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((ok) => {
      this.waiters.push(ok);
      setTimeout(ok, timeoutMs).unref();
    });
  }
}

function parseAll(frame: string): Record<string, unknown>[] {
  try {
    const v: unknown = JSON.parse(frame);
    const all = Array.isArray(v) ? v : [v];
    return all.filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null);
  } catch {
    return [];
  }
}

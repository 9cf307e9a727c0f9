/**
 * Watches frames crossing a bridge to know which requests still await an answer, so EOF can
 * wait for them (§5.1) and the bridge can exit after `shutdown` is answered (§13.1).
 */
export class RequestTracker {
  private readonly open = new Set<string>();
  private shutdownId: string | undefined;
  shutdownAnswered = false;
  private waiters: (() => void)[] = [];

  sent(frame: string): void {
    for (const m of parseAll(frame)) {
      // Only well-formed ids: the server answers a bad one with id null, which can't be matched.
      if (!(typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id))) || typeof m.method !== 'string') continue;
      const key = JSON.stringify(m.id);
      this.open.add(key);
      if (m.method === 'shutdown') this.shutdownId = key;
    }
  }

  answered(frame: string): void {
    for (const m of parseAll(frame)) {
      if (m.method !== undefined || m.id === undefined) continue;
      const key = JSON.stringify(m.id);
      this.open.delete(key);
      if (key === this.shutdownId) this.shutdownAnswered = true;
    }
    if (this.open.size === 0) this.waiters.splice(0).forEach((w) => w());
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

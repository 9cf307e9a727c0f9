/**
 * Per-`sessionId` dedup state (§7.7.3): which hit ids a session has already been given, each with
 * the sequence number of the retrieve that first returned it. A fresh retrieve excludes every id
 * seen before it; the pages of one cursor chain exclude only ids seen before the chain began, so
 * paging never skips or repeats hits. Entries expire `ttlMs` after their last use.
 */
interface Session {
  seen: Map<string, number>;
  seq: number;
  lastUsed: number;
}

export class Sessions {
  private readonly map = new Map<string, Session>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Starts one retrieve of `id`. `chainStart` is the sequence a cursor chain began at (undefined
   * for a fresh retrieve). Returns the excluded ids and this retrieve's own chain start.
   */
  begin(id: string, chainStart?: number): { exclude: Set<string>; seq: number; chainStart: number } {
    const t = this.now();
    this.sweep(t);
    let s = this.map.get(id);
    if (!s) {
      s = { seen: new Map(), seq: 0, lastUsed: t };
      this.map.set(id, s);
      while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
    }
    this.map.delete(id);
    this.map.set(id, s); // most recently used last
    s.lastUsed = t;
    const seq = ++s.seq;
    const start = chainStart ?? seq;
    const exclude = new Set<string>();
    for (const [hit, at] of s.seen) if (at < start) exclude.add(hit);
    return { exclude, seq, chainStart: start };
  }

  /** Records ids returned by the retrieve with sequence `seq`. */
  record(id: string, hits: string[], seq: number): void {
    const s = this.map.get(id);
    if (!s) return;
    for (const h of hits) if (!s.seen.has(h)) s.seen.set(h, seq);
  }

  private sweep(t: number): void {
    for (const [id, s] of this.map) if (t - s.lastUsed > this.ttlMs) this.map.delete(id);
  }
}

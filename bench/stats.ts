import type { Latency } from './types.ts';

/** Nearest-rank percentile of an ascending-sorted array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function summarize(ms: number[], hits: number[]): Latency {
  const s = [...ms].sort((a, b) => a - b);
  const sum = s.reduce((a, b) => a + b, 0);
  return {
    n: s.length,
    p50: round(percentile(s, 50)),
    p95: round(percentile(s, 95)),
    mean: round(sum / Math.max(1, s.length)),
    max: round(s[s.length - 1] ?? NaN),
    hits: round(hits.reduce((a, b) => a + b, 0) / Math.max(1, hits.length)),
  };
}

export const round = (x: number, digits = 3): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

export const median = (xs: number[]): number => percentile([...xs].sort((a, b) => a - b), 50);

/**
 * Times `run` over `queries`, warm: with `warmup` > 0 every query first runs once untimed (a pass
 * over a few queries left the lazily built parts of an index — posting lists decoded on first use,
 * vector blocks — to whichever mode was timed first), and the first query's time in that pass is
 * kept as the cold cost (`firstMs`); then every query is timed one at a time (awaited, so async
 * work inside counts).
 */
export async function timeQueries(
  queries: string[],
  warmup: number,
  run: (q: string) => number | Promise<number>,
): Promise<Latency> {
  let failed = 0;
  let error: string | undefined;
  const fail = (q: string, e: unknown) => {
    failed++;
    error ??= `${e instanceof Error ? `${e.name}: ${e.message}` : String(e)} (query "${q}")`;
  };
  let firstMs: number | undefined;
  for (const q of warmup > 0 ? queries : []) {
    const t0 = performance.now();
    try {
      await run(q);
    } catch {
      // counted in the timed pass
    }
    firstMs ??= round(performance.now() - t0);
  }
  const ms: number[] = [];
  const hits: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    try {
      const r = run(q);
      const n = typeof r === 'number' ? r : await r;
      ms.push(performance.now() - t0);
      hits.push(n);
    } catch (e) {
      fail(q, e);
    }
  }
  const out: Latency = { ...summarize(ms, hits), ...(firstMs !== undefined ? { firstMs } : {}) };
  return failed ? { ...out, failed, error } : out;
}

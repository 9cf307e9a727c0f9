/**
 * Coalesces "the index changed" notices into refreshes of what shows the index (counts, the
 * document list, the results): a burst becomes one refresh `quietMs` after its first notice, and
 * while a long job runs (an import, the sample seeding: `busy()`), at most one per `busyMs`, so a
 * batch committed every 150 ms does not re-read and re-render the page every 150 ms.
 */
export interface ThrottleOptions {
  quietMs: number;
  busyMs: number;
  busy(): boolean;
  now?: () => number;
}

/** Returns `notify`: call it on every change; `run` follows at the pace above. */
export function changeThrottle(run: () => void, o: ThrottleOptions): () => void {
  const now = o.now ?? (() => performance.now());
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastRun = -Infinity;
  return () => {
    if (timer !== undefined) return; // one refresh is already due: it will see this change too
    const wait = o.busy() ? Math.max(o.quietMs, lastRun + o.busyMs - now()) : o.quietMs;
    timer = setTimeout(() => {
      timer = undefined;
      lastRun = now();
      run();
    }, wait);
  };
}

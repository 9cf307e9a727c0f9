/** The index-change throttle: a burst is one refresh; while a job runs, at most one per busyMs. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { changeThrottle } from '../../src/app/change-throttle.ts';

describe('changeThrottle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('coalesces a burst of notices into one refresh after quietMs', () => {
    const run = vi.fn();
    const notify = changeThrottle(run, { quietMs: 50, busyMs: 1000, busy: () => false, now: () => Date.now() });
    for (let i = 0; i < 10; i++) notify();
    expect(run).not.toHaveBeenCalled();
    vi.advanceTimersByTime(50);
    expect(run).toHaveBeenCalledTimes(1);
    notify();
    vi.advanceTimersByTime(50);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('while busy, a batch committed every 150 ms refreshes at most once a second', () => {
    const run = vi.fn();
    const notify = changeThrottle(run, { quietMs: 50, busyMs: 1000, busy: () => true, now: () => Date.now() });
    for (let t = 0; t < 10_000; t += 150) {
      notify();
      vi.advanceTimersByTime(150);
    }
    vi.advanceTimersByTime(1000);
    // 10 s of batches: about ten refreshes, never two within a second.
    expect(run.mock.calls.length).toBeGreaterThanOrEqual(9);
    expect(run.mock.calls.length).toBeLessThanOrEqual(11);
  });

  it('the notice after a job ends still refreshes (the last state is shown)', () => {
    let busy = true;
    const run = vi.fn();
    const notify = changeThrottle(run, { quietMs: 50, busyMs: 1000, busy: () => busy, now: () => Date.now() });
    notify();
    vi.advanceTimersByTime(50);
    expect(run).toHaveBeenCalledTimes(1);
    notify(); // due a second after the last one
    busy = false;
    notify(); // coalesced into the pending one
    vi.advanceTimersByTime(1000);
    expect(run).toHaveBeenCalledTimes(2);
  });
});

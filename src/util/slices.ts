/**
 * Long synchronous work written as a generator that `yield`s at safe points, run either at once
 * (`runToEnd`: Node, tests, a caller that may block) or in slices (`runInSlices`: the engine
 * worker, which must answer a ping within 1 s throughout, issue 44). A slice ends at the first
 * yield after `budgetMs`, so yielding often costs little.
 */
import { yieldToEventLoop } from './abort.ts';
import { noteStep } from './heartbeat.ts';

/** A piece of work that pauses at its `yield`s (optionally naming the point reached) and returns T. */
export type Sliced<T> = Generator<string | void, T, void>;

export function runToEnd<T>(work: Sliced<T>): T {
  let r = work.next();
  while (!r.done) r = work.next();
  return r.value;
}

/**
 * Runs `work`, giving the event loop a turn whenever a slice has run `budgetMs`; the longest slice
 * is reported to the heartbeat under `label`.
 */
export async function runInSlices<T>(work: Sliced<T>, label: string, budgetMs = 8): Promise<T> {
  let start = performance.now();
  let longest = 0;
  // The named points a slice began and ended at, so the longest one can be told.
  let from = 'start';
  let last = 'start';
  let where = '';
  for (;;) {
    const r = work.next();
    const now = performance.now();
    if (!r.done && r.value) last = r.value;
    if (r.done || now - start >= budgetMs) {
      const to = r.done ? 'end' : last;
      if (now - start > longest) [longest, where] = [now - start, `${from} → ${to}`];
      if (r.done) {
        noteStep(`${label} (longest slice: ${where})`, longest);
        return r.value;
      }
      await yieldToEventLoop();
      start = performance.now();
      from = to;
    }
  }
}

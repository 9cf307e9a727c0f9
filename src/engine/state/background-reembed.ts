/**
 * Runs re-embedding passes (§15.7) in the background: one at a time, started when the engine opens,
 * reloads from the store, or commits a write (so a segment a stopped pass left behind is retried).
 * After a pass fails, writes retry it only after a back-off (1 s, doubling, at most 5 min), so a
 * segment the model keeps failing on is not re-embedded on every write; when the back-off ends a
 * pass starts by itself (a model that could not load may load now: its writes were stored without
 * vectors and wait for one). With coordination only
 * one engine re-embeds at a time; the others find the work done when they get the lock.
 */
import { ErrorCode } from '../../protocol/codes.ts';
import { RcpError } from '../../protocol/errors.ts';
import type { Embedder, IndexStore } from '../contracts.ts';
import { denseModel } from '../index/dense.ts';
import { LOCKS, type Coordination } from './coordination.ts';
import type { IndexState } from './index-state.ts';
import { needsVectors, planReembed, refinedChunks, runReembedPass } from './reembed.ts';
import type { EarlyVectors } from './early-vectors.ts';
import type { EmbedOrder } from './embed-order.ts';

export interface BackgroundReembedOptions {
  embedder: Embedder;
  store: IndexStore;
  state: IndexState;
  /** Texts per embedder call, per batch the embedder runs at once (`Embedder.parallelism`). */
  batch: number;
  /** Awaited before each embedder call (the engine lets foreground requests go first). */
  beforeBatch?: () => Promise<void>;
  coordination?: Coordination;
  /** Where a stopped pass is reported (said once while it keeps stopping for the same reason). */
  warnings: string[];
  /** Clock for the back-off (tests). */
  now?: () => number;
  /** Chunks embedded ahead of their segment (shared with dense search). */
  early: EarlyVectors;
  /** Which waiting chunks go first. */
  order: EmbedOrder;
}

const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 5 * 60_000;

export class BackgroundReembed {
  private readonly opts: BackgroundReembedOptions;
  private running: Promise<number> | undefined;
  private readonly stop = new AbortController();
  /** Consecutive failed passes, and before when a write may not start another. */
  private failures = 0;
  private retryAt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(opts: BackgroundReembedOptions) {
    this.opts = opts;
  }

  /** The running pass (segments rewritten, or its error), or 0 when none runs. */
  whenDone(): Promise<number> {
    return this.running ?? Promise.resolve(0);
  }

  close(): void {
    clearTimeout(this.retryTimer);
    this.stop.abort(new RcpError(ErrorCode.Cancelled, 'engine closed'));
  }

  /**
   * Starts a pass unless one runs (it re-checks the view after every segment) or nothing needs
   * vectors; for a write (`afterWrite`), not while backing off after a failed pass.
   */
  schedule(afterWrite = false): void {
    const { embedder, store, state, coordination, warnings, batch } = this.opts;
    const signal = this.stop.signal;
    const now = this.opts.now ?? Date.now;
    if (this.running || signal.aborted || (afterWrite && now() < this.retryAt)) return;
    const model = denseModel(embedder);
    if (!state.current().segments.some((seg) => needsVectors(seg, model))) return;
    const pass = async (): Promise<number> => {
      await state.vectorsLoaded(); // a cold start reads the vectors after publishing the view
      return runReembedPass({
        embedder,
        store,
        // Per call: the embedder's workers each get about a batch (read before every call: the
        // model may load, or change, while the pass runs).
        get batch() {
          return batch * Math.max(1, Math.floor(embedder.parallelism?.() ?? 1));
        },
        signal,
        early: this.opts.early,
        order: this.opts.order,
        doc: (id) => state.docs.get(id),
        ...(this.opts.beforeBatch ? { beforeBatch: this.opts.beforeBatch } : {}),
        // A reload publishes its view before reading the vectors: the pass works on loaded ones.
        sync: async () => (await state.synced(), await state.vectorsLoaded(), state.current()),
        replace: (id, dense, fine) =>
          state.locked(undefined, async () => {
            const view = state.current();
            const s = view.segments.findIndex((seg) => seg.id === id);
            if (s < 0 || !needsVectors(view.segments[s], model)) return false;
            const chunks = fine ? await refinedChunks(store, view, s, fine) : [];
            const plan = planReembed(view, state.manifest, s, dense, chunks);
            await store.commit(plan.change);
            state.publish(plan.change.manifest, plan.view);
            return true;
          }),
      });
    };
    const run = (coordination ? coordination.withLock(LOCKS.reembed, pass, signal) : pass()).then(
      (n) => {
        this.running = undefined;
        this.failures = 0;
        this.retryAt = 0;
        return n;
      },
      (e: unknown) => {
        this.running = undefined;
        this.failures++;
        this.retryAt = now() + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (this.failures - 1));
        const warning = `re-embedding stopped: ${e instanceof Error ? e.message : String(e)}`;
        if (warnings.at(-1) !== warning) warnings.push(warning);
        clearTimeout(this.retryTimer);
        if (!signal.aborted) this.retryTimer = unrefTimer(setTimeout(() => this.schedule(), this.retryAt - now()));
        throw e;
      },
    );
    run.catch(() => undefined);
    this.running = run;
  }
}

/** A retry timer that does not keep Node (a CLI, a test run) alive; browsers have no unref. */
function unrefTimer(t: ReturnType<typeof setTimeout>): ReturnType<typeof setTimeout> {
  (t as { unref?: () => void }).unref?.();
  return t;
}

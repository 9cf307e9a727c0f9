/**
 * Encoder workers, one per core (at most 4), each with its own copy of the model, each embedding
 * its own batch: every core works without SharedArrayBuffer, so pages and bridges served without
 * cross-origin isolation (where onnxruntime-web gets one thread) get them all.
 *
 * Scheduling: one queue, query batches ahead of waiting document batches; an idle worker takes the
 * head. Faults: a worker that dies (an `error` event, or no answer within its deadline) is
 * terminated and replaced by a fresh one from the same weights, and the batch it held goes back to
 * the head of the queue, up to `MAX_ATTEMPTS` tries in all; only then does that batch reject. A
 * batch's result is accepted only from the worker it was sent to, under its own id, so a late
 * answer from a replaced worker can never resolve another batch — and a pool serves one model
 * (one weight file), so no text gets another model's vector.
 */
import type { Pooling } from '../recipe.ts';
import { batchTokens, type BatchEncoder, type EncoderBatch } from './batch-encoder.ts';
import { describeKernels, type EncoderKernels } from './kernel-module.ts';
import type { FromEncoderWorker, ToEncoderWorker } from './worker-messages.ts';

/** The part of a Worker the pool uses (a test can pass its own). */
export interface EncoderWorkerLike {
  postMessage(message: ToEncoderWorker, transfer?: Transferable[]): void;
  terminate(): void;
  onmessage: ((e: MessageEvent<FromEncoderWorker>) => void) | null;
  onerror: ((e: ErrorEvent) => void) | null;
}

/** Tries per batch, the first included. */
export const MAX_ATTEMPTS = 3;

export interface PoolOptions {
  spawn: () => EncoderWorkerLike;
  size: number;
  weights: ArrayBuffer;
  kernels: EncoderKernels;
  pooling: Pooling;
  maxTokens: number;
  /** A batch whose worker has not answered after this long counts as a crash (default: 30 s + 20 ms per token). */
  deadlineMs?: (tokens: number) => number;
  /**
   * A worker that has not said `ready` after this long counts as dead (default 60 s): a module
   * worker whose script never arrives need not fire `error`, and the start must not wait forever.
   */
  startDeadlineMs?: number;
  /** Told about each restart (for the model log). */
  onRestart?: (reason: string) => void;
  /** Who starts the workers, for the description (`the page`: encoder-host.ts). */
  startedBy?: string;
}

interface Job {
  id: number;
  batch: EncoderBatch;
  tokens: number;
  attempts: number;
  resolve: (rows: Float32Array[]) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: EncoderWorkerLike;
  ready: boolean;
  job?: Job;
  timer?: ReturnType<typeof setTimeout>;
}

export class EncoderPool implements BatchEncoder {
  readonly description: string;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** The first start's outcome: `ready()` resolves once one worker is up, rejects if none can start. */
  private readonly started: Promise<void>;
  /** Workers that died before any worker was ready (their script did not load, say): replaced once one is. */
  private diedBeforeStart = 0;
  private everReady = false;
  /** Crashes since the last batch that succeeded: past `MAX_ATTEMPTS` per worker the pool gives up. */
  private crashesSinceSuccess = 0;
  private failure: Error | undefined;
  private settleStart!: (error?: Error) => void;

  constructor(private readonly opts: PoolOptions) {
    this.description = `${describeKernels(opts.kernels)}, ${opts.size} worker${opts.size > 1 ? 's' : ''}${opts.startedBy ? ` started by ${opts.startedBy}` : ''}`;
    this.started = new Promise<void>((ok, fail) => (this.settleStart = (e) => (e ? fail(e) : ok())));
    this.started.catch(() => undefined);
    for (let i = 0; i < opts.size; i++) this.slots.push(this.spawn());
  }

  get maxTokens(): number {
    return this.opts.maxTokens;
  }

  get parallelism(): number {
    return this.opts.size;
  }

  /** Resolves once a worker has loaded the model; rejects when every worker failed to. */
  ready(): Promise<void> {
    return this.started;
  }

  run(batch: EncoderBatch): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(this.failure ?? new Error('the encoder pool is closed'));
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, batch, tokens: batchTokens(batch), attempts: 0, resolve, reject };
      const at = batch.urgent ? this.queue.findIndex((j) => !j.batch.urgent) : -1;
      this.queue.splice(at < 0 ? this.queue.length : at, 0, job);
      this.pump();
    });
  }

  async dispose(): Promise<void> {
    this.closed = true;
    const error = this.failure ?? new Error('the encoder pool was closed');
    for (const s of this.slots.splice(0)) {
      clearTimeout(s.timer);
      s.worker.terminate();
      s.job?.reject(error);
    }
    for (const j of this.queue.splice(0)) j.reject(error);
  }

  private spawn(): Slot {
    const slot: Slot = { worker: this.opts.spawn(), ready: false };
    slot.worker.onmessage = (e) => this.onMessage(slot, e.data);
    slot.worker.onerror = (e) => this.crashed(slot, `worker error: ${describe(e)}`);
    const startDeadline = this.opts.startDeadlineMs ?? 60_000;
    slot.timer = setTimeout(() => this.crashed(slot, `not ready within ${Math.round(startDeadline / 1000)} s of its start`), startDeadline);
    const { weights, kernels, pooling, maxTokens } = this.opts;
    // A copy per worker: the pool keeps the original for restarts.
    slot.worker.postMessage({ type: 'init', weights: weights.slice(0), module: kernels.module, dot: kernels.dot, pooling, maxTokens });
    return slot;
  }

  private onMessage(slot: Slot, m: FromEncoderWorker): void {
    if (this.closed || !this.slots.includes(slot)) return; // a replaced worker's late answer
    if (m.type === 'ready') {
      clearTimeout(slot.timer);
      slot.timer = undefined;
      slot.ready = true;
      if (!this.everReady) {
        this.everReady = true;
        for (; this.diedBeforeStart > 0; this.diedBeforeStart--) this.slots.push(this.spawn());
      }
      this.settleStart();
      this.pump();
      return;
    }
    if (m.type === 'failed') {
      // Loading the model failed: deterministic, so this worker is not restarted.
      clearTimeout(slot.timer);
      this.slots.splice(this.slots.indexOf(slot), 1);
      slot.worker.terminate();
      if (this.slots.length === 0) this.fail(new Error(`no encoder worker could load the model: ${m.error}`));
      return;
    }
    const job = slot.job;
    if (!job || job.id !== m.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
    this.crashesSinceSuccess = 0;
    if (m.type === 'error') job.reject(new Error(m.error));
    else {
      const rows: Float32Array[] = [];
      let at = 0;
      for (const n of m.lengths) rows.push(m.data.subarray(at, (at += n)));
      job.resolve(rows);
    }
    this.pump();
  }

  /** The worker died or hung: replace it, requeue its batch (or reject it after MAX_ATTEMPTS). */
  private crashed(slot: Slot, reason: string): void {
    const i = this.slots.indexOf(slot);
    if (this.closed || i < 0) return;
    clearTimeout(slot.timer);
    slot.worker.terminate();
    if (!this.everReady) {
      // No worker has started yet: this way of starting them may not work here at all (a host that
      // does not serve a worker's own script), so the start fails rather than retrying it forever.
      this.slots.splice(i, 1);
      this.diedBeforeStart++;
      if (this.slots.length === 0) this.fail(new Error(`no encoder worker started (${reason})`));
      return;
    }
    const job = slot.job;
    if (job) {
      if (job.attempts >= MAX_ATTEMPTS) job.reject(new Error(`an encoder worker failed ${MAX_ATTEMPTS} times on this batch (${reason})`));
      else this.queue.unshift(job);
    }
    if (++this.crashesSinceSuccess > MAX_ATTEMPTS * this.opts.size) return this.fail(new Error(`encoder workers keep failing (${reason})`));
    this.opts.onRestart?.(reason);
    this.slots[i] = this.spawn();
    this.pump();
  }

  /** Gives up: every waiting batch and every later one rejects with `error`. */
  private fail(error: Error): void {
    this.failure = error;
    this.settleStart(error);
    void this.dispose();
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.job || !this.queue.length) continue;
      const job = this.queue.shift()!;
      job.attempts++;
      slot.job = job;
      const lengths = Int32Array.from(job.batch.ids, (s) => s.length);
      const ids = new Int32Array(job.tokens);
      let at = 0;
      for (const s of job.batch.ids) ids.set(s, (at += s.length) - s.length);
      const deadline = this.opts.deadlineMs?.(job.tokens) ?? 30_000 + 20 * job.tokens;
      slot.timer = setTimeout(() => this.crashed(slot, `no answer within ${Math.round(deadline / 1000)} s`), deadline);
      slot.worker.postMessage({ type: 'run', id: job.id, ids, lengths, output: job.batch.output }, [ids.buffer]);
    }
  }
}

function describe(e: unknown): string {
  if (e && typeof e === 'object' && 'message' in e && typeof (e as { message: unknown }).message === 'string') return (e as { message: string }).message || 'unknown';
  return String(e);
}

/**
 * Encoder workers without a browser: the pool (src/models/encoder-runtime/encoder-pool.ts) over
 * in-process fake workers that run the real worker handler, so scheduling and faults can be forced:
 * a crash or a hang mid-batch restarts the worker and retries the batch, a late answer from a
 * replaced worker resolves nothing, queries overtake waiting documents, and a pool that cannot
 * start, or keeps crashing, rejects instead of hanging.
 */
import { describe, expect, it } from 'vitest';
import { EncoderPool, MAX_ATTEMPTS, type EncoderWorkerLike } from '../../src/models/encoder-runtime/encoder-pool.ts';
import { encoderWorkerHandler } from '../../src/models/encoder-runtime/worker-handler.ts';
import { encoderKernels } from '../../src/models/encoder-runtime/kernel-module.ts';
import { bertWeights } from '../../src/models/encoder-runtime/bert-weights.ts';
import { decodeWeights } from '../../src/models/encoder-runtime/weights-file.ts';
import { referenceEmbed } from '../../src/models/encoder-runtime/reference.ts';
import type { FromEncoderWorker, ToEncoderWorker } from '../../src/models/encoder-runtime/worker-messages.ts';
import { tinyEncoderWeights } from '../support/tiny-encoder.ts';

const BYTES = tinyEncoderWeights();
const WEIGHTS = BYTES.buffer.slice(BYTES.byteOffset, BYTES.byteOffset + BYTES.byteLength) as ArrayBuffer;
const MODEL = bertWeights(decodeWeights(WEIGHTS));
const KERNELS = (await encoderKernels(MODEL.shape))!;
const text = (...ids: number[]) => Int32Array.from([1, ...ids, 2]);

type Behaviour = 'ok' | 'crash' | 'hang' | 'fail-init' | 'no-script' | 'silent';
/** In-process workers running the real handler; `plan[n]` says what the n-th spawned worker does with its first batch. */
function fakes(plan: Behaviour[] = []) {
  const log: { worker: number; batch: number; behaviour: Behaviour }[] = [];
  const late: (() => void)[] = [];
  let spawned = 0;
  const spawn = (): EncoderWorkerLike => {
    const n = spawned++;
    const behaviour = plan[n] ?? 'ok';
    let runs = 0;
    let dead = false;
    const w: EncoderWorkerLike = { onmessage: null, onerror: null, terminate: () => void (dead = true), postMessage: () => undefined };
    const send = (r: FromEncoderWorker) => w.onmessage?.({ data: r } as MessageEvent<FromEncoderWorker>);
    const handle = encoderWorkerHandler((r) => setTimeout(() => !dead && send(r), 1));
    w.postMessage = (m: ToEncoderWorker) => {
      // A worker whose script never arrived: an error event, and nothing else.
      if (m.type === 'init' && behaviour === 'no-script') return setTimeout(() => w.onerror?.({ message: '' } as ErrorEvent), 1);
      // A worker that never starts and never says why (no error event either).
      if (m.type === 'init' && behaviour === 'silent') return;
      if (m.type === 'init') return behaviour === 'fail-init' ? setTimeout(() => send({ type: 'failed', error: 'cannot allocate' }), 1) : handle(m);
      const first = runs++ === 0;
      log.push({ worker: n, batch: m.id, behaviour: first ? behaviour : 'ok' });
      if (first && behaviour === 'crash') return setTimeout(() => w.onerror?.({ message: 'out of memory' } as ErrorEvent), 1);
      // A hung worker answers only when the test says so, after it was replaced (even though terminated).
      if (first && behaviour === 'hang') return late.push(() => encoderWorkerHandler(send)(m));
      handle(m);
    };
    return w;
  };
  return { spawn, log, late, spawned: () => spawned };
}

const pool = (f: ReturnType<typeof fakes>, size = 2, extra: Partial<ConstructorParameters<typeof EncoderPool>[0]> = {}) =>
  new EncoderPool({ spawn: f.spawn, size, weights: WEIGHTS, kernels: KERNELS, pooling: 'mean', maxTokens: 256, ...extra });

describe('encoder pool', () => {
  it('embeds batches on its workers with the reference\'s vectors', async () => {
    const p = pool(fakes());
    await p.ready();
    const ids = [text(5, 6, 7), text(8), text(9, 10, 11, 12, 13)];
    const [a, b] = await Promise.all([p.run({ ids: ids.slice(0, 2), output: 'pooled', urgent: false }), p.run({ ids: ids.slice(2), output: 'pooled', urgent: false })]);
    const want = referenceEmbed(MODEL, ids.map((s) => ({ ids: s })), 'mean');
    [...a, ...b].forEach((v, i) => v.forEach((x, j) => expect(x).toBeCloseTo(want[i][j], 3)));
    const tokens = await p.run({ ids: [ids[2]], output: 'tokens', urgent: true });
    expect(tokens[0].length).toBe(ids[2].length * 32);
    await p.dispose();
  });

  it('a worker that crashes mid-batch is replaced and the batch retried: nothing is lost', async () => {
    const f = fakes(['crash', 'ok']);
    const restarts: string[] = [];
    const p = pool(f, 2, { onRestart: (r) => restarts.push(r) });
    await p.ready();
    const batches = Array.from({ length: 6 }, (_, i) => [text(3 + i, 4 + i)]);
    const out = await Promise.all(batches.map((ids) => p.run({ ids, output: 'pooled', urgent: false })));
    const want = referenceEmbed(MODEL, batches.map((b) => ({ ids: b[0] })), 'mean');
    out.forEach((rows, i) => rows[0].forEach((x, j) => expect(x).toBeCloseTo(want[i][j], 3)));
    expect(restarts).toEqual(['worker error: out of memory']);
    expect(f.spawned()).toBe(3);
    const crashed = f.log.find((l) => l.behaviour === 'crash')!;
    expect(f.log.filter((l) => l.batch === crashed.batch).length).toBe(2); // sent again, to another worker
    await p.dispose();
  });

  it('a hung worker is replaced after its deadline, and its late answer resolves nothing', async () => {
    const f = fakes(['hang']);
    const p = pool(f, 1, { deadlineMs: () => 50 });
    await p.ready();
    const ids = [text(20, 21)];
    const first = p.run({ ids, output: 'pooled', urgent: false });
    const rows = await first;
    const second = p.run({ ids: [text(30)], output: 'pooled', urgent: false });
    for (const answer of f.late) answer(); // the replaced worker answers batch 1 now
    const [v] = await second;
    const want = referenceEmbed(MODEL, [{ ids: ids[0] }, { ids: text(30) }], 'mean');
    rows[0].forEach((x, j) => expect(x).toBeCloseTo(want[0][j], 3));
    v.forEach((x, j) => expect(x).toBeCloseTo(want[1][j], 3));
    await p.dispose();
  });

  it('query batches overtake waiting document batches', async () => {
    const f = fakes();
    const p = pool(f, 1);
    await p.ready();
    const docs = Array.from({ length: 4 }, (_, i) => p.run({ ids: [text(i + 3)], output: 'pooled', urgent: false }));
    const query = p.run({ ids: [text(40)], output: 'pooled', urgent: true });
    await Promise.all([...docs, query]);
    // The first document was already sent; the query went next.
    expect(f.log.map((l) => l.batch)).toEqual([1, 5, 2, 3, 4]);
    await p.dispose();
  });

  it('rejects, never hangs, when no worker can load the model or a batch keeps crashing its workers', async () => {
    const none = pool(fakes(['fail-init', 'fail-init']));
    await expect(none.ready()).rejects.toThrow(/no encoder worker could load the model: cannot allocate/);
    await expect(none.run({ ids: [text(3)], output: 'pooled', urgent: false })).rejects.toThrow(/cannot allocate/);
    const always = pool(fakes(Array(10).fill('crash')), 1);
    await always.ready();
    await expect(always.run({ ids: [text(3)], output: 'pooled', urgent: false })).rejects.toThrow(new RegExp(`failed ${MAX_ATTEMPTS} times`));
    await always.dispose();
  });

  it('workers that die before any started fail the start at once (the caller starts them another way); one that starts brings the pool back to size', async () => {
    const f = fakes(['no-script', 'no-script', 'no-script']);
    const none = pool(f);
    await expect(none.ready()).rejects.toThrow(/no encoder worker started/);
    expect(f.spawned()).toBe(2); // not respawned from the same script again and again
    await expect(none.run({ ids: [text(3)], output: 'pooled', urgent: false })).rejects.toThrow(/no encoder worker started/);

    const g = fakes(['no-script', 'ok']);
    const some = pool(g);
    await some.ready();
    await new Promise((r) => setTimeout(r, 20)); // the replacement is up too
    const [a, b] = await Promise.all([some.run({ ids: [text(3)], output: 'pooled', urgent: false }), some.run({ ids: [text(4)], output: 'pooled', urgent: false })]);
    expect(a[0].length).toBe(MODEL.shape.hidden);
    expect(b[0].length).toBe(MODEL.shape.hidden);
    expect(g.spawned()).toBe(3); // the one lost at start was replaced once the other was up
    expect(new Set(g.log.map((l) => l.worker)).size).toBe(2); // and both live workers took a batch
    await some.dispose();
  });

  it('a worker that never says ready nor fails is given up after the start deadline: the start rejects, or, once another is up, it is replaced', async () => {
    const f = fakes(['silent', 'silent']);
    const none = pool(f, 2, { startDeadlineMs: 30 });
    await expect(none.ready()).rejects.toThrow(/no encoder worker started \(not ready within/);
    expect(f.spawned()).toBe(2);

    const g = fakes(['silent', 'ok']);
    const some = pool(g, 2, { startDeadlineMs: 30 });
    await some.ready();
    await new Promise((r) => setTimeout(r, 80)); // past the silent one's deadline: replaced
    expect(g.spawned()).toBe(3);
    const runs = await Promise.all([3, 4, 5, 6].map((t) => some.run({ ids: [text(t)], output: 'pooled', urgent: false })));
    expect(runs.every(([v]) => v.length === MODEL.shape.hidden)).toBe(true);
    expect(new Set(g.log.map((l) => l.worker))).toEqual(new Set([1, 2])); // the replacement took batches
    await some.dispose();
  });

  it('a bad batch (a token outside the vocabulary) rejects without a restart', async () => {
    const restarts: string[] = [];
    const p = pool(fakes(), 1, { onRestart: (r) => restarts.push(r) });
    await p.ready();
    await expect(p.run({ ids: [text(999)], output: 'pooled', urgent: false })).rejects.toThrow(/outside the vocabulary/);
    expect(restarts).toEqual([]);
    await p.dispose();
  });
});

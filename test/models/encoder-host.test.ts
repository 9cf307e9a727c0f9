/**
 * Encoder workers started by the page (src/models/encoder-runtime/encoder-host.ts), without a
 * browser: the page's host and the engine worker's spawner over real MessageChannels, the workers
 * in-process running the real handler on a tiny model. The pool embeds through them as through
 * workers of its own; a worker's error reaches the pool (which replaces it); a page that cannot start
 * workers fails the start instead of hanging it; the page terminates what it started.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hostEncoderWorkers, pageSpawner, type EncoderPortMessage, type HostedWorker } from '../../src/models/encoder-runtime/encoder-host.ts';
import { EncoderPool } from '../../src/models/encoder-runtime/encoder-pool.ts';
import { encoderWorkerHandler } from '../../src/models/encoder-runtime/worker-handler.ts';
import { encoderKernels } from '../../src/models/encoder-runtime/kernel-module.ts';
import { bertWeights } from '../../src/models/encoder-runtime/bert-weights.ts';
import { decodeWeights } from '../../src/models/encoder-runtime/weights-file.ts';
import { referenceEmbed } from '../../src/models/encoder-runtime/reference.ts';
import type { ToEncoderWorker } from '../../src/models/encoder-runtime/worker-messages.ts';
import { tinyEncoderWeights } from '../support/tiny-encoder.ts';

const BYTES = tinyEncoderWeights();
const WEIGHTS = BYTES.buffer.slice(BYTES.byteOffset, BYTES.byteOffset + BYTES.byteLength) as ArrayBuffer;
const MODEL = bertWeights(decodeWeights(WEIGHTS));
const KERNELS = (await encoderKernels(MODEL.shape))!;
const text = (...ids: number[]) => Int32Array.from([1, ...ids, 2]);

interface FakeWorker extends HostedWorker {
  terminated: boolean;
  crash(message: string): void;
}

/** What the page would start: an in-process worker serving the real handler on the port it is given. */
function pageWorkers() {
  const started: FakeWorker[] = [];
  const start = (): FakeWorker => {
    let onError: ((e: ErrorEvent) => void) | undefined;
    let port: MessagePort | undefined;
    const w: FakeWorker = {
      terminated: false,
      postMessage(m: EncoderPortMessage) {
        port = m.port;
        const handle = encoderWorkerHandler((r, transfer) => !w.terminated && m.port.postMessage(r, transfer ?? []));
        m.port.onmessage = (e: MessageEvent<ToEncoderWorker>) => !w.terminated && handle(e.data);
      },
      terminate() {
        w.terminated = true;
        port?.close();
      },
      addEventListener(_type, listener) {
        onError = listener;
      },
      crash(message) {
        onError?.({ message } as ErrorEvent);
      },
    };
    started.push(w);
    return w;
  };
  return { start, started };
}

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((c) => c()));

/** The page's host and the engine worker's spawner, joined by a channel as client/boot.ts joins them. */
function hosted(start: () => HostedWorker) {
  const { port1, port2 } = new MessageChannel();
  const host = hostEncoderWorkers(port1, start);
  closers.push(() => (host.close(), port2.close()));
  return { host, spawn: pageSpawner(port2) };
}

const pool = (spawn: ReturnType<typeof pageSpawner>, size = 2) =>
  new EncoderPool({ spawn, size, weights: WEIGHTS, kernels: KERNELS, pooling: 'mean', maxTokens: 256, startedBy: 'the page', startDeadlineMs: 5_000 });

describe('encoder workers started by the page', () => {
  it('the pool embeds through them with the reference vectors, and its end terminates them', async () => {
    const page = pageWorkers();
    const p = pool(hosted(page.start).spawn);
    await p.ready();
    expect(page.started).toHaveLength(2);
    expect(p.description).toMatch(/2 workers started by the page$/);
    const ids = [text(5, 6, 7), text(8), text(9, 10, 11, 12, 13)];
    const rows = (await Promise.all([p.run({ ids: ids.slice(0, 2), output: 'pooled', urgent: false }), p.run({ ids: ids.slice(2), output: 'pooled', urgent: false })])).flat();
    const want = referenceEmbed(MODEL, ids.map((s) => ({ ids: s })), 'mean');
    rows.forEach((v, i) => v.forEach((x, j) => expect(x).toBeCloseTo(want[i][j], 3)));
    await p.dispose();
    await expect.poll(() => page.started.every((w) => w.terminated)).toBe(true);
  });

  it("a worker's error event reaches the pool, which has the page start another and retries", async () => {
    const page = pageWorkers();
    const p = pool(hosted(page.start).spawn, 1);
    await p.ready();
    page.started[0].crash('out of memory');
    const [row] = await p.run({ ids: [text(4, 5)], output: 'pooled', urgent: false });
    referenceEmbed(MODEL, [{ ids: text(4, 5) }], 'mean')[0].forEach((x, j) => expect(row[j]).toBeCloseTo(x, 3));
    expect(page.started).toHaveLength(2);
    await expect.poll(() => page.started[0].terminated).toBe(true);
    expect(page.started[1].terminated).toBe(false);
    await p.dispose();
  });

  it('a page that cannot start workers fails the start with its reason (the engine worker then starts them itself)', async () => {
    const refuse = (): HostedWorker => {
      throw new Error("Refused to create a worker: violates the Content Security Policy directive worker-src 'none'");
    };
    const p = pool(hosted(refuse).spawn);
    await expect(p.ready()).rejects.toThrow(/no encoder worker started \(.*worker-src 'none'/);
  });

  it("the page's close terminates every worker it started", async () => {
    const page = pageWorkers();
    const { host, spawn } = hosted(page.start);
    const p = pool(spawn);
    await p.ready();
    host.close();
    expect(page.started.map((w) => w.terminated)).toEqual([true, true]);
    await p.dispose();
  });
});

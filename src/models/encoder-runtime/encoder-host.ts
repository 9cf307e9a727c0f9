/**
 * Encoder workers started by the page, not by the engine worker. A worker that starts a worker
 * waits on a round trip through the main thread, and Firefox was seen to leave the engine worker's
 * thread inside that `new Worker()` for good (docs/browsers.md, "the encoder start hang"). So the
 * page hosts them: the engine worker asks over a host port (`spawn`), the page starts the worker,
 * gives it one end of a fresh channel and hands the engine worker the other, and from then on the
 * two workers talk directly over that channel (worker-messages.ts, unchanged). The page forwards the
 * worker's `error` events and terminates it when asked, or all of them when the engine stops.
 *
 * Page side: `hostEncoderWorkers`. Engine side: `pageSpawner`, whose workers behave as the pool's
 * `EncoderWorkerLike` from the moment they are asked for (messages wait for the port).
 */
import type { EncoderWorkerLike } from './encoder-pool.ts';
import type { FromEncoderWorker, ToEncoderWorker } from './worker-messages.ts';

/** Engine worker → page, on the host port. */
export type ToEncoderHost = { type: 'spawn'; id: number } | { type: 'terminate'; id: number };

/** Page → engine worker, on the host port. */
export type FromEncoderHost =
  /** The encoder worker `id` was started; `port` reaches it. */
  | { type: 'spawned'; id: number; port: MessagePort }
  /** The encoder worker `id` could not start, or fired `error` (its script failed, it crashed). */
  | { type: 'error'; id: number; message: string };

/** What the page sends a worker it started, before anything else: the port to serve on. */
export interface EncoderPortMessage {
  type: 'port';
  port: MessagePort;
}

/** The part of a Worker the host uses (a test can pass its own). */
export interface HostedWorker {
  postMessage(message: EncoderPortMessage, transfer: Transferable[]): void;
  terminate(): void;
  addEventListener(type: 'error', listener: (e: ErrorEvent) => void): void;
}

/** The page's side: serves `spawn` and `terminate` on `port`; `close()` terminates every worker it started. */
export function hostEncoderWorkers(port: MessagePort, start: () => HostedWorker): { close(): void } {
  const workers = new Map<number, HostedWorker>();
  const post = (m: FromEncoderHost, transfer: Transferable[] = []) => port.postMessage(m, transfer);
  port.onmessage = (e: MessageEvent<ToEncoderHost>) => {
    const m = e.data;
    if (m.type === 'terminate') {
      workers.get(m.id)?.terminate();
      workers.delete(m.id);
      return;
    }
    if (m.type !== 'spawn' || workers.has(m.id)) return;
    try {
      const worker = start();
      workers.set(m.id, worker);
      worker.addEventListener('error', (ev) => post({ type: 'error', id: m.id, message: ev.message || 'the encoder worker failed' }));
      const { port1, port2 } = new MessageChannel();
      worker.postMessage({ type: 'port', port: port1 }, [port1]);
      post({ type: 'spawned', id: m.id, port: port2 }, [port2]);
    } catch (err) {
      // A CSP without `worker-src 'self'`, say: the engine worker then starts them another way.
      post({ type: 'error', id: m.id, message: err instanceof Error ? err.message : String(err) });
    }
  };
  return {
    close() {
      for (const w of workers.values()) w.terminate();
      workers.clear();
      port.close();
    },
  };
}

/** The engine worker's side: a spawner for the pool whose workers the page starts. */
export function pageSpawner(port: MessagePort): () => EncoderWorkerLike {
  const hosted = new Map<number, HostedEncoder>();
  let nextId = 1;
  port.onmessage = (e: MessageEvent<FromEncoderHost>) => {
    const worker = hosted.get(e.data.id);
    if (!worker) return;
    if (e.data.type === 'spawned') worker.attach(e.data.port);
    else worker.fail(e.data.message);
  };
  return () => {
    const id = nextId++;
    const worker = new HostedEncoder(() => {
      hosted.delete(id);
      port.postMessage({ type: 'terminate', id } satisfies ToEncoderHost);
    });
    hosted.set(id, worker);
    port.postMessage({ type: 'spawn', id } satisfies ToEncoderHost);
    return worker;
  };
}

/** An encoder worker the page started, seen from the engine worker: posts wait until its port arrives. */
class HostedEncoder implements EncoderWorkerLike {
  onmessage: ((e: MessageEvent<FromEncoderWorker>) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  private port: MessagePort | undefined;
  private waiting: [ToEncoderWorker, Transferable[] | undefined][] = [];
  private ended = false;

  constructor(private readonly end: () => void) {}

  attach(port: MessagePort): void {
    if (this.ended) return port.close();
    this.port = port;
    port.onmessage = (e: MessageEvent<FromEncoderWorker>) => this.onmessage?.(e);
    for (const [m, transfer] of this.waiting.splice(0)) port.postMessage(m, transfer ?? []);
  }

  fail(message: string): void {
    if (!this.ended) this.onerror?.({ message } as ErrorEvent);
  }

  postMessage(message: ToEncoderWorker, transfer?: Transferable[]): void {
    if (this.ended) return;
    if (this.port) this.port.postMessage(message, transfer ?? []);
    else this.waiting.push([message, transfer]);
  }

  terminate(): void {
    if (this.ended) return;
    this.ended = true;
    this.waiting = [];
    this.port?.close();
    this.end();
  }
}

import * as Comlink from 'comlink';
import { hostEncoderWorkers } from '../models/encoder-runtime/encoder-host.ts';
import type { ControlApi } from '../protocol/control.ts';
import { PortTransport } from '../transport/port-transport.ts';
import { RcpClient, type ClientOptions } from './rcp-client.ts';

export interface WorkerHandle {
  /** The worker's control plane (every method already returns a promise, so the comlink proxy has this shape). */
  control: ControlApi;
  /** Opens a new RCP session port and returns its (not yet initialized) client. */
  openClient(opts?: ClientOptions): Promise<RcpClient>;
  /** Opens a raw session port (the bridges relay its frames untouched). */
  openPort(): Promise<MessagePort>;
  terminate(): void;
}

/**
 * The engine worker shipped beside this module. Written as `new Worker(new URL(…, import.meta.url))`
 * so that bundlers (Vite, webpack, esbuild) see it and emit the worker as its own file.
 */
export const spawnEngineWorker = (opts: { bundle?: boolean } = {}): Worker =>
  // The name tells a worker that will serve a bundle to fetch its reader while its own script
  // evaluates, before `configure` arrives (worker.ts reads the same literal). Two calls with literal
  // options: a consumer's bundler (Vite, webpack) accepts only literals in `new Worker(…)`.
  opts.bundle
    ? new Worker(new URL('../worker-entry.ts', import.meta.url), { type: 'module', name: 'rcp-engine:bundle' })
    : new Worker(new URL('../worker-entry.ts', import.meta.url), { type: 'module', name: 'rcp-engine' });

/** An encoder worker, started by this page for the engine worker (encoder-host.ts says why). */
const spawnEncoderWorker = (): Worker => new Worker(new URL('../models/encoder-runtime/encoder-worker.ts', import.meta.url), { type: 'module', name: 'rcp-encoder' });

/**
 * Starts the engine worker (or wraps one the caller started) and wraps its control plane. Its
 * first message hands the worker a port on which this page starts its encoder workers.
 */
export function bootWorker(worker: Worker = spawnEngineWorker()): WorkerHandle {
  const control: ControlApi = Comlink.wrap<ControlApi>(worker);
  const { port1, port2 } = new MessageChannel();
  const encoders = hostEncoderWorkers(port1, spawnEncoderWorker);
  // An engine worker of another version may lack the method: it then starts its encoders itself.
  control.encoderHost(Comlink.transfer(port2, [port2])).catch(() => encoders.close());
  const openPort = () => control.connect();
  return {
    control,
    openPort,
    async openClient(opts) {
      return new RcpClient(new PortTransport(await openPort()), opts);
    },
    terminate: () => {
      worker.terminate();
      encoders.close();
    },
  };
}

/// <reference types="vite/client" />
/**
 * How encoder workers are started, in order of preference:
 * 1. by the page (encoder-host.ts), when the page attached a host port (client/boot.ts does): no
 *    worker is started from a worker, which is where Firefox was seen to hang;
 * 2. from their own script URL (what a strict CSP allows with `worker-src 'self'`);
 * 3. from the same bundle inlined into this one and started from a blob: URL (`worker-src blob:`,
 *    which the app's own CSP allows): for a host serving the app by request interception, which
 *    does not see the requests of a worker that a worker starts, so the script never arrives.
 * The worker needs nothing else from the network: the weights come in its init message.
 */
import type { EncoderWorkerLike } from './encoder-pool.ts';
import { pageSpawner } from './encoder-host.ts';

export type SpawnEncoder = () => EncoderWorkerLike;

/** The page's encoder host, once the page attached one (one per engine worker). */
let fromPageHost: SpawnEncoder | undefined;

/** Called (once) by the engine worker's control plane with the port the page hosts encoder workers on. */
export function attachEncoderHost(port: MessagePort): void {
  fromPageHost = pageSpawner(port);
}

/** Workers started by the page, when it attached a host. */
export const fromPage = (): SpawnEncoder | undefined => fromPageHost;

export const fromScript: SpawnEncoder = () => new Worker(new URL('./encoder-worker.ts', import.meta.url), { type: 'module', name: 'rcp-encoder' });

/** The inlined bundle (loaded only when needed: a browser whose script-URL workers failed). */
export async function fromInlined(): Promise<SpawnEncoder> {
  const { default: EncoderWorker } = await import('./encoder-worker.ts?worker&inline');
  return () => new EncoderWorker({ name: 'rcp-encoder' });
}

/// <reference types="vite/client" />
/**
 * How encoder workers are started. From their own script URL first (what a strict CSP allows with
 * `worker-src 'self'`). Where that fails — a host serving the app by request interception, as the
 * bridges' Chromium does (bridges/browser-host.ts), does not see the requests of a worker that a
 * worker starts, so the script never arrives — from the same bundle inlined into this one and
 * started from a blob: URL (`worker-src blob:`, which the app's own CSP allows). The worker needs
 * nothing else from the network: the weights come in its init message.
 */
export type SpawnEncoder = () => Worker;

export const fromScript: SpawnEncoder = () => new Worker(new URL('./encoder-worker.ts', import.meta.url), { type: 'module', name: 'rcp-encoder' });

/** The inlined bundle (loaded only when needed: a browser whose script-URL workers failed). */
export async function fromInlined(): Promise<SpawnEncoder> {
  const { default: EncoderWorker } = await import('./encoder-worker.ts?worker&inline');
  return () => new EncoderWorker({ name: 'rcp-encoder' });
}

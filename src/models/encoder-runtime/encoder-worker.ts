/**
 * An encoder worker: holds one copy of the model in its own WebAssembly memory and embeds the
 * batches the engine worker sends (worker-messages.ts, worker-handler.ts). A crash (the worker dies
 * or hangs) is the pool's to handle (encoder-pool.ts). Started by the page, it first gets the port
 * that reaches the engine worker (encoder-host.ts) and serves on it; started by the engine worker,
 * it serves on its own scope.
 */
import type { EncoderPortMessage } from './encoder-host.ts';
import { encoderWorkerHandler } from './worker-handler.ts';
import type { FromEncoderWorker, ToEncoderWorker } from './worker-messages.ts';

type Post = (m: FromEncoderWorker, transfer?: Transferable[]) => void;
const scope = globalThis as unknown as { onmessage: ((e: MessageEvent<ToEncoderWorker | EncoderPortMessage>) => void) | null; postMessage: Post };
let post: Post = (m, transfer) => scope.postMessage(m, transfer);
const handle = encoderWorkerHandler((m, transfer) => post(m, transfer));
scope.onmessage = (e) => {
  if (e.data.type !== 'port') return handle(e.data);
  const { port } = e.data;
  post = (m, transfer) => port.postMessage(m, transfer ?? []);
  port.onmessage = (ev: MessageEvent<ToEncoderWorker>) => handle(ev.data);
};

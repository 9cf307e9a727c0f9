/**
 * An encoder worker: holds one copy of the model in its own WebAssembly memory and embeds the
 * batches the engine worker sends (worker-messages.ts, worker-handler.ts). A crash (the worker dies
 * or hangs) is the pool's to handle (encoder-pool.ts).
 */
import { encoderWorkerHandler } from './worker-handler.ts';
import type { FromEncoderWorker, ToEncoderWorker } from './worker-messages.ts';

const scope = globalThis as unknown as { onmessage: ((e: MessageEvent<ToEncoderWorker>) => void) | null; postMessage(m: FromEncoderWorker, transfer?: Transferable[]): void };
const handle = encoderWorkerHandler((m, transfer) => scope.postMessage(m, transfer));
scope.onmessage = (e) => handle(e.data);

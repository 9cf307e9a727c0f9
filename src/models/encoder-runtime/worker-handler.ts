/**
 * What an encoder worker does with each message (worker-messages.ts): `init` builds the encoder
 * from the weight file's bytes and the compiled kernels, `run` embeds one batch. Kept apart from
 * the worker's entry (encoder-worker.ts) so a test can run it in-process.
 */
import { runBatch } from './batch-encoder.ts';
import { bertWeights } from './bert-weights.ts';
import { WasmBertEncoder } from './wasm-encoder.ts';
import { decodeWeights } from './weights-file.ts';
import type { FromEncoderWorker, ToEncoderWorker } from './worker-messages.ts';
import type { Pooling } from '../recipe.ts';

export function encoderWorkerHandler(post: (m: FromEncoderWorker, transfer?: Transferable[]) => void): (m: ToEncoderWorker) => void {
  let encoder: WasmBertEncoder | undefined;
  let pooling: Pooling = 'mean';
  const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
  return (m) => {
    if (m.type === 'init') {
      try {
        encoder = new WasmBertEncoder(bertWeights(decodeWeights(m.weights)), { module: m.module, dot: m.dot }, m.maxTokens);
        pooling = m.pooling;
        post({ type: 'ready', memoryBytes: encoder.memoryBytes });
      } catch (err) {
        post({ type: 'failed', error: message(err) });
      }
      return;
    }
    if (!encoder) return post({ type: 'error', id: m.id, error: 'encoder worker not initialised' });
    try {
      const ids: Int32Array[] = [];
      let at = 0;
      for (const n of m.lengths) ids.push(m.ids.subarray(at, (at += n)));
      const rows = runBatch(encoder, ids, m.output, pooling);
      const lengths = Int32Array.from(rows, (r) => r.length);
      const data = new Float32Array(lengths.reduce((a, b) => a + b, 0));
      let o = 0;
      for (const r of rows) data.set(r, (o += r.length) - r.length);
      post({ type: 'done', id: m.id, data, lengths }, [data.buffer]);
    } catch (err) {
      post({ type: 'error', id: m.id, error: message(err) });
    }
  };
}

/**
 * Messages between the engine worker and its encoder workers (encoder-pool.ts ⇄ encoder-worker.ts).
 * Types only.
 */
import type { Pooling } from '../recipe.ts';
import type { BatchOutput } from './batch-encoder.ts';
import type { DotKind } from './kernels/gemm.ts';

export type ToEncoderWorker =
  /** The weight file's bytes (a copy per worker) and the compiled kernels; answered by `ready` or `failed`. */
  | { type: 'init'; weights: ArrayBuffer; module: WebAssembly.Module; dot: DotKind; pooling: Pooling; maxTokens: number }
  /** One batch: the texts' ids concatenated, with each text's length; answered by `done` or `error` with the same id. */
  | { type: 'run'; id: number; ids: Int32Array; lengths: Int32Array; output: BatchOutput };

export type FromEncoderWorker =
  | { type: 'ready'; memoryBytes: number }
  | { type: 'failed'; error: string }
  /** Rows concatenated; `lengths` = floats per text. */
  | { type: 'done'; id: number; data: Float32Array; lengths: Int32Array }
  /** The batch itself is bad (e.g. a token id outside the vocabulary): not retried. */
  | { type: 'error'; id: number; error: string };

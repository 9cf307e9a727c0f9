/**
 * What runs a batch of tokenised texts through the encoder: in this thread (`LocalBatchEncoder`,
 * Node and single-core hosts) or in encoder workers (encoder-pool.ts). A batch is a list of token
 * id sequences; the answer is one row per text (its pooled unit vector) or every token's row.
 */
import type { Pooling } from '../recipe.ts';
import type { BertWeights } from './bert-weights.ts';
import { describeKernels, type EncoderKernels } from './kernel-module.ts';
import { poolHidden } from './reference.ts';
import { WasmBertEncoder } from './wasm-encoder.ts';

/** `pooled`: one unit vector per text; `tokens`: the last hidden state, every token's row. */
export type BatchOutput = 'pooled' | 'tokens';

export interface EncoderBatch {
  /** Token ids per text (special tokens included, already truncated). */
  ids: Int32Array[];
  output: BatchOutput;
  /** Query batches go before waiting document batches. */
  urgent: boolean;
}

/** Tokens in a batch (its texts' lengths summed). */
export const batchTokens = (batch: EncoderBatch): number => batch.ids.reduce((n, s) => n + s.length, 0);

export interface BatchEncoder {
  /** How the workers run (for the model's log line and status), e.g. `WASM relaxed SIMD, 2 workers`. */
  readonly description: string;
  /** Tokens one batch may hold. */
  readonly maxTokens: number;
  /** Batches that can run at the same time (workers). */
  readonly parallelism: number;
  run(batch: EncoderBatch): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

/** Runs one batch on an encoder instance: pooled rows or token rows per text. */
export function runBatch(encoder: WasmBertEncoder, ids: readonly Int32Array[], output: BatchOutput, pooling: Pooling): Float32Array[] {
  const hidden = encoder.hidden(ids.map((s) => ({ ids: s })));
  if (output === 'tokens') return hidden;
  const H = encoder.weights.shape.hidden;
  return hidden.map((h, i) => poolHidden(h, ids[i].length, H, pooling));
}

/** The encoder in this thread; batches run one after another (an urgent one before waiting others). */
export class LocalBatchEncoder implements BatchEncoder {
  readonly parallelism = 1;
  readonly description: string;
  private readonly encoder: WasmBertEncoder;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    weights: BertWeights,
    kernels: EncoderKernels,
    private readonly pooling: Pooling,
    maxTokens?: number,
    encoder: WasmBertEncoder = new WasmBertEncoder(weights, kernels, maxTokens),
  ) {
    this.encoder = encoder;
    this.description = `${describeKernels(kernels)}, in this thread`;
  }

  /** The same, its weights packed in slices (`WasmBertEncoder.create`): for a thread that must keep answering. */
  static async create(weights: BertWeights, kernels: EncoderKernels, pooling: Pooling, maxTokens?: number): Promise<LocalBatchEncoder> {
    return new LocalBatchEncoder(weights, kernels, pooling, maxTokens, await WasmBertEncoder.create(weights, kernels, maxTokens));
  }

  get maxTokens(): number {
    return this.encoder.maxTokens;
  }

  run(batch: EncoderBatch): Promise<Float32Array[]> {
    // Synchronous compute: serialising through one promise chain keeps each call's result its own.
    const result = this.queue.then(() => runBatch(this.encoder, batch.ids, batch.output, this.pooling));
    this.queue = result.catch(() => undefined);
    return result;
  }

  async dispose(): Promise<void> {
    await this.queue;
  }
}

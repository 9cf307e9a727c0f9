/**
 * Short query batches in this thread, everything else on the encoder workers. A query then skips
 * two postMessage hops, and never waits behind a document batch a worker is running (up to
 * ≈ 0.3 s each while background embedding runs). The cost is one more copy of the packed weights,
 * in this thread's memory. Documents never run here: this thread also serves search.
 */
import { batchTokens, type BatchEncoder, type EncoderBatch } from './batch-encoder.ts';

/** Tokens a batch may hold to run here: a few queries (a query is rarely past 32 word pieces). */
export const LOCAL_QUERY_TOKENS = 128;

export class LocalQueries implements BatchEncoder {
  constructor(
    private readonly workers: BatchEncoder,
    private readonly local: BatchEncoder,
  ) {}

  get description(): string {
    return `${this.workers.description}, queries in this thread`;
  }

  get maxTokens(): number {
    return this.workers.maxTokens;
  }

  get parallelism(): number {
    return this.workers.parallelism;
  }

  run(batch: EncoderBatch): Promise<Float32Array[]> {
    const here = batch.urgent && batch.output === 'pooled' && batchTokens(batch) <= this.local.maxTokens;
    return (here ? this.local : this.workers).run(batch);
  }

  async dispose(): Promise<void> {
    await Promise.all([this.workers.dispose(), this.local.dispose()]);
  }
}

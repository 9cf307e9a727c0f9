/**
 * Short queries run in the engine's own thread, everything else on the encoder workers
 * (src/models/encoder-runtime/local-queries.ts): a query never waits behind a document batch.
 */
import { describe, expect, it } from 'vitest';
import type { BatchEncoder, EncoderBatch } from '../../src/models/encoder-runtime/batch-encoder.ts';
import { LOCAL_QUERY_TOKENS, LocalQueries } from '../../src/models/encoder-runtime/local-queries.ts';

/** A backend that answers after `ms` with one row per text holding `tag`, and records what it ran. */
function backend(tag: number, ms: number, maxTokens: number) {
  const ran: EncoderBatch[] = [];
  const b: BatchEncoder = {
    description: `backend ${tag}`,
    maxTokens,
    parallelism: 2,
    run: (batch) => {
      ran.push(batch);
      return new Promise((ok) => setTimeout(() => ok(batch.ids.map(() => Float32Array.of(tag))), ms));
    },
    dispose: async () => undefined,
  };
  return { b, ran };
}
const ids = (tokens: number) => Int32Array.from({ length: tokens }, (_, i) => i);

describe('LocalQueries', () => {
  it('sends short query batches here and documents, token rows and long batches to the workers', async () => {
    const workers = backend(1, 5, 2048);
    const local = backend(2, 1, LOCAL_QUERY_TOKENS);
    const e = new LocalQueries(workers.b, local.b);
    expect(await e.run({ ids: [ids(12)], output: 'pooled', urgent: true })).toEqual([Float32Array.of(2)]);
    expect(await e.run({ ids: [ids(12)], output: 'pooled', urgent: false })).toEqual([Float32Array.of(1)]);
    expect(await e.run({ ids: [ids(12)], output: 'tokens', urgent: true })).toEqual([Float32Array.of(1)]);
    expect(await e.run({ ids: [ids(100), ids(100)], output: 'pooled', urgent: true })).toEqual([Float32Array.of(1), Float32Array.of(1)]);
    expect(local.ran.map((r) => r.ids.length)).toEqual([1]);
    expect(workers.ran).toHaveLength(3);
    expect(e.maxTokens).toBe(2048);
    expect(e.parallelism).toBe(2);
    expect(e.description).toBe('backend 1, queries in this thread');
  });

  it('a query is answered while a long document batch is still running on the workers', async () => {
    const e = new LocalQueries(backend(1, 200, 2048).b, backend(2, 1, LOCAL_QUERY_TOKENS).b);
    const order: string[] = [];
    const doc = e.run({ ids: [ids(500)], output: 'pooled', urgent: false }).then(() => order.push('document'));
    const query = e.run({ ids: [ids(10)], output: 'pooled', urgent: true }).then(() => order.push('query'));
    await Promise.all([doc, query]);
    expect(order).toEqual(['query', 'document']);
  });
});

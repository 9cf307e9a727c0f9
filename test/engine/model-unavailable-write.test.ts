/**
 * An inline embedder (a static model, embedded as documents are written) whose model cannot load:
 * the write is not refused. It is stored for sparse search, and the background pass embeds it
 * once the model loads (writer.ts, background-reembed.ts).
 */
import { expect, it } from 'vitest';
import type { Embedder } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { ModelUnavailableError } from '../../src/engine/errors.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { ids, search } from '../support/engine.ts';

/** One-hot on the word "whale" (or "ship"); fails with ModelUnavailableError while `broken`. */
class FlakyModel implements Embedder {
  readonly identity = 'flaky@sha256:000000000001';
  readonly dimension = 2;
  readonly normalized = true;
  broken = true;
  async embed(texts: string[]): Promise<Float32Array[]> {
    if (this.broken) throw new ModelUnavailableError('model flaky is unavailable: no available backend found');
    return texts.map((t) => (/whale/i.test(t) ? Float32Array.of(1, 0) : Float32Array.of(0, 1)));
  }
}

it('a write while the model cannot load is stored for sparse search, and embedded once the model loads', async () => {
  const model = new FlakyModel();
  const engine = new Engine({ store: new MemoryStore(), embedder: model });
  await engine.open();
  const added = await engine.add([{ id: 'w', text: 'The white whale swam past.' }, { id: 's', text: 'A ship sailed on.' }]);
  expect(added.ids).toEqual(['w', 's']);
  expect(ids(await search(engine, { query: 'whale', mode: 'sparse' }))).toEqual(['w']);
  expect(engine.pendingVectors()).toBe(2);

  model.broken = false;
  await engine.add([{ id: 'x', text: 'Another whale.' }]); // a write retries the background pass
  await engine.whenReembedded();
  await expect.poll(() => engine.pendingVectors(), { timeout: 10_000 }).toBe(0);
  expect(ids(await search(engine, { query: 'whale', mode: 'dense', k: 3 })).slice(0, 2).sort()).toEqual(['w', 'x']);
});

it('any other embedder failure still refuses the write', async () => {
  const embedder: Embedder = { identity: 'bad@sha256:000000000002', dimension: 2, normalized: true, embed: async () => [] };
  const engine = new Engine({ store: new MemoryStore(), embedder });
  await engine.open();
  await expect(engine.add([{ id: 'a', text: 'hello' }])).rejects.toThrow(/embedder returned 0 vectors/);
  expect(ids(await search(engine, { query: 'hello', mode: 'sparse' }))).toEqual([]);
});

/**
 * A slow encoder does not hold up writes (Engine `embedInBackground`): `add` commits the text for
 * sparse search at once, the background re-embedding fills the vectors in, `pendingVectors()` says
 * how far behind it is; and a query batch overtakes waiting document batches (PriorityLock).
 */
import { retrieveInProcess } from '../../src/server/retrieve-plan.ts';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { PriorityLock } from '../../src/models/priority-lock.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';

/** An embedder whose document calls wait until released (queries answer at once). */
function gatedEmbedder(): Embedder & { release(): void; documentCalls: number } {
  let open!: () => void;
  const gate = new Promise<void>((ok) => (open = ok));
  const e = {
    identity: 'gated@test',
    dimension: 2,
    normalized: true,
    documentCalls: 0,
    release: () => open(),
    async embed(texts: string[], kind: 'query' | 'document') {
      if (kind === 'document') {
        e.documentCalls++;
        await gate;
      }
      return texts.map((t) => (t.includes('whale') ? Float32Array.of(1, 0) : Float32Array.of(0, 1)));
    },
  };
  return e;
}

describe('embedInBackground', () => {
  it('add returns before the vectors exist; sparse sees the write at once, dense once embedded', async () => {
    const embedder = gatedEmbedder();
    const engine = new Engine({ store: new MemoryStore(), embedder, embedInBackground: true });
    await engine.open();
    await engine.add([{ id: 'a', text: 'the white whale' }, { id: 'b', text: 'a railroad bill' }]);
    expect(engine.pendingVectors()).toBe(2);
    expect((await retrieveInProcess(engine, { query: 'whale', mode: 'sparse' })).hits.map((h) => h.id)).toEqual(['a']);
    const before = await retrieveInProcess(engine, { query: 'whale', mode: 'dense' });
    expect(before.hits).toEqual([]);
    expect(before.usage?.notes?.join(' ')).toMatch(/2 chunks have no vectors/);
    embedder.release();
    await engine.whenReembedded();
    expect(engine.pendingVectors()).toBe(0);
    expect((await retrieveInProcess(engine, { query: 'whale', mode: 'dense', k: 1 })).hits.map((h) => h.id)).toEqual(['a']);
  });

  it('without it, add waits for the vectors (the default)', async () => {
    const embedder = gatedEmbedder();
    const engine = new Engine({ store: new MemoryStore(), embedder });
    await engine.open();
    let done = false;
    const adding = engine.add([{ id: 'a', text: 'the white whale' }]).then(() => (done = true));
    await expect.poll(() => embedder.documentCalls).toBe(1);
    expect(done).toBe(false);
    embedder.release();
    await adding;
    expect(engine.pendingVectors()).toBe(0);
  });
});

describe('PriorityLock', () => {
  it('runs one task at a time, urgent ones before waiting non-urgent ones', async () => {
    const lock = new PriorityLock();
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = lock.run(false, () => new Promise<void>((ok) => (releaseFirst = () => (order.push('doc1'), ok()))));
    const doc2 = lock.run(false, async () => void order.push('doc2'));
    const doc3 = lock.run(false, async () => void order.push('doc3'));
    const query = lock.run(true, async () => void order.push('query'));
    releaseFirst();
    await Promise.all([first, doc2, doc3, query]);
    expect(order).toEqual(['doc1', 'query', 'doc2', 'doc3']);
    await lock.idle();
  });
});

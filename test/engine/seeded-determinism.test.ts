/**
 * §7.7.1: a server that honours `seed` returns identical results for identical
 * `(query, params, seed, indexVersion)`. Two things change an answer without changing the index
 * version, and a seeded request must not see either: the model's weights finishing their load (a
 * default-mode request is served sparse meanwhile) and vectors embedded ahead of their segment's
 * commit (search-aware embedding order). The fresh-clone CI caught the first one through the HTTP
 * bridge: two seeded retrieves straddled the model's load and returned different hits.
 */
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { HashEmbedder, ids, makeEngine, search } from '../support/engine.ts';

const key = (r: Awaited<ReturnType<typeof search>>) => JSON.stringify(r.hits.map((h) => [h.id, h.score]));

/** A HashEmbedder whose weights "load" when the test says so. */
function loadingEmbedder(): { embedder: Embedder; finish(): void; calls(): number } {
  const hash = new HashEmbedder();
  let loaded = false;
  let calls = 0;
  let finish!: () => void;
  const done = new Promise<void>((ok) => (finish = () => ((loaded = true), ok())));
  const embedder: Embedder = {
    identity: hash.identity,
    dimension: hash.dimension,
    normalized: hash.normalized,
    ready: () => loaded,
    whenReady: () => done.then(() => true),
    embed: async (texts) => ((calls += 1), await done, hash.embed(texts)),
  };
  return { embedder, finish, calls: () => calls };
}

describe('seeded retrieves are reproducible (§7.7.1)', () => {
  it('a seeded default-mode request waits for the weights and is served in the default mode; unseeded ones are served sparse meanwhile', async () => {
    const { store, engine } = await makeEngine({ embedder: new HashEmbedder() });
    await engine.add([{ id: 'w', text: 'the white whale' }, { id: 's', text: 'a sailing ship' }, { id: 'h', text: 'a whale of a ship' }]);
    const model = loadingEmbedder();
    const tab = new Engine({ store, embedder: model.embedder });
    await tab.open();

    const unseeded = await search(tab, { query: 'whale', k: 3 });
    expect(unseeded.usage?.notes?.some((n) => /served as sparse: the dense model is still loading/.test(n))).toBe(true);

    let settled = false;
    const seeded = search(tab, { query: 'whale', k: 3, seed: 7 }).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false); // waiting for the weights, not served sparse
    model.finish();
    const one = await seeded;
    expect(one.usage?.notes?.some((n) => /served as sparse/.test(n)) ?? false).toBe(false);
    expect(one.hits.some((h) => h.scores?.dense !== undefined)).toBe(true);
    const two = await search(tab, { query: 'whale', k: 3, seed: 7 });
    expect(two.indexVersion).toBe(one.indexVersion);
    expect(key(two)).toBe(key(one));
  });

  it('a model that cannot load serves the seeded request sparse rather than failing it', async () => {
    const { store, engine } = await makeEngine({ embedder: new HashEmbedder() });
    await engine.add([{ id: 'w', text: 'the white whale' }, { id: 's', text: 'a sailing ship' }]);
    const broken: Embedder = { identity: 'test/hash-64', dimension: 64, normalized: true, ready: () => false, whenReady: async () => false, embed: () => Promise.reject(new Error('no weights')) };
    const tab = new Engine({ store, embedder: broken });
    await tab.open();
    const r = await search(tab, { query: 'whale', k: 2, seed: 1 });
    expect(ids(r)).toEqual(['w']);
    expect(r.usage?.notes?.some((n) => /served as sparse: the dense model is still loading/.test(n))).toBe(true);
  });

  it('vectors embedded ahead of their commit do not change a seeded answer at the same index version', async () => {
    // Document batches wait at a gate, so the background pass holds early vectors uncommitted.
    const hash = new HashEmbedder();
    let open = 0;
    const waiting: (() => void)[] = [];
    let batches = 0;
    const gated: Embedder = {
      identity: hash.identity,
      dimension: hash.dimension,
      normalized: true,
      embed: async (texts, kind) => {
        if (kind === 'document' && ++batches > open) await new Promise<void>((ok) => waiting.push(ok));
        return hash.embed(texts);
      },
    };
    const release = (n: number) => ((open += n), waiting.splice(0).forEach((w) => w()));
    const engine = new Engine({ store: new MemoryStore(), embedder: gated, embedInBackground: true, chunkSize: 60, chunkOverlap: 0 });
    await engine.open();
    const book = Array.from({ length: 40 }, (_, i) => `Chapter ${i} speaks of topic${i} at length${i === 3 ? ' and the narwhal' : ''}.`).join(' ');
    await engine.add([{ id: 'book', text: book }], { chunk: true });
    const params = { query: 'narwhal topic3', mode: 'hybrid' as const, k: 5, seed: 3 };
    const before = await search(engine, params);
    release(1); // the first batch (chapters 0–7, the narwhal's among them) gets vectors, uncommitted
    for (let i = 0; i < 50 && engine.pendingVectors() === engine.stats().chunks; i++) await new Promise((r) => setTimeout(r, 5));
    expect(engine.pendingVectors()).toBeLessThan(engine.stats().chunks);
    const after = await search(engine, params);
    expect(after.indexVersion).toBe(before.indexVersion);
    expect(key(after)).toBe(key(before));
    // Unseeded, the same request does use them (what the seed gives up for reproducibility).
    const unseeded = await search(engine, { ...params, seed: undefined });
    expect(unseeded.hits.some((h) => h.scores?.dense !== undefined)).toBe(true);
    release(1e9);
    await engine.whenReembedded();
  });
});

/**
 * Issue 8, seam 4: a sparse answer never waits for model weights. The embedder here is still
 * "loading" (its embed never settles); an engine opened over an index written earlier answers
 * sparse retrieves at once, and a retrieve naming no mode too when its chunks still wait for vectors.
 */
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { HashEmbedder, ids, makeEngine, search } from '../support/engine.ts';

const loading: Embedder = { identity: 'test/hash-64', dimension: 64, normalized: true, embed: () => new Promise<never>(() => undefined) };

describe('sparse retrieval while the embedder loads', () => {
  it('answers sparse retrieves, and default-mode ones while vectors are pending, without calling the embedder', async () => {
    const { store, engine } = await makeEngine({ embedder: new HashEmbedder() });
    await engine.add([{ id: 'w', text: 'the white whale' }, { id: 's', text: 'a sailing ship' }]);
    const cold = new Engine({ store, embedder: loading });
    await cold.open();
    expect(ids(await search(cold, { query: 'whale', k: 2, mode: 'sparse' }))).toEqual(['w']);
    // Written with embedding in the background and never embedded: the default (hybrid) is served sparse.
    const bg = await makeEngine({ embedder: loading, embedInBackground: true });
    await bg.engine.add([{ id: 'w', text: 'the white whale' }, { id: 's', text: 'a sailing ship' }]);
    const r = await search(bg.engine, { query: 'ship', k: 2 });
    expect(ids(r)).toEqual(['s']);
    expect(r.usage?.notes?.some((n) => /served as sparse/.test(n))).toBe(true);
  });

  it('serves a default-mode retrieve sparse in a fresh tab over an embedded index while the model loads, and hybrid once it has', async () => {
    const { store, engine } = await makeEngine({ embedder: new HashEmbedder() });
    await engine.add([{ id: 'w', text: 'the white whale' }, { id: 's', text: 'a sailing ship' }]);
    const hash = new HashEmbedder();
    let loaded = false;
    let calls = 0;
    const fresh: Embedder = {
      identity: hash.identity,
      dimension: hash.dimension,
      normalized: hash.normalized,
      ready: () => loaded,
      embed: (texts) => ((calls += 1), loaded ? hash.embed(texts) : new Promise<never>(() => undefined)),
    };
    const tab = new Engine({ store, embedder: fresh });
    await tab.open();
    const before = await search(tab, { query: 'whale', k: 2 });
    expect(ids(before)).toEqual(['w']);
    expect(before.usage?.notes?.some((n) => /served as sparse: the dense model is still loading/.test(n))).toBe(true);
    expect(calls).toBe(0);
    loaded = true;
    const after = await search(tab, { query: 'whale', k: 2 });
    expect(after.usage?.notes?.some((n) => /served as sparse/.test(n)) ?? false).toBe(false);
    expect(calls).toBe(1);
  });
});

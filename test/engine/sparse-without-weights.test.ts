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
});

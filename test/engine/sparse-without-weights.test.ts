/**
 * Issue 8, seam 4: a sparse answer never waits for model weights. The embedder here is still
 * "loading" (its embed never settles); an engine opened over an index written earlier answers
 * sparse retrieves, and retrieves in the default mode, at once.
 */
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { HashEmbedder, ids, makeEngine, search } from '../support/engine.ts';

const loading: Embedder = { identity: 'test/hash-64', dimension: 64, normalized: true, embed: () => new Promise<never>(() => undefined) };

describe('sparse retrieval while the embedder loads', () => {
  it('answers sparse and default-mode retrieves without calling the embedder', async () => {
    const { store, engine } = await makeEngine({ embedder: new HashEmbedder() });
    await engine.add([{ id: 'w', text: 'the white whale' }, { id: 's', text: 'a sailing ship' }]);
    const cold = new Engine({ store, embedder: loading });
    await cold.open();
    expect(cold.capabilities().retrieve?.defaultMode).toBe('sparse');
    expect(ids(await search(cold, { query: 'whale', k: 2, mode: 'sparse' }))).toEqual(['w']);
    expect(ids(await search(cold, { query: 'ship', k: 2 }))).toEqual(['s']);
  });
});

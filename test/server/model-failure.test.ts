/**
 * A dense model that failed to load: a session initialized afterwards is not offered what needs
 * it (withoutDenseModel), a retrieve without `mode` takes the session's default, and hybrid keeps
 * answering from its sparse half while `dense` alone fails.
 */
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { ModelUnavailableError } from '../../src/engine/errors.ts';
import { planRetrieve } from '../../src/server/retrieve-plan.ts';
import { advertisedCapabilities, modelCapabilities, SESSION_CAPABILITIES, withoutDenseModel } from '../../src/server/capabilities.ts';
import { retrieveInProcess } from '../../src/server/front-door.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';

/** Documents embed (they were embedded before the failure); queries find the model gone. */
const brokenQueries: Embedder = {
  identity: 'broken@test',
  dimension: 2,
  normalized: true,
  async embed(texts, kind) {
    if (kind === 'query') throw new ModelUnavailableError('model broken is unavailable: corrupt ONNX');
    return texts.map(() => Float32Array.of(1, 0));
  },
};

async function engineWith(embedder: Embedder): Promise<Engine> {
  const engine = new Engine({ store: new MemoryStore(), embedder });
  await engine.open();
  await engine.add([{ id: 'a', text: 'the white whale' }, { id: 'b', text: 'a railroad bill' }]);
  return engine;
}

describe('a dense model that failed to load', () => {
  it('a new session is offered sparse retrieval only, no embed, no encoder rerank', async () => {
    const engine = await engineWith(brokenQueries);
    const rerankers = [{ method: 'colbert' as const, identity: 'broken@test' }];
    const full = advertisedCapabilities({ engine: engine.capabilities(), models: modelCapabilities({ embedder: brokenQueries, tokenVectors: true, rerankers }), session: SESSION_CAPABILITIES });
    expect(full.retrieve?.modes).toContain('hybrid');
    const caps = withoutDenseModel(full);
    expect(caps.embed).toBeUndefined();
    expect(caps.multiVector).toBeUndefined();
    expect(caps.rerank).toBeUndefined();
    expect(caps.retrieve).toMatchObject({ modes: ['sparse'], defaultMode: 'sparse', scoreFloor: 0, scoreScale: 'bm25', rerankBuiltin: false });
    expect(caps.retrieve?.fusion).toBeUndefined();
    expect(full.embed, 'the full set is untouched').toBeDefined();
    // No mode: the session's default (sparse), so nothing asks the broken model.
    const plan = planRetrieve({ query: 'whale' }, caps, []);
    expect(plan).toMatchObject({ mode: 'sparse', modeDefaulted: true });
    expect((await engine.retrieve(plan)).hits.map((h) => h.id)).toEqual(['a']);
  });

  it('hybrid answers from its sparse half with a note; dense alone fails', async () => {
    const engine = await engineWith(brokenQueries);
    const hybrid = await retrieveInProcess(engine, { query: 'whale', mode: 'hybrid' });
    expect(hybrid.hits.map((h) => h.id)).toEqual(['a']);
    expect(hybrid.usage?.notes?.join(' ')).toMatch(/dense half unavailable .*corrupt ONNX/);
    await expect(retrieveInProcess(engine, { query: 'whale', mode: 'dense' })).rejects.toThrow(/unavailable/);
  });
});

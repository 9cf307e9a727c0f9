/** `embed`'s `model` (issue 45): the result names the encoder that made the vectors; a request naming another is refused. */
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import type { Capabilities } from '../../src/protocol/types.ts';
import { createEngineBackend } from '../../src/server/engine-backend.ts';
import { createModelHandlers, type ModelEncoder } from '../../src/server/model-handlers.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { HashEmbedder } from '../support/engine.ts';
import { connect } from '../support/rcp-harness.ts';

const IDENTITY = 'multilingual-e5-small@sha256:0ebed2e3a7cd+foldcaps';

async function session() {
  const embedder = new HashEmbedder();
  const engine = new Engine({ store: new MemoryStore(), embedder });
  await engine.open();
  const encoder: ModelEncoder = { dimension: embedder.dimension, embed: (texts) => embedder.embed(texts), tokenVectors: async () => [] };
  const capabilities: Capabilities = { ...engine.capabilities(), embed: { dimension: embedder.dimension, identity: IDENTITY, encodings: ['json'] } };
  const t = connect(createEngineBackend({ serverInfo: { name: 'embed-model', version: '0' }, engine: Promise.resolve(engine), capabilities, rerankers: [], extraHandlers: createModelHandlers(async () => encoder, []) }));
  await t.init();
  return t;
}

describe('embed model (issue 45)', () => {
  it('the result names the model used, with or without a model in the request', async () => {
    const t = await session();
    const plain = await t.call(1, 'embed', { inputs: ['Recht auf Bildung'] });
    expect(plain.result.model).toBe(IDENTITY);
    expect(plain.result.vectors).toHaveLength(1);
    for (const model of [IDENTITY, 'multilingual-e5-small']) {
      const named = await t.call(model, 'embed', { inputs: ['a'], model });
      expect(named.result.model).toBe(IDENTITY);
    }
  });

  it('another model is -32005 naming `model` and the one served; served and named under strict:false', async () => {
    const t = await session();
    const r = await t.call(2, 'embed', { inputs: ['a'], model: 'minilm-l6-v2' });
    expect(r.error.code).toBe(-32005);
    expect(r.error.data.option).toBe('model');
    expect(r.error.message).toContain(IDENTITY);
    const lax = await t.call(3, 'embed', { inputs: ['a'], model: 'minilm-l6-v2', strict: false });
    expect(lax.result.model).toBe(IDENTITY);
    expect((await t.call(4, 'embed', { inputs: ['a'], model: 7 })).error.data.field).toBe('model');
  });
});

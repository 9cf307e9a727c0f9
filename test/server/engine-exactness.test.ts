/** Issue 11 #7 over a real engine session: progress, rerank usage, score metadata with a reranker. */
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import type { Capabilities } from '../../src/protocol/types.ts';
import { createEngineBackend } from '../../src/server/engine-backend.ts';
import { createModelHandlers, type ModelEncoder } from '../../src/server/model-handlers.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { CountReranker, HashEmbedder } from '../engine/helpers.ts';
import { loadRcpSchema } from '../support/rcp-schema.ts';
import { connect, emittedFrames } from './harness.ts';

async function engineSession() {
  const embedder = new HashEmbedder();
  const reranker = new CountReranker();
  const engine = new Engine({ store: new MemoryStore(), embedder, reranker });
  await engine.open();
  const encoder: ModelEncoder = {
    dimension: embedder.dimension,
    embed: (texts) => embedder.embed(texts),
    tokenVectors: async () => [],
  };
  const capabilities: Capabilities = {
    ...engine.capabilities(),
    rerank: { methods: ['cross-encoder'], maxCandidates: 100, models: [reranker.identity] },
    streaming: {},
  };
  const backend = createEngineBackend({
    serverInfo: { name: 'engine-test', version: '0' },
    engine: Promise.resolve(engine),
    capabilities,
    extraHandlers: createModelHandlers(async () => encoder, reranker),
  });
  const t = connect(backend);
  await t.init();
  const added = await t.call('add', 'index/add', {
    documents: [
      { id: 'w1', text: 'the white whale swims' },
      { id: 'w2', text: 'a whale and a ship' },
      { id: 'x', text: 'nothing relevant here at all' },
    ],
  });
  expect(added.result.ids).toHaveLength(3);
  return t;
}

describe('retrieve progress (§9)', () => {
  it('the recall stage is announced exactly once', async () => {
    const t = await engineSession();
    const before = t.received.length;
    const r = await t.call('r', 'retrieve', { query: 'whale', k: 2, _meta: { progressToken: 'p' } });
    expect(r.result.hits.length).toBeGreaterThan(0);
    const progress = t.received.slice(before).map((f) => JSON.parse(f)).filter((m) => m.method === 'notifications/progress');
    expect(progress.filter((m) => m.params.stage === 'recall')).toHaveLength(1);
  });
});

describe('rerank (§7.6)', () => {
  it('returns usage beside scores and order', async () => {
    const t = await engineSession();
    const r = await t.call('rr', 'rerank', { query: 'whale', passages: ['a whale', 'a ship', 'whale whale'] });
    expect(r.result.scores).toHaveLength(3);
    expect(r.result.usage).toMatchObject({ reranked: 3, latencyMs: expect.any(Number) });
  });
});

describe('score metadata with a reranker configured (§6.1, §16.3)', () => {
  it('scoreFloor and scoreScale are advertised, and reranked hits never go below the floor', async () => {
    const t = await engineSession();
    const caps = (await t.call('info', 'info')).result.capabilities;
    expect(caps.retrieve).toMatchObject({ scoreFloor: -1, scoreScale: 'unbounded' });
    const r = await t.call('r', 'retrieve', { query: 'whale', k: 3, mode: 'dense', rerank: { topN: 3 } });
    expect(r.result.usage.reranked).toBe(3);
    for (const h of r.result.hits) expect(h.score).toBeGreaterThanOrEqual(caps.retrieve.scoreFloor);
    // CountReranker scores a passage without the query word negatively; its hit still sits at or above 0.
    expect(r.result.hits.some((h: any) => h.scores.rerank < 0)).toBe(true);
    const scores = r.result.hits.map((h: any) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });
});

describe('schema (normative rcp-1.0.json)', () => {
  it('every frame emitted above validates', () => {
    const schema = loadRcpSchema();
    const bad = emittedFrames.map((f) => ({ f: f.slice(0, 200), errors: schema.frame(f) })).filter((x) => x.errors.length > 0);
    expect(bad).toEqual([]);
  });
});

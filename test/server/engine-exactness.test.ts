/** Issue 11 #7 over a real engine session: progress, rerank usage, score metadata with a reranker. */
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import type { Capabilities } from '../../src/protocol/types.ts';
import { createEngineBackend } from '../../src/server/engine-backend.ts';
import { createModelHandlers, type ModelEncoder } from '../../src/server/model-handlers.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { CountReranker, HashEmbedder } from '../support/engine.ts';
import { loadRcpSchema } from '../../tools/lib/rcp-schema.ts';
import { connect, emittedFrames } from '../support/rcp-harness.ts';

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
    rerankers: [reranker],
    extraHandlers: createModelHandlers(async () => encoder, [reranker]),
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

describe('query/transform (§7.8)', () => {
  it('rewrite answers the corrected query with the corrections in _meta; the result fits the schema', async () => {
    const t = await engineSession();
    const r = await t.call('tr', 'query/transform', { query: 'the wite whael', method: 'rewrite' });
    expect(r.result).toEqual({ queries: ['the white whale'], _meta: { corrections: [{ from: 'wite', to: 'white' }, { from: 'whael', to: 'whale' }] } });
    expect(loadRcpSchema().result('query/transform', r.result)).toEqual([]);
    const mq = await t.call('mq', 'query/transform', { query: 'whale ship swims', method: 'multi-query', n: 50 });
    expect(mq.result.queries[0]).toBe('whale ship swims');
  });

  it('only advertised methods are served: -32005 for the others, -32602 for malformed params', async () => {
    const t = await engineSession();
    const caps = (await t.call('info', 'info')).result;
    expect(caps.capabilities.transform).toEqual({ methods: ['rewrite', 'multi-query'] });
    expect(caps._meta.conformance).toBe('L2');
    for (const method of ['hyde', 'decompose', 'step-back', 'magic']) {
      expect((await t.call(method, 'query/transform', { query: 'q', method })).error).toMatchObject({ code: -32005, data: { option: 'method' } });
    }
    expect((await t.call('m5', 'query/transform', { query: 'q', method: 5 })).error).toMatchObject({ code: -32602, data: { field: 'method' } });
    expect((await t.call('nq', 'query/transform', { method: 'rewrite' })).error).toMatchObject({ code: -32602, data: { field: 'query' } });
    expect((await t.call('n0', 'query/transform', { query: 'q', method: 'rewrite', n: 0 })).error).toMatchObject({ code: -32602, data: { field: 'n' } });
  });

  it('retrieve rewrite returns rewrittenQuery and schema-valid hits carrying trust', async () => {
    const t = await engineSession();
    const r = await t.call('rw', 'retrieve', { query: 'wite whael', k: 2, rewrite: 'rewrite' });
    expect(r.result.rewrittenQuery).toBe('white whale');
    expect(r.result.hits[0].trust).toEqual({ level: 'untrusted' });
    expect(loadRcpSchema().result('retrieve', r.result)).toEqual([]);
  });
});

describe('schema (normative rcp-1.0.json)', () => {
  it('every frame emitted above validates', () => {
    const schema = loadRcpSchema();
    const bad = emittedFrames.map((f) => ({ f: f.slice(0, 200), errors: schema.frame(f) })).filter((x) => x.errors.length > 0);
    expect(bad).toEqual([]);
  });
});

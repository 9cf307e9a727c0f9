import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/codes.ts';
import { validateIndexAdd } from '../../src/protocol/validate.ts';
import { advertisedCapabilities, modelCapabilities, RERANK_MAX_CANDIDATES, SESSION_CAPABILITIES } from '../../src/server/capabilities.ts';
import { inProcessCapabilities } from '../../src/server/front-door.ts';
import { CountReranker, makeEngine, search } from '../support/engine.ts';
import { rcpError } from '../support/rcp-error.ts';

describe('the advertised capability set', () => {
  it('is built from parts and refuses a key offered by two of them', () => {
    const engine = { retrieve: { maxK: 10 }, index: { writable: true } };
    const caps = advertisedCapabilities({ engine, session: SESSION_CAPABILITIES, extensions: [{ 'x-a': { on: true } }] });
    expect(Object.keys(caps).sort()).toEqual(['index', 'log', 'retrieve', 'streaming', 'x-a']);
    expect(() => advertisedCapabilities({ engine, extensions: [{ 'x-a': {} }, { 'x-a': {} }] })).toThrow(/'x-a' is offered by both/);
    const overlapping = { ...engine, rerank: { methods: ['colbert'] } } as never;
    expect(() => advertisedCapabilities({ engine: overlapping, models: modelCapabilities({ rerankers: [new CountReranker()] }) })).toThrow(/'rerank'/);
  });

  it('rerank.maxCandidates is the bound retrieve enforces: topN 500 reranks 500, topN 1500 is clamped to the advertised number', async () => {
    const reranker = new CountReranker();
    const { engine } = await makeEngine({ reranker });
    await engine.add(Array.from({ length: 1100 }, (_, i) => ({ id: `d${i}`, text: `whale number ${i}` })));
    const caps = inProcessCapabilities(engine);
    expect(caps.rerank?.maxCandidates).toBe(RERANK_MAX_CANDIDATES);

    const at500 = await search(engine, { query: 'whale', k: 5, candidateK: 1000, rerank: { method: 'cross-encoder', topN: 500 } });
    expect(at500.usage?.reranked).toBe(500);
    const over = await search(engine, { query: 'whale', k: 5, candidateK: 1000, rerank: { method: 'cross-encoder' } });
    expect(over.usage?.reranked).toBe(Math.min(1000, RERANK_MAX_CANDIDATES));
    const clamped = await search(engine, { query: 'whale', k: 5, rerank: { method: 'cross-encoder', topN: RERANK_MAX_CANDIDATES + 500 } });
    expect(clamped.usage?.reranked).toBe(RERANK_MAX_CANDIDATES);
  });

  it('index.maxDocuments advertises the per-call bound of index/add, refused with -32013 at the front door', async () => {
    const { engine } = await makeEngine();
    const caps = inProcessCapabilities(engine);
    expect(caps.index?.maxDocuments).toBe(engine.limits.maxDocumentsPerAdd);
    const documents = Array.from({ length: engine.limits.maxDocumentsPerAdd + 1 }, () => ({ text: 'x' }));
    const e = rcpError(() => validateIndexAdd({ documents }, caps));
    expect(e.code).toBe(ErrorCode.PayloadTooLarge);
    expect(e.data?.field).toBe('documents');
    expect(() => validateIndexAdd({ documents: documents.slice(1) }, caps)).not.toThrow();
  });
});

/** The engine with two rerankers: capabilities list both, retrieve's built-in rerank uses the one requested. */
import { describe, expect, it } from 'vitest';
import { search } from '../support/engine.ts';
import { inProcessCapabilities } from '../../src/server/retrieve-plan.ts';
import type { Reranker } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { parseModelConfig } from '../../src/models/model-config.ts';

/** Scores by passage length (longer first) or its inverse; counts calls. */
class LengthReranker implements Reranker {
  calls = 0;
  constructor(readonly method: 'cross-encoder' | 'colbert', readonly identity: string, private readonly sign: 1 | -1) {}
  async score(_q: string, passages: string[]): Promise<number[]> {
    this.calls++;
    return passages.map((p) => this.sign * p.length);
  }
}

const docs = [
  { id: 'short', text: 'whale' },
  { id: 'medium', text: 'whale whale ship at sea' },
  { id: 'long', text: 'the whale and the ship and the long voyage across the wide grey sea' },
];

const order = (r: { hits: { id: string | number }[] }) => r.hits.map((h) => docs.find((d) => String(h.id).startsWith(d.id))!.id);

describe('Engine with several rerankers', () => {
  it('advertises every method (first = default) and dispatches by rerank.method', async () => {
    const ce = new LengthReranker('cross-encoder', 'ce@sha256:aaaaaaaaaaaa', 1);
    const cb = new LengthReranker('colbert', 'colbert-maxsim/x', -1);
    const engine = new Engine({ store: new MemoryStore(), reranker: [ce, cb] });
    await engine.open();
    await engine.add(docs);
    const caps = inProcessCapabilities(engine);
    expect(caps.rerank?.methods).toEqual(['cross-encoder', 'colbert']);
    expect(caps.rerank?.models).toEqual([ce.identity, cb.identity]);
    expect(caps.retrieve?.rerankBuiltin).toBe(true);

    const byCe = await search(engine, { query: 'whale', k: 3, rerank: { method: 'cross-encoder', topN: 3 } });
    expect(order(byCe)).toEqual(['long', 'medium', 'short']);
    expect([ce.calls, cb.calls]).toEqual([1, 0]);

    const byCb = await search(engine, { query: 'whale', k: 3, rerank: { method: 'colbert', topN: 3 } });
    expect(order(byCb)).toEqual(['short', 'medium', 'long']);
    expect([ce.calls, cb.calls]).toEqual([1, 1]);

    const byDefault = await search(engine, { query: 'whale', k: 3, rerank: { method: undefined as never, topN: 3 } });
    expect(String(byDefault.hits[0].id)).toMatch(/^long/);
    expect(ce.calls).toBe(2);
  });

  it('a single reranker still works as before', async () => {
    const cb = new LengthReranker('colbert', 'colbert-maxsim/x', -1);
    const engine = new Engine({ store: new MemoryStore(), reranker: cb });
    await engine.open();
    await engine.add(docs);
    expect(inProcessCapabilities(engine).rerank?.methods).toEqual(['colbert']);
    const r = await search(engine, { query: 'whale', k: 3, rerank: { method: 'colbert', topN: 3 } });
    expect(String(r.hits[0].id)).toMatch(/^short/);
    await expect(search(engine, { query: 'whale', k: 3, rerank: { method: 'cross-encoder', topN: 3 } })).rejects.toMatchObject({ code: -32005 });
  });
});

describe('models config', () => {
  it('validates fields and falls back to defaults with warnings', () => {
    expect(parseModelConfig({ embedder: 'Xenova/all-MiniLM-L6-v2', dtype: 'fp32', device: 'wasm', crossEncoder: 'ms-marco' })).toEqual({
      config: { embedder: 'Xenova/all-MiniLM-L6-v2', dtype: 'fp32', device: 'wasm', crossEncoder: 'ms-marco', sparseEncoder: 'splade-tiny' },
      warnings: [],
    });
    const bad = parseModelConfig({ embedder: '../x', dtype: 'int4', device: 'gpu', crossEncoder: 'https://hub/x', sparseEncoder: '/abs', failDevices: ['tpu'], extra: true });
    expect(bad.config).toEqual({ embedder: 'minilm-l6-v2', dtype: 'q8', device: 'auto', sparseEncoder: 'splade-tiny' });
    expect(bad.warnings).toHaveLength(7);
    // null or '' turns the learned-sparse encoder off; another folder name replaces it.
    expect(parseModelConfig({ sparseEncoder: null }).config.sparseEncoder).toBeUndefined();
    expect(parseModelConfig({ sparseEncoder: '' }).config.sparseEncoder).toBeUndefined();
    expect(parseModelConfig({ sparseEncoder: 'my-splade' }).config.sparseEncoder).toBe('my-splade');
    expect(parseModelConfig([]).warnings[0]).toMatch(/not a JSON object/);
  });
});

/**
 * A collection sharded over engines of ours ranks as one index: each shard answers a federated
 * sparse retrieve with its BM25 statistics (`_meta["x-inpage-bm25"]`), and `auto` fusion scores
 * every hit with the statistics of all shards together (global-bm25.ts). The toy collection is
 * skewed so that per-shard document frequencies differ a lot, which makes raw-score fusion
 * (what `auto` did before) rank differently from one index.
 */
import { describe, expect, it } from 'vitest';
import { Federation } from '../../src/client/federation/federation.ts';
import { fuseEngineHits } from '../../src/client/federation/fuse-hits.ts';
import { RcpClient } from '../../src/client/rcp-client.ts';
import { Engine } from '../../src/engine/engine.ts';
import { BM25_STATS_FIELD, readBm25Stats } from '../../src/protocol/bm25-stats.ts';
import type { Hit, RetrieveParams, RetrieveResult } from '../../src/protocol/types.ts';
import { withFederation } from '../../src/server/aggregator.ts';
import type { Backend } from '../../src/server/backend.ts';
import { createEngineBackend } from '../../src/server/engine-backend.ts';
import { serve } from '../../src/server/rcp-session.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { createLinkedPair } from '../../src/transport/memory-transport.ts';
import { connect, fakeBackend } from '../support/rcp-harness.ts';

const WORDS = ['whale', 'ship', 'harpoon', 'ocean', 'captain', 'sail', 'storm', 'island', 'rope', 'deck'];

/** Deterministic pseudo-random words; shard `s`'s documents lean on words s·3 … s·3+2. */
function corpus(): { id: string; text: string; shard: number }[] {
  let x = 12345;
  const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
  return Array.from({ length: 90 }, (_, i) => {
    const shard = i % 3;
    const len = 3 + Math.floor(rnd() * 12);
    const words = Array.from({ length: len }, () => (rnd() < 0.6 ? WORDS[shard * 3 + Math.floor(rnd() * 3)] : WORDS[Math.floor(rnd() * WORDS.length)]));
    return { id: `d${String(i).padStart(2, '0')}`, text: words.join(' '), shard };
  });
}

async function engineBackend(name: string, docs: { id: string; text: string }[], options: { chunkSize?: number; chunkOverlap?: number } = {}): Promise<Backend> {
  const engine = new Engine({ store: new MemoryStore(), ...options });
  await engine.open();
  if (docs.length) await engine.add(docs, { chunk: options.chunkSize !== undefined });
  return createEngineBackend({ serverInfo: { name, version: '1' }, engine: Promise.resolve(engine), capabilities: engine.capabilities() });
}

async function engineClient(name: string, docs: { id: string; text: string }[], options?: { chunkSize?: number; chunkOverlap?: number }): Promise<RcpClient> {
  const [c, s] = createLinkedPair();
  serve(s, await engineBackend(name, docs, options));
  const client = new RcpClient(c);
  await client.connect();
  return client;
}

const QUERIES = ['whale storm', 'harpoon rope deck', 'captain island', 'ocean sail whale ship', 'storm storm rope'];
const ranking = (hits: Hit[]) => hits.map((h) => [String(h.id), h.score]);

async function setup() {
  const docs = corpus();
  const one = await engineClient('shard', docs);
  const shards = await Promise.all([0, 1, 2].map((s) => engineClient('shard', docs.filter((d) => d.shard === s))));
  const federation = (fusion?: 'score' | 'global-bm25') => new Federation(shards.map((client, i) => ({ id: `s${i}`, client })), { fusion });
  return { one, federation };
}

describe('global BM25 over shards of one collection', () => {
  it('ranks (ids and scores) as one index, where raw-score fusion of per-shard BM25 does not', async () => {
    const { one, federation } = await setup();
    const auto = federation();
    const byScore = federation('score');
    let differs = 0;
    for (const unit of ['chunk', 'document'] as const) {
      for (const query of QUERIES) {
        const params: RetrieveParams = { query, k: 10, mode: 'sparse', unit };
        const single = (await one.request('retrieve', params)) as RetrieveResult;
        const fed = await auto.retrieve(params);
        expect(fed.fusion).toBe('global-bm25');
        expect(ranking(fed.hits)).toEqual(ranking(single.hits));
        const raw = await byScore.retrieve(params);
        if (JSON.stringify(raw.hits.map((h) => h.id)) !== JSON.stringify(single.hits.map((h) => h.id))) differs++;
      }
    }
    // The toy collection is skewed enough that per-shard statistics change the order.
    expect(differs).toBeGreaterThan(0);
  });

  it('through an aggregator whose own index is one shard: the default fusion is global BM25', async () => {
    const docs = corpus();
    const one = await engineClient('shard', docs);
    const remotes = await Promise.all([1, 2].map((s) => engineClient('shard', docs.filter((d) => d.shard === s))));
    const agg = withFederation(await engineBackend('shard', docs.filter((d) => d.shard === 0)), {
      identity: 'agg',
      engines: remotes.map((client, i) => ({ id: `r${i}`, client })),
      federateByDefault: true,
    });
    const t = connect(agg);
    await t.init();
    for (const [i, query] of QUERIES.entries()) {
      const params = { query, k: 10, mode: 'sparse', unit: 'document' } as const;
      const fused = await t.call(i + 1, 'retrieve', params);
      expect(fused.result._meta.fusion).toBe('global-bm25');
      expect(fused.result._meta['x-inpage-bm25']).toBeUndefined(); // the fused answer is no shard's
      expect(ranking(fused.result.hits)).toEqual(ranking(((await one.request('retrieve', params)) as RetrieveResult).hits));
    }
  });

  it('scores a document by its best chunk under global statistics, which need not be its shard’s best', async () => {
    // Shard 0 holds many "beta" documents, shard 1 many "alpha" ones: on shard 0 alpha is rare
    // (x's alpha chunk is its best), in the whole collection beta is (x's beta chunk is).
    const small = { chunkSize: 40, chunkOverlap: 0 };
    const x = { id: 'x', text: 'alpha alpha alpha alpha alpha alpha.\n\nbeta beta beta beta beta beta beta.' };
    const betas = Array.from({ length: 6 }, (_, i) => ({ id: `b${i}`, text: `beta gamma ${'delta '.repeat(i)}` }));
    const alphas = Array.from({ length: 30 }, (_, i) => ({ id: `a${i}`, text: `alpha gamma ${'delta '.repeat(i % 4)}` }));
    const one = await engineClient('shard', [x, ...betas, ...alphas], small);
    const shards = [await engineClient('shard', [x, ...betas], small), await engineClient('shard', alphas, small)];
    const chunks = (await one.request('retrieve', { query: 'alpha beta', k: 50, mode: 'sparse' })) as RetrieveResult;
    expect(chunks.hits.filter((h) => String(h.id).startsWith('x')).length).toBe(2); // x is two chunks
    const params: RetrieveParams = { query: 'alpha beta', k: 10, mode: 'sparse', unit: 'document' };
    const fed = await new Federation(shards.map((client, i) => ({ id: `s${i}`, client }))).retrieve(params);
    expect(fed.fusion).toBe('global-bm25');
    expect(ranking(fed.hits)).toEqual(ranking(((await one.request('retrieve', params)) as RetrieveResult).hits));
  });

  it('is sent only when asked and only for plain BM25 scores', async () => {
    const { one } = await setup();
    const ask = { [BM25_STATS_FIELD]: true };
    const stats = async (p: RetrieveParams) => ((await one.request('retrieve', p)) as RetrieveResult)._meta?.[BM25_STATS_FIELD];
    const r = (await one.request('retrieve', { query: 'whale whale storm', k: 3, mode: 'sparse', _meta: ask })) as RetrieveResult;
    const s = readBm25Stats(r._meta, r.hits.length);
    expect(s).toMatchObject({ v: 1, terms: ['whale', 'storm'], qtf: [2, 1], n: 90 });
    expect(s!.hits).toHaveLength(3);
    expect(await stats({ query: 'whale', mode: 'sparse' })).toBeUndefined();
    expect(await stats({ query: 'whale', mode: 'sparse', minScore: 0.5, _meta: ask })).toBeUndefined();
  });

  it('falls back to today’s fusion when one engine sends no statistics', async () => {
    const docs = corpus();
    const shard = await engineClient('shard', docs.filter((d) => d.shard === 0));
    const [c, s] = createLinkedPair();
    serve(s, fakeBackend());
    const other = new RcpClient(c);
    await other.connect();
    const mixed = await new Federation([{ id: 's0', client: shard }, { id: 'other', client: other }]).retrieve({ query: 'whale', k: 5, mode: 'sparse' });
    expect(mixed.fusion).not.toBe('global-bm25');
    expect(mixed.hits.map((h) => h.meta?.engine)).toContain('other');
  });

  it('refuses statistics that do not line up, and lists scored by different BM25 settings or queries', () => {
    const base = { v: 1, k1: 1.2, b: 0.75, terms: ['a'], qtf: [1], n: 10, length: 50, df: [2], hits: [{ dl: 5, tf: [1] }] };
    expect(readBm25Stats({ [BM25_STATS_FIELD]: base }, 1)).toEqual(base);
    expect(readBm25Stats({ [BM25_STATS_FIELD]: base }, 2)).toBeUndefined();
    expect(readBm25Stats({ [BM25_STATS_FIELD]: { ...base, df: [] } }, 1)).toBeUndefined();
    expect(readBm25Stats({ [BM25_STATS_FIELD]: { ...base, hits: [{ dl: -1, tf: [1] }] } }, 1)).toBeUndefined();
    const list = (bm25: typeof base) => ({ engine: 'e', weight: 1, hits: [{ id: 'h', score: 1 }], scoreFloor: 0, bm25: bm25 as never });
    expect(fuseEngineHits([list(base), list({ ...base, k1: 2 })], { k: 5 }).method).not.toBe('global-bm25');
    expect(fuseEngineHits([list(base), list({ ...base, terms: ['b'] })], { k: 5 }).method).not.toBe('global-bm25');
    expect(fuseEngineHits([list(base), list(base)], { k: 5, method: 'rrf' }).method).toBe('rrf');
  });
});

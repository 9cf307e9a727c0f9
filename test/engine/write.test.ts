import { describe, expect, it } from 'vitest';
import { chunkText } from '../../src/engine/analysis/chunker.ts';
import { ids, makeEngine , search } from '../support/engine.ts';

describe('index writes', () => {
  it('returns ids positionally and mints ids for id-less documents', async () => {
    const { engine } = await makeEngine();
    const r = await engine.add([{ id: 'a', text: 'one' }, { text: 'two' }, { id: 'c', text: 'three' }, { text: 'four' }]);
    expect(r.ids[0]).toBe('a');
    expect(r.ids[2]).toBe('c');
    expect(r.ids[1]).toMatch(/^doc-/);
    expect(new Set(r.ids).size).toBe(4);
    expect(r.chunks).toBe(4);
    expect(engine.stats().documents).toBe(4);
  });

  it('upsert by id replaces, never duplicates (also inside one batch: last wins)', async () => {
    const { engine, store } = await makeEngine();
    await engine.add([{ id: 'x', text: 'the white whale' }]);
    await engine.add([{ id: 'x', text: 'the grey submarine' }]);
    expect(ids(await search(engine, { query: 'whale' }))).toEqual([]);
    expect(ids(await search(engine, { query: 'submarine' }))).toEqual(['x']);
    const r = await engine.add([
      { id: 'y', text: 'first yacht' },
      { id: 'y', text: 'second yacht' },
    ]);
    expect(r.ids).toEqual(['y', 'y']);
    const hits = (await search(engine, { query: 'yacht' })).hits;
    expect(hits.map((h) => h.id)).toEqual(['y']);
    expect(hits[0].text).toBe('second yacht');
    expect(store.stats().documents).toBe(2);
    // Re-adding identical {id,text} is observationally identical to adding it once.
    const before = await search(engine, { query: 'yacht submarine', includeText: true });
    await engine.add([{ id: 'y', text: 'second yacht' }]);
    const after = await search(engine, { query: 'yacht submarine', includeText: true });
    expect(after.hits.map((h) => [h.id, h.score, h.text])).toEqual(before.hits.map((h) => [h.id, h.score, h.text]));
    expect(engine.stats().chunks).toBe(2);
  });

  it('delete is idempotent and counts only documents actually removed', async () => {
    const { engine } = await makeEngine();
    await engine.add([{ id: 'a', text: 'alpha' }, { id: 'b', text: 'beta' }]);
    const v = engine.indexVersion;
    expect((await engine.delete(['a', 'a', 'missing'])).deleted).toBe(1);
    expect((await engine.delete(['a'])).deleted).toBe(0);
    expect((await engine.delete([])).deleted).toBe(0);
    expect(engine.indexVersion).not.toBe(v);
    expect(ids(await search(engine, { query: 'alpha beta' }))).toEqual(['b']);
  });

  it('an idempotencyKey repeat returns the original result without writing again', async () => {
    const { engine, store } = await makeEngine();
    const first = await engine.add([{ text: 'minted once' }], { idempotencyKey: 'k1' });
    const commits = store.commits;
    const again = await engine.add([{ text: 'minted once' }], { idempotencyKey: 'k1' });
    expect(again).toEqual(first);
    expect(store.commits).toBe(commits);
    expect(engine.stats().documents).toBe(1);
  });

  it('commits one atomic change per add, and publishes nothing when the commit fails', async () => {
    const { engine, store } = await makeEngine();
    await engine.add([{ id: 'a', text: 'alpha' }]);
    expect(store.commits).toBe(1);
    const v = engine.indexVersion;
    store.failNextCommit = new Error('disk full');
    await expect(engine.add([{ id: 'b', text: 'beta' }, { id: 'a', text: 'gamma' }])).rejects.toThrow('disk full');
    expect(engine.indexVersion).toBe(v);
    expect(ids(await search(engine, { query: 'alpha' }))).toEqual(['a']);
    expect(ids(await search(engine, { query: 'beta gamma' }))).toEqual([]);
    // The engine keeps working after a failed commit.
    await engine.add([{ id: 'b', text: 'beta' }]);
    expect(ids(await search(engine, { query: 'beta' }))).toEqual(['b']);
  });

  it('honours an aborted signal', async () => {
    const { engine } = await makeEngine();
    const ac = new AbortController();
    ac.abort();
    await expect(engine.add([{ text: 'x' }], { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
    await expect(search(engine, { query: 'x' }, { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(engine.stats().documents).toBe(0);
  });

  it('reports progress', async () => {
    const { engine } = await makeEngine();
    const seen: [number, number][] = [];
    await engine.add([{ text: 'a' }, { text: 'b' }], { onProgress: (d, t) => seen.push([d, t]) });
    expect(seen.at(-1)).toEqual([2, 2]);
  });
});

describe('chunking', () => {
  const text = [
    '# Moby-Dick',
    '',
    '## Loomings',
    '',
    'Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my purse, I thought I would sail about a little. It is a way I have of driving off the spleen.',
    '',
    'Whenever I find myself growing grim about the mouth, I account it high time to get to sea. This is my substitute for pistol and ball.',
    '',
    '## The Carpet-Bag',
    '',
    'I stuffed a shirt or two into my old carpet-bag, tucked it under my arm, and started for Cape Horn and the Pacific. Quitting the good city of old Manhatto, I duly arrived in New Bedford.',
  ].join('\n');

  it('chunk text is exactly text.slice(start, end) and covers every word', () => {
    for (const [size, overlap] of [[80, 20], [150, 40], [40, 0], [1000, 100]] as const) {
      const spans = chunkText(text, size, overlap);
      const covered = new Uint8Array(text.length);
      for (const s of spans) {
        expect(s.end - s.start).toBeLessThanOrEqual(size);
        expect(text.slice(s.start, s.end)).toBe(text.slice(s.start, s.end).trim());
        covered.fill(1, s.start, s.end);
      }
      for (let i = 0; i < text.length; i++) if (/\S/.test(text[i])) expect(covered[i], `char ${i} size ${size}`).toBe(1);
    }
  });

  it('a blank text still yields one empty chunk, so a title-only document is searchable', async () => {
    expect(chunkText('  \n ', 100, 10)).toEqual([{ start: 0, end: 0, headings: [] }]);
    const { engine } = await makeEngine();
    await engine.add([{ id: 't', text: '', meta: { title: 'Only A Title' } }], { chunk: true, contextual: true });
    expect(ids(await search(engine, { query: 'title' }))).toEqual(['t']);
  });

  it('overlapping chunks share whole sentences; headings start chunks', () => {
    const spans = chunkText(text, 160, 60);
    const overlapping = spans.some((s, i) => i > 0 && s.start < spans[i - 1].end);
    expect(overlapping).toBe(true);
    const carpet = spans.find((s) => text.slice(s.start, s.end).startsWith('## The Carpet-Bag'));
    expect(carpet?.headings).toEqual(['Moby-Dick']);
    const ishmael = spans.find((s) => text.slice(s.start, s.end).includes('pistol'));
    expect(ishmael?.headings).toEqual(['Moby-Dick', 'Loomings']);
  });

  it('engine chunk hits carry offsets, index and context', async () => {
    const { engine } = await makeEngine();
    await engine.add([{ id: 'moby', text, meta: { title: 'Moby-Dick; or, The Whale' } }], { chunk: true, chunkSize: 160, chunkOverlap: 40, contextual: true });
    const r = await search(engine, { query: 'pistol and ball', k: 3 });
    const h = r.hits[0];
    expect(h.text).toBe(text.slice(h.citation!.start, h.citation!.end));
    expect(h.text).toContain('pistol');
    expect(h.id).toBe(`moby#${h.chunk!.index}`);
    expect(h.chunk!.context).toBe('Moby-Dick; or, The Whale › Moby-Dick › Loomings');
    expect(h.citation).toMatchObject({ source: 'moby', title: 'Moby-Dick; or, The Whale' });
  });

  it('contextual:true makes the title and heading path searchable; without it they are not', async () => {
    const doc = { id: 'w', text: 'It spins and hums quietly on the bench.', meta: { title: 'Quantum Widgets' } };
    const off = await makeEngine();
    await off.engine.add([doc]);
    expect(ids(await search(off.engine, { query: 'quantum' }))).toEqual([]);
    const on = await makeEngine();
    await on.engine.add([doc], { contextual: true });
    const r = await search(on.engine, { query: 'quantum' });
    expect(ids(r)).toEqual(['w']);
    expect(r.hits[0].chunk?.context).toBe('Quantum Widgets');
    expect(r.hits[0].text).toBe(doc.text); // the context is indexed, not part of the text
  });
});

describe('cancellation during add', () => {
  it('an abort while embedding rejects with AbortError and writes nothing', async () => {
    const { HashEmbedder } = await import('../support/engine.ts');
    const ac = new AbortController();
    class AbortingEmbedder extends HashEmbedder {
      override async embed(texts: string[]): Promise<Float32Array[]> {
        ac.abort();
        return super.embed(texts);
      }
    }
    const { engine, store } = await makeEngine({ embedder: new AbortingEmbedder(), limits: { embedBatch: 1 } });
    const docs = Array.from({ length: 5 }, (_, i) => ({ text: `doc ${i}` }));
    await expect(engine.add(docs, { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(store.commits).toBe(0);
    expect(engine.stats().documents).toBe(0);
  });
});

/** §7.10: repeated identical adds are observationally identical to one (src/engine/index/unchanged.ts). */
import { describe, expect, it } from 'vitest';
import { HashEmbedder, makeEngine, search } from '../support/engine.ts';

const DOCS = [
  { id: 'a', text: 'the quokka eats leaves in the valley', meta: { year: 2001 } },
  { id: 'b', text: 'a quokka and a wombat share the meadow' },
  { id: 'c', text: 'lighthouses on a rocky coast' },
];

const scores = async (engine: Parameters<typeof search>[0], mode: 'sparse' | 'hybrid' = 'sparse') =>
  (await search(engine, { query: 'quokka meadow', k: 5, mode })).hits.map((h) => [h.id, h.score]);

describe('re-adding a document exactly as stored', () => {
  it('writes nothing: same index version, same scores, in one batch or a partial one', async () => {
    const { engine } = await makeEngine({ embedder: new HashEmbedder() });
    const first = await engine.add(DOCS);
    const before = await scores(engine, 'hybrid');
    const again = await engine.add(DOCS);
    expect(again.ids).toEqual(['a', 'b', 'c']);
    expect(again.chunks).toBe(first.chunks);
    expect(again.indexVersion).toBe(first.indexVersion);
    expect(await scores(engine, 'hybrid')).toEqual(before);
    // One document changed, two not: only the changed one is rewritten, so the others keep their chunks.
    const mixed = await engine.add([DOCS[0], { id: 'c', text: 'lighthouses on a sandy coast' }, DOCS[1]]);
    expect(mixed.indexVersion).not.toBe(first.indexVersion);
    expect(engine.stats().documents).toBe(3);
    expect((await search(engine, { query: 'sandy', mode: 'sparse' })).hits.map((h) => h.id)).toEqual(['c']);
  });

  it('still rewrites a document whose text, meta or chunking changed', async () => {
    const { engine } = await makeEngine();
    const v0 = (await engine.add(DOCS)).indexVersion;
    const v1 = (await engine.add([{ ...DOCS[0], meta: { year: 2002 } }])).indexVersion;
    expect(v1).not.toBe(v0);
    expect((await search(engine, { query: 'quokka', mode: 'sparse', filter: { field: 'year', op: 'eq', value: 2002 } })).hits.map((h) => h.id)).toEqual(['a']);
    const v2 = (await engine.add([{ ...DOCS[1], text: `${DOCS[1].text}!` }])).indexVersion;
    expect(v2).not.toBe(v1);
    const v3 = (await engine.add([{ id: 'c', text: DOCS[2].text, meta: { title: 'Coasts' } }], { contextual: true })).indexVersion;
    expect(v3).not.toBe(v2);
    const v4 = (await engine.add([{ id: 'c', text: DOCS[2].text, meta: { title: 'Coasts' } }], { contextual: false })).indexVersion;
    expect(v4).not.toBe(v3); // the same text without its context chunk prefix is a different write
  });
});

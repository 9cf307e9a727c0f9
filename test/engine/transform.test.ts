/** §7.8 query/transform from the index's own vocabulary (src/engine/query/transform.ts). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import { editDistance } from '../../src/engine/query/transform.ts';
import { makeEngine, search } from '../support/engine.ts';

/** Moby-Dick's chapters from the @stdlib dataset the sample corpus is built from. */
function mobyDick(): { id: string; text: string }[] {
  const dir = join(import.meta.dirname, '..', '..', 'node_modules', '@stdlib', 'datasets-moby-dick', 'data');
  const files: string[] = JSON.parse(readFileSync(join(dir, 'file_list.json'), 'utf8'));
  return files
    .map((f) => f.replace(/\.txt$/, ''))
    .filter((b) => b !== 'contents')
    .map((b) => ({ id: b, text: (JSON.parse(readFileSync(join(dir, `${b}.json`), 'utf8')) as { text: string }).text }));
}

describe('editDistance (optimal string alignment)', () => {
  it.each([
    ['whael', 'whale', 1], ['wite', 'white', 1], ['abc', 'abc', 0], ['kitten', 'sitting', 3], ['ca', 'abc', 3],
  ])('%s → %s is %i (capped at max+1)', (a, b, d) => {
    expect(editDistance(a, b, 5)).toBe(d);
    expect(editDistance(a, b, 1)).toBe(Math.min(d, 2));
  });
});

describe('query/transform on Moby-Dick', () => {
  let engine: Engine;
  beforeAll(async () => {
    ({ engine } = await makeEngine({ limits: { maxDocumentsPerAdd: 10_000 } }));
    await engine.add(mobyDick(), { chunk: true });
  }, 60_000);

  it('rewrite corrects misspellings to the corpus words, keeping case and the rest of the query', async () => {
    expect(await engine.transform('wite whael', 'rewrite')).toEqual({
      queries: ['white whale'],
      corrections: [{ from: 'wite', to: 'white' }, { from: 'whael', to: 'whale' }],
    });
    expect((await engine.transform('Captian Ahab and the whael', 'rewrite')).queries).toEqual(['Captain Ahab and the whale']);
    expect((await engine.transform('WITE WHAEL', 'rewrite')).queries).toEqual(['WHITE WHALE']);
  });

  it('leaves words the index knows, stopwords and acronyms in a mixed-case query alone', async () => {
    for (const q of ['white whale', 'the sea and the ship', 'Ahab and NASA']) {
      expect(await engine.transform(q, 'rewrite'), q).toEqual({ queries: [q], corrections: [] });
    }
  });

  it('multi-query gives distinct variants, the corrected query first, at most n', async () => {
    const { queries } = await engine.transform('wite whael harpoon ship', 'multi-query', 5);
    expect(queries[0]).toBe('white whale harpoon ship');
    expect(new Set(queries).size).toBe(queries.length);
    expect(queries.length).toBeGreaterThan(1);
    expect((await engine.transform('wite whael harpoon ship', 'multi-query', 1)).queries).toEqual(['white whale harpoon ship']);
  });

  it('retrieve with rewrite searches the corrected query and says so in rewrittenQuery', async () => {
    const plain = await search(engine, { query: 'wite whael', k: 5 });
    expect(plain.hits).toEqual([]);
    const r = await search(engine, { query: 'wite whael', k: 5, rewrite: 'rewrite' });
    expect(r.rewrittenQuery).toBe('white whale');
    expect(r.hits.map((h) => h.id)).toEqual((await search(engine, { query: 'white whale', k: 5 })).hits.map((h) => h.id));
    const mq = await search(engine, { query: 'wite whael harpoon ship', k: 5, rewrite: 'multi-query' });
    expect(mq.rewrittenQuery).toBe('white whale harpoon ship');
    expect(mq.hits.length).toBe(5);
    expect(mq.usage?.notes?.some((n) => n.startsWith('multi-query'))).toBe(true);
  });

  it('advertises exactly the two methods it serves', () => {
    expect(engine.capabilities().transform).toEqual({ methods: ['rewrite', 'multi-query'] });
  });
});

/** Issue 10 #5 / #10 and issue 11 #3 / #5: hit ids, trust markers, vectors with f32-base64, MMR scores. */
import { describe, expect, it } from 'vitest';
import { parseHitId } from '../../src/engine/query/hits.ts';
import { makeEngine } from './helpers.ts';

const long = (word: string, n: number): string => Array.from({ length: n }, (_, i) => `${word} sentence number ${i}.`).join(' ');

describe('hit ids (issue 10 #5)', () => {
  it('are unique within a result whatever the document ids are, and parse back to document and chunk', async () => {
    const { engine } = await makeEngine();
    await engine.add(
      [
        { id: 'a', text: long('whale', 40) }, // several chunks: a#0, a#1, …
        { id: 'a#1', text: 'whale once' }, // one chunk, but its id looks like chunk 1 of `a`
        { id: 'a#1#0', text: 'whale twice' },
        { id: 'b', text: 'whale alone' },
      ],
      { chunk: true, chunkSize: 120, chunkOverlap: 0 },
    );
    const r = await engine.retrieve({ query: 'whale', k: 100 });
    const ids = r.hits.map((h) => String(h.id));
    expect(r.hits.length).toBeGreaterThan(4);
    expect(new Set(ids).size).toBe(ids.length);
    for (const h of r.hits) expect(parseHitId(String(h.id))).toEqual({ docId: h.chunk!.docId, index: h.chunk!.index });
    expect(ids).toContain('b'); // a one-chunk document without '#' keeps its bare id
  });
});

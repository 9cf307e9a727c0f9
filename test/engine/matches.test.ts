import { describe, expect, it } from 'vitest';
import { createAnalyzer } from '../../src/engine/analysis/analyzer.ts';
import { Engine } from '../../src/engine/engine.ts';
import { findMatches, MATCHES_FIELD, type HitMatches } from '../../src/engine/query/matches.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { search } from '../support/engine.ts';

const a = createAnalyzer();
const marked = (text: string, query: string) => findMatches(a, a.queryTerms(query), text).spans.map(([s, e]) => text.slice(s, e));

describe('hit matches from the engine analysis', () => {
  it('marks whole words whose stem matched, never prefixes of other words', () => {
    expect(marked('Call me Ishmael; meanings of whales and whaling', 'me whale')).toEqual(['whales', 'whaling']);
    expect(marked('He went with the wite horse', 'wite')).toEqual(['wite']);
    expect(marked('The whale, the Whales!', 'whales')).toEqual(['whale', 'Whales']);
  });

  it('does not mark stopwords the query dropped', () => {
    expect(marked('the sea and the ship', 'the sea')).toEqual(['sea']);
  });

  it('marks CJK bigrams and single characters with their offsets', () => {
    const text = '我爱白鯨。黒猫がいる';
    expect(marked(text, '白鯨')).toEqual(['白鯨']);
    expect(marked(text, '猫')).toEqual(['猫']);
  });

  it('offsets are the original text’s even after normalisation (accents, full-width)', () => {
    expect(marked('Café ＷＨＡＬＥ', 'cafe whale')).toEqual(['Café', 'ＷＨＡＬＥ']);
  });

  it('the engine adds the field only when asked', async () => {
    const e = new Engine({ store: new MemoryStore() });
    await e.open();
    await e.add([{ id: 'm', text: 'Call me Ishmael. The white whale.' }]);
    const plain = await search(e, { query: 'whale', includeText: true });
    expect(MATCHES_FIELD in plain.hits[0]).toBe(false);
    const asked = await search(e, { query: 'whale', includeText: true, _meta: { [MATCHES_FIELD]: true } });
    const m = (asked.hits[0] as unknown as Record<string, HitMatches>)[MATCHES_FIELD];
    expect(m).toEqual({ terms: ['whale'], spans: [[27, 32, 0]] });
  });
});

describe('page numbers of paged documents', () => {
  it('cites the page a hit starts on and keeps the page table out of the hit', async () => {
    const e = new Engine({ store: new MemoryStore() });
    await e.open();
    const pages = ['Page one talks about apples.', 'Page two talks about quasars.'];
    await e.add([{ id: 'p', text: pages.join('\n\n'), meta: { title: 'Paged', pageStarts: [0, pages[0].length + 2] } }], { chunk: true, chunkSize: 30, chunkOverlap: 0 });
    const r = await search(e, { query: 'quasars', k: 1 });
    expect(r.hits[0].citation?.page).toBe(2);
    expect(r.hits[0].meta?.pageStarts).toBeUndefined();
  });
});

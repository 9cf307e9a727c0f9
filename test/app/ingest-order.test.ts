/**
 * The order a multi-source corpus is seeded in (src/app/ingest.ts `crossSectionFirst`): the first
 * batch holds documents of every source, each source keeps its own order, and nothing is lost or doubled.
 */
import { describe, expect, it } from 'vitest';
import { batches, crossSectionFirst } from '../../src/app/ingest.ts';

const doc = (id: string, source: string, chars: number) => ({ id, text: 'x'.repeat(chars), meta: { source } });
const source = (d: { meta?: Record<string, unknown> }): string => String(d.meta?.source);

describe('crossSectionFirst', () => {
  // Like the sample: many short articles first, then chapters, then long addresses.
  const docs = [
    ...Array.from({ length: 300 }, (_, i) => doc(`a${i}`, 'udhr', 300)),
    ...Array.from({ length: 100 }, (_, i) => doc(`m${i}`, 'moby', 9_000)),
    ...Array.from({ length: 50 }, (_, i) => doc(`s${i}`, 'sotu', i === 0 ? 80_000 : 30_000)),
  ];

  it('puts every source in the first batch, keeps each source in order, and keeps every document once', () => {
    const out = crossSectionFirst(docs, source, 60_000);
    const first = batches(out, 256, 250_000, 60_000)[0];
    expect(new Set(first.map(source))).toEqual(new Set(['udhr', 'moby', 'sotu']));
    // In corpus order the first batch would hold articles only.
    expect(new Set(batches(docs, 256, 250_000, 60_000)[0].map(source))).toEqual(new Set(['udhr']));
    expect(out.map((d) => d.id).sort()).toEqual(docs.map((d) => d.id).sort());
    for (const s of ['udhr', 'moby', 'sotu']) {
      const ids = out.filter((d) => source(d) === s).map((d) => d.id);
      const head = ids.slice(0, first.filter((d) => source(d) === s).length);
      expect(head).toEqual(docs.filter((d) => source(d) === s && head.includes(d.id)).map((d) => d.id));
    }
    // The 80,000-character address would fill the first batch alone: it waits, the next one comes.
    expect(first.map((d) => d.id)).not.toContain('s0');
    expect(first.map((d) => d.id)).toContain('s1');
    expect(first.reduce((n, d) => n + d.text.length, 0)).toBeLessThanOrEqual(60_000);
  });

  it('leaves a single-source corpus as it is', () => {
    const one = docs.filter((d) => source(d) === 'moby');
    expect(crossSectionFirst(one, source, 60_000)).toEqual(one);
  });
});

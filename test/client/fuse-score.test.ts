import { describe, expect, it } from 'vitest';
import { chooseFusion, fuseEngineHits, type EngineHits } from '../../src/client/federation/fuse-hits.ts';

const list = (engine: string, hits: [string, number][], extra: Partial<EngineHits> = {}): EngineHits => ({
  engine,
  weight: 1,
  hits: hits.map(([id, score]) => ({ id, score })),
  scoreFloor: 0,
  ...extra,
});

describe('score fusion (shards of one scorer)', () => {
  it('auto picks raw scores only when every list has the same scorer, else convex (floors) or RRF', () => {
    const same = [list('s1', [], { scorer: 'x' }), list('s2', [], { scorer: 'x' })];
    expect(chooseFusion(same)).toBe('score');
    expect(chooseFusion([list('s1', [], { scorer: 'x' }), list('s2', [], { scorer: 'y' })])).toBe('convex');
    expect(chooseFusion([list('s1', [], { scorer: 'x' }), list('s2', [])])).toBe('convex');
    expect(chooseFusion([list('s1', [], { scorer: 'x' })])).toBe('convex'); // one list: nothing to compare
    expect(chooseFusion(same, 'rrf')).toBe('rrf');
    expect(chooseFusion(same, 'convex')).toBe('convex');
  });

  it('ranks by raw score across lists, where convex would tie each list’s best hit', () => {
    const a = list('s1', [['a1', 9], ['a2', 8]], { scorer: 'x' });
    const b = list('s2', [['b1', 3], ['b2', 1]], { scorer: 'x' });
    const byScore = fuseEngineHits([a, b], { k: 4 });
    expect(byScore.method).toBe('score');
    expect(byScore.hits.map((h) => [h.id, h.score])).toEqual([['a1', 9], ['a2', 8], ['b1', 3], ['b2', 1]]);
    const convex = fuseEngineHits([a, b], { k: 4, method: 'convex' });
    expect(convex.hits.slice(0, 2).map((h) => h.score)).toEqual([1, 1]);
  });

  it('counts a document that two lists return once, at its best weighted score', () => {
    const fused = fuseEngineHits([list('s1', [['d', 2]]), list('s2', [['d', 5], ['e', 4]], { weight: 0.5 })], { k: 5, method: 'score' });
    expect(fused.hits.map((h) => [h.id, h.score, h.meta?.engine])).toEqual([['d', 2.5, 's2'], ['e', 2, 's2']]);
  });
});

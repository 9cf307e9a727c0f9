import { describe, expect, it } from 'vitest';
import { compareFused, fuseConvex, fuseRrf, fuseWeighted, type FusedItem, type RankedList } from '../../src/protocol/fusion.ts';

const list = (name: string, ids: string[], opts: Partial<RankedList> = {}): RankedList => ({
  name,
  items: ids.map((id, i) => ({ id, score: ids.length - i })),
  ...opts,
});
const scored = (name: string, pairs: [string, number][], opts: Partial<RankedList> = {}): RankedList => ({
  name,
  items: pairs.map(([id, score]) => ({ id, score })),
  ...opts,
});
const ids = (xs: FusedItem[]): string[] => xs.map((x) => x.id);
const allFinite = (xs: FusedItem[]): boolean =>
  xs.every((x) => Number.isFinite(x.score) && Object.values(x.contributions).every(Number.isFinite));

describe('§16.3 RRF', () => {
  it('§16.3 RRF sums weight/(rrfK + rank) with 1-based ranks', () => {
    const out = fuseRrf([list('dense', ['a', 'b', 'c']), list('sparse', ['c', 'a'], { weight: 2 })]);
    const a = out.find((x) => x.id === 'a')!;
    expect(a.contributions).toEqual({ dense: 1 / 61, sparse: 2 / 62 });
    expect(a.score).toBeCloseTo(1 / 61 + 2 / 62, 15);
    expect(out.find((x) => x.id === 'b')!.contributions).toEqual({ dense: 1 / 62 });
    expect(ids(out)).toEqual(['c', 'a', 'b']); // c: 1/63 + 2/61 > a: 1/61 + 2/62
  });

  it('§16.3 rrfK changes the curve', () => {
    const lists = [list('x', ['a', 'b']), list('y', ['b', 'c', 'd', 'a'])];
    expect(fuseRrf(lists, 0).find((i) => i.id === 'a')!.score).toBe(1 + 1 / 4);
    expect(fuseRrf(lists, 1).find((i) => i.id === 'b')!.score).toBe(1 / 3 + 1 / 2);
  });

  it('§16.3 ties break by score, then summed weight, then smaller id', () => {
    // rrfK = 0 keeps every score exact: z = 1/2 (weight 1), c = 0.5/1 (weight 0.5), b = 0.5/1 (weight 0.5)
    const out = fuseRrf([list('A', ['a', 'z']), list('B', ['c'], { weight: 0.5 }), list('C', ['b'], { weight: 0.5 })], 0);
    expect(out.map((x) => [x.id, x.score])).toEqual([['a', 1], ['z', 0.5], ['b', 0.5], ['c', 0.5]]);
  });

  it('§16.3 equal scores and weights order by code units, not locale', () => {
    const out = fuseRrf([list('A', ['b']), list('B', ['a']), list('C', ['B']), list('D', ['é']), list('E', ['e'])]);
    expect(ids(out)).toEqual(['B', 'a', 'b', 'e', 'é']);
  });

  it('§16.3 the order is independent of the order lists arrive in', () => {
    const l1 = list('e1', ['a', 'b', 'c', 'd']), l2 = list('e2', ['d', 'c', 'b', 'a']);
    expect(fuseRrf([l1, l2])).toEqual(fuseRrf([l2, l1]));
    expect(ids(fuseRrf([l1, l2]))).toEqual(['a', 'd', 'b', 'c']);
  });

  it('§16.3 only the best rank of an id within one list counts', () => {
    const out = fuseRrf([list('x', ['a', 'b', 'a'])]);
    expect(out).toHaveLength(2);
    expect(out[0]).toEqual({ id: 'a', score: 1 / 61, contributions: { x: 1 / 61 } });
  });

  it('§16.3 bad weights, rrfK or duplicate names are rejected', () => {
    expect(() => fuseRrf([list('x', ['a'], { weight: -1 })])).toThrow(RangeError);
    expect(() => fuseRrf([list('x', ['a'], { weight: NaN })])).toThrow(RangeError);
    expect(() => fuseRrf([list('x', ['a'])], -5)).toThrow(RangeError);
    expect(() => fuseRrf([list('x', ['a']), list('x', ['b'])])).toThrow(RangeError);
    expect(fuseRrf([])).toEqual([]);
  });
});

describe('§16.3 weighted min-max fusion', () => {
  it('§16.3 each list is min-max normalised to [0,1] over its own items', () => {
    const out = fuseWeighted([scored('dense', [['a', 10], ['b', 5], ['c', 0]]), scored('sparse', [['c', 7], ['d', 3]], { weight: 0.5 })]);
    const by = Object.fromEntries(out.map((x) => [x.id, x]));
    expect(by.a.contributions).toEqual({ dense: 1 });
    expect(by.b.contributions).toEqual({ dense: 0.5 });
    expect(by.c.contributions).toEqual({ dense: 0, sparse: 0.5 });
    expect(by.d.contributions).toEqual({ sparse: 0 });
    expect(ids(out)).toEqual(['a', 'c', 'b', 'd']); // b and c tie at 0.5; c's lists weigh 1.5 > 1
  });

  it('§16.3 a list whose max equals its min maps every item to 1', () => {
    const out = fuseWeighted([scored('x', [['a', 3], ['b', 3]]), scored('y', [['c', 42]])]);
    expect(out.map((x) => x.score)).toEqual([1, 1, 1]);
    expect(ids(out)).toEqual(['a', 'b', 'c']);
  });

  it('§4.6 non-finite scores never produce NaN/Infinity', () => {
    const out = fuseWeighted([scored('x', [['a', Infinity], ['b', NaN], ['c', 2], ['d', 1]]), scored('y', [['e', NaN]])]);
    expect(allFinite(out)).toBe(true);
    expect(out.find((x) => x.id === 'c')!.score).toBe(1);
    expect(out.find((x) => x.id === 'a')!.score).toBe(0);
    expect(out.find((x) => x.id === 'e')!.score).toBe(0);
  });

  it('§4.6 huge weights saturate instead of overflowing', () => {
    const out = fuseWeighted([scored('x', [['a', 1]], { weight: Number.MAX_VALUE }), scored('y', [['a', 1]], { weight: Number.MAX_VALUE })]);
    expect(allFinite(out)).toBe(true);
  });
});

describe('§16.3 convex combination', () => {
  const dense = scored('dense', [['a', 0.8], ['b', 0.2]], { scoreFloor: -1 });
  const sparse = scored('sparse', [['b', 12], ['c', 3]], { scoreFloor: 0 });

  it('§16.3 norm is anchored at scoreFloor, weighted α / 1-α', () => {
    const out = fuseConvex([dense, sparse], 0.5);
    const by = Object.fromEntries(out.map((x) => [x.id, x]));
    expect(by.a.contributions.dense).toBeCloseTo(0.5, 12);
    expect(by.b.contributions.dense).toBeCloseTo(0.5 * (1.2 / 1.8), 12);
    expect(by.b.contributions.sparse).toBeCloseTo(0.5, 12);
    expect(by.c.contributions.sparse).toBeCloseTo(0.5 * 0.25, 12);
    expect(ids(out)).toEqual(['b', 'a', 'c']);
    const alpha = fuseConvex([dense, sparse], 0.9);
    expect(alpha.find((x) => x.id === 'a')!.score).toBeCloseTo(0.9, 12);
    expect(alpha.find((x) => x.id === 'c')!.score).toBeCloseTo(0.1 * 0.25, 12);
  });

  it('§16.3 unlike min-max, the worst hit of a uniformly good list does not map to 0', () => {
    const good = scored('dense', [['a', 0.9], ['b', 0.85]], { scoreFloor: -1 });
    expect(fuseConvex([good]).find((x) => x.id === 'b')!.score).toBeCloseTo(0.5 * (1.85 / 1.9), 12);
    expect(fuseWeighted([good]).find((x) => x.id === 'b')!.score).toBe(0);
  });

  it('§16.3 a list whose max ≤ floor contributes 0', () => {
    const flat = scored('sparse', [['x', 0], ['y', 0]], { scoreFloor: 0 });
    const out = fuseConvex([dense, flat]);
    expect(out.find((i) => i.id === 'x')).toEqual({ id: 'x', score: 0, contributions: { sparse: 0 } });
    expect(allFinite(out)).toBe(true);
  });

  it('§6.1 every list must carry a scoreFloor', () => {
    expect(() => fuseConvex([dense, scored('sparse', [['c', 1]])])).toThrow(/scoreFloor/);
    expect(() => fuseConvex([scored('x', [['c', 1]], { scoreFloor: NaN })])).toThrow(Error);
  });

  it('§16.3 α must be in [0,1]; other lists use their own weight', () => {
    expect(() => fuseConvex([dense], 1.5)).toThrow(RangeError);
    const engine = scored('engine-2', [['q', 5]], { scoreFloor: 0, weight: 0.25 });
    expect(fuseConvex([engine])[0].score).toBe(0.25);
  });

  it('§16.3 scores below the floor clamp to 0, non-finite count as 0', () => {
    const out = fuseConvex([scored('dense', [['a', 1], ['b', -3], ['c', NaN]], { scoreFloor: -1 })]);
    expect(out.map((x) => x.score)).toEqual([0.5, 0, 0]);
  });
});

describe('§16.3 compareFused', () => {
  it('§16.3 is a total order usable for further merging', () => {
    const xs = [
      { id: 'b', score: 1, contributions: {}, weight: 1 },
      { id: 'a', score: 1, contributions: {}, weight: 1 },
      { id: 'c', score: 1, contributions: {}, weight: 2 },
      { id: 'd', score: 2, contributions: {}, weight: 0 },
    ];
    expect(xs.sort(compareFused).map((x) => x.id)).toEqual(['d', 'c', 'a', 'b']);
  });
});

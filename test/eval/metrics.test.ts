/** The IR metrics (src/eval/metrics.ts) on lists whose values are worked out by hand. */
import { describe, expect, it } from 'vitest';
import { hasRelevant, mrrAt, ndcgAt, recallAt } from '../../src/eval/metrics.ts';

const rel = new Map([['a', 1], ['b', 1]]);

describe('nDCG@k (linear gain)', () => {
  it('is 1 for the ideal order and 0 with nothing relevant ranked', () => {
    expect(ndcgAt(10, ['a', 'b', 'x'], rel)).toBe(1);
    expect(ndcgAt(10, ['x', 'y'], rel)).toBe(0);
    expect(ndcgAt(10, [], new Map())).toBe(0);
  });

  it('discounts by log2(rank + 1) against the ideal DCG', () => {
    const dcg = 1 / Math.log2(3) + 1 / Math.log2(4);
    expect(ndcgAt(10, ['x', 'a', 'b'], rel)).toBeCloseTo(dcg / (1 + 1 / Math.log2(3)), 12);
    // Cut at k: b at rank 3 is outside @2.
    expect(ndcgAt(2, ['x', 'a', 'b'], rel)).toBeCloseTo(1 / Math.log2(3) / (1 + 1 / Math.log2(3)), 12);
  });

  it('uses the qrel score as gain; a gain ≤ 0 is not relevant', () => {
    const graded = new Map([['a', 2], ['b', 1], ['c', -1]]);
    expect(ndcgAt(10, ['b', 'a'], graded)).toBeCloseTo((1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3)), 12);
    expect(ndcgAt(10, ['c', 'a', 'b'], graded)).toBeCloseTo((2 / Math.log2(3) + 1 / Math.log2(4)) / (2 + 1 / Math.log2(3)), 12);
  });
});

describe('Recall@k and MRR@k', () => {
  it('recall counts the relevant documents found in the first k', () => {
    expect(recallAt(2, ['x', 'a', 'b'], rel)).toBe(0.5);
    expect(recallAt(100, ['x', 'a', 'b'], rel)).toBe(1);
    expect(recallAt(10, ['a'], new Map([['a', 0]]))).toBe(0);
  });

  it('MRR is the reciprocal rank of the first relevant document within k', () => {
    expect(mrrAt(10, ['x', 'y', 'b'], rel)).toBeCloseTo(1 / 3, 12);
    expect(mrrAt(2, ['x', 'y', 'b'], rel)).toBe(0);
    expect(mrrAt(10, ['a'], rel)).toBe(1);
  });
});

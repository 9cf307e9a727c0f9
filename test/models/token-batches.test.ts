/**
 * How our encoder runtime cuts a call's texts into batches (kernel-embedder.ts `tokenBatches`): each
 * within the token budget, every text once, and the tokens shared evenly between the workers.
 */
import { describe, expect, it } from 'vitest';
import { tokenBatches } from '../../src/models/encoder-runtime/kernel-embedder.ts';

const tokensOf = (lengths: number[], batches: number[][]) => batches.map((b) => b.reduce((n, i) => n + lengths[i], 0));

function expectValid(lengths: number[], budget: number, batches: number[][]): void {
  expect(batches.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i));
  batches.forEach((b, j) => {
    if (b.length > 1) expect(tokensOf(lengths, batches)[j], `batch ${j}`).toBeLessThanOrEqual(budget);
  });
}

describe('tokenBatches', () => {
  it('gives two workers equal halves of 8 similar passages (greedy filling made 5 + 3)', () => {
    const lengths = [190, 185, 200, 178, 192, 188, 195, 181];
    const batches = tokenBatches(lengths, 1024, 2);
    expectValid(lengths, 1024, batches);
    expect(batches.map((b) => b.length)).toEqual([4, 4]);
  });

  it('rounds the batch count up to a whole number per worker, and keeps each within the budget', () => {
    const lengths = Array.from({ length: 20 }, (_, i) => 100 + ((i * 37) % 60));
    const total = lengths.reduce((a, b) => a + b, 0); // 2,555 tokens: 3 budgets of 1,024
    const batches = tokenBatches(lengths, 1024, 2);
    expectValid(lengths, 1024, batches);
    expect(batches).toHaveLength(4);
    for (const t of tokensOf(lengths, batches)) expect(Math.abs(t - total / 4)).toBeLessThan(160);
  });

  it('one worker: as few batches as the budget allows, still evened out', () => {
    const lengths = [190, 185, 200, 178, 192, 188, 195, 181];
    const batches = tokenBatches(lengths, 1024, 1);
    expectValid(lengths, 1024, batches);
    expect(batches.map((b) => b.length)).toEqual([4, 4]);
    expect(tokenBatches([12, 9], 1024, 1)).toEqual([[1, 0]]);
  });

  it('never makes more batches than texts; a text over the budget goes alone', () => {
    expect(tokenBatches([14], 1024, 4)).toEqual([[0]]);
    const batches = tokenBatches([300, 2000, 300], 1024, 2);
    expectValid([300, 2000, 300], 1024, batches);
    expect(batches.find((b) => b.includes(1))).toEqual([1]);
  });
});

import { describe, expect, it } from 'vitest';
import { chunkText } from '../../src/engine/analysis/chunker.ts';

describe('chunkText', () => {
  it('the chunker always advances, even with a size smaller than a surrogate pair', () => {
    const chunks = chunkText('😀😀', 1, 0);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.at(-1)!.end).toBe(4);
  });
});

import { describe, expect, it } from 'vitest';
import type { Hit } from '../../src/protocol/types.ts';
import { explainHit, ranksBeforeRerank } from '../../src/app/score-explain.ts';

describe('scores in plain words', () => {
  it('names the words matched, the cosine and what the reranker changed', () => {
    const hit: Hit = { id: 'a', score: 0.9, scores: { sparse: 7.4123, dense: 0.6234, rerank: 3.2, recall: 0.01 } };
    const why = explainHit(hit, { terms: ['whale', 'white'], rank: 1, rankBeforeRerank: 3, rerankMethod: 'cross-encoder' });
    expect(why[0]).toBe('Matched the words “whale”, “white” — keyword score 7.41 (BM25: higher when rarer words match more often).');
    expect(why[1]).toBe('Closeness in meaning: cosine 0.62 (1 = same meaning, 0 = unrelated).');
    expect(why[2]).toBe('The reranker (cross-encoder) read your query and this passage together, scored it 3.20 and moved it up from #3 to #1 of these results.');
  });

  it('says when a passage was found by meaning alone, and never shows the fused score', () => {
    const why = explainHit({ id: 'b', score: 0.0325, scores: { dense: 0.5 } }, { terms: [], rank: 2 });
    expect(why[0]).toMatch(/found by meaning alone/);
    expect(why.join(' ')).not.toContain('0.03');
  });

  it('ranks before rerank come from scores.recall among the shown hits', () => {
    const hits: Hit[] = [
      { id: 1, score: 0.9, scores: { recall: 0.2 } },
      { id: 2, score: 0.8, scores: { recall: 0.5 } },
      { id: 3, score: 0.1, scores: { sparse: 1 } },
    ];
    expect(ranksBeforeRerank(hits)).toEqual([2, 1, undefined]);
  });
});

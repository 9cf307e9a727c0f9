/** src/eval: BEIR reading with line-numbered errors, the metrics by hand, the harness over a fake engine. */
import { describe, expect, it } from 'vitest';
import { BeirError, judgedQueries, parseCollection, parseCorpus, parseQrels, parseQueries } from '../../src/eval/beir.ts';
import { parseRunConfigs, queryDiffs, retrieveParams, runConfig } from '../../src/eval/harness.ts';
import { mrrAt, ndcgAt, recallAt, scoreQuery } from '../../src/eval/metrics.ts';

const throwsAt = (fn: () => unknown, file: string, line: number, text: RegExp) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(BeirError);
    expect((e as BeirError).file).toBe(file);
    expect((e as BeirError).line).toBe(line);
    expect((e as Error).message).toMatch(text);
    return;
  }
  throw new Error('did not throw');
};

describe('BEIR files', () => {
  it('reads corpus, queries and qrels (header, CRLF, TREC 4-column, numeric ids)', () => {
    const c = parseCollection('t', {
      corpus: '{"_id":"d1","title":"T","text":"one"}\r\n\n{"_id":2,"text":"two"}\n',
      queries: '{"_id":"q1","text":"one?"}\n{"_id":"q2","text":"none"}\n',
      qrels: 'query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\t2\t0\n',
    });
    expect(c.corpus).toEqual([{ id: 'd1', title: 'T', text: 'one' }, { id: '2', title: '', text: 'two' }]);
    expect(judgedQueries(c).map((q) => q.id)).toEqual(['q1']);
    expect(parseQrels('q1 0 d1 1'.replace(/ /g, '\t')).get('q1')).toEqual(new Map([['d1', 1]]));
  });

  it('names the file and line of a malformed entry', () => {
    throwsAt(() => parseCorpus('{"_id":"a","text":"x"}\n{"_id":"b","text":\n'), 'corpus.jsonl', 2, /not JSON/);
    throwsAt(() => parseCorpus('{"_id":"a","text":"x"}\n\n{"_id":"a","text":"y"}'), 'corpus.jsonl', 3, /appears twice/);
    throwsAt(() => parseCorpus('[1]'), 'corpus.jsonl', 1, /not a JSON object/);
    throwsAt(() => parseCorpus('{"text":"no id"}'), 'corpus.jsonl', 1, /_id/);
    throwsAt(() => parseQueries('{"_id":"q","text":5}'), 'queries.jsonl', 1, /text must be a string/);
    throwsAt(() => parseQrels('query-id\tcorpus-id\tscore\nq1\td1\thigh\n', 'qrels/dev.tsv'), 'qrels/dev.tsv', 2, /not a number/);
    throwsAt(() => parseQrels('q1 d1 1'), 'qrels/test.tsv', 1, /tabs/);
    throwsAt(() => parseCorpus(''), 'corpus.jsonl', 1, /no documents/);
  });
});

describe('metrics (Appendix F)', () => {
  const rel = new Map([['a', 2], ['b', 1], ['z', 0]]);
  it('nDCG@k with linear gain, Recall@k, MRR@k', () => {
    // DCG = 0/log2(2) + 2/log2(3) + 1/log2(4); IDCG = 2/log2(2) + 1/log2(3).
    expect(ndcgAt(10, ['x', 'a', 'b'], rel)).toBeCloseTo((2 / Math.log2(3) + 1 / 2) / (2 + 1 / Math.log2(3)), 12);
    expect(ndcgAt(10, ['a', 'b'], rel)).toBe(1);
    expect(ndcgAt(10, ['x'], rel)).toBe(0);
    expect(recallAt(50, ['x', 'a', 'z'], rel)).toBe(0.5);
    expect(recallAt(1, ['b', 'a'], rel)).toBe(0.5);
    expect(mrrAt(10, ['x', 'z', 'b'], rel)).toBeCloseTo(1 / 3, 12);
    expect(mrrAt(2, ['x', 'z', 'b'], rel)).toBe(0);
    expect(scoreQuery([], new Map())).toEqual({ ndcg10: 0, recall50: 0, recall100: 0, mrr10: 0 });
  });
});

describe('the harness', () => {
  const c = parseCollection('t', {
    corpus: '{"_id":"a","text":"x"}\n{"_id":"b","text":"y"}\n',
    queries: '{"_id":"q1","text":"first"}\n{"_id":"q2","text":"second"}\n{"_id":"q3","text":"unjudged"}\n',
    qrels: 'q\td\ts\nq1\ta\t1\nq2\tb\t1\n',
  });

  it('asks k=100 with the configuration, scores each judged query, counts failures as 0', async () => {
    const asked: unknown[] = [];
    const run = await runConfig('fake', async (p) => {
      asked.push(p);
      if (p.query === 'second') throw new Error('boom');
      return { hits: [{ id: 'a#0', score: 1, citation: { source: 'a' } }, { id: 'b', score: 0.5 }] };
    }, c, parseRunConfigs('hybrid:weighted:0.4')[0]);
    expect(asked).toEqual([
      { query: 'first', k: 100, includeText: false, mode: 'hybrid', fusion: { method: 'weighted', weights: { dense: 0.4, sparse: 0.6 } } },
      { query: 'second', k: 100, includeText: false, mode: 'hybrid', fusion: { method: 'weighted', weights: { dense: 0.4, sparse: 0.6 } } },
    ]);
    expect(run.queries.map((q) => [q.id, q.ndcg10, q.top])).toEqual([['q1', 1, ['a', 'b']], ['q2', 0, []]]);
    expect(run.mean.ndcg10).toBe(0.5);
    expect(run.failed).toBe(1);
    expect(run.error).toBe('boom');
  });

  it('compares two runs query by query, the largest change first', async () => {
    const first = await runConfig('x', async () => ({ hits: [{ id: 'a', score: 1 }] }), c, { label: 'x' });
    const second = await runConfig('y', async () => ({ hits: [{ id: 'b', score: 1 }] }), c, { label: 'y' });
    expect(queryDiffs(first, second).map((d) => [d.id, d.delta])).toEqual([['q1', -1], ['q2', 1]]);
    expect(retrieveParams('q', { label: 'c', mode: 'hybrid', fusion: 'convex', weight: 0.3, rerank: { method: 'colbert', topN: 30 } })).toEqual({
      query: 'q', k: 30, includeText: false, mode: 'hybrid', fusion: { method: 'convex', alpha: 0.3 }, rerank: { method: 'colbert', topN: 30 },
    });
  });
});

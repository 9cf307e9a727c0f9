import { describe, expect, it } from 'vitest';
import { readSearchState, writeSearchState } from '../../src/app/url-state.ts';

describe('search state in the address', () => {
  it('round-trips query, mode, fusion, k, rerank, MMR and a filter tree', () => {
    const s = { q: 'white whale & co', mode: 'hybrid', fusion: 'weighted', k: '5', rerank: true, mmr: '0.5', filter: { and: [{ field: 'year', op: 'gte' as const, value: 1900 }, { field: 'author', op: 'in' as const, value: ['Abraham Lincoln'] }] } };
    expect(readSearchState(writeSearchState('', s))).toEqual(s);
  });

  it('keeps other parameters, drops empty values, and survives a mangled filter', () => {
    expect(writeSearchState('?debug=1&q=old', { q: 'new' })).toBe('?debug=1&q=new');
    expect(writeSearchState('?q=old', {})).toBe('');
    expect(readSearchState('?q=whale&filter=%7Boops&k=')).toEqual({ q: 'whale' });
  });
});

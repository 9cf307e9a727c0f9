import { describe, expect, it } from 'vitest';
import { expectedAnswers } from '../../src/app/console-pairs.ts';

describe('console: which answers a sent text expects', () => {
  it('keeps ids as typed (numbers and strings differ)', () => {
    expect(expectedAnswers('{"jsonrpc":"2.0","id":42,"method":"ping"}')).toEqual({ ids: ['42'], expectsNullId: false, shutdown: false });
    expect(expectedAnswers('{"jsonrpc":"2.0","id":"42","method":"ping"}').ids).toEqual(['"42"']);
  });
  it('an empty batch, invalid JSON and invalid members expect an error with id null', () => {
    expect(expectedAnswers('[]')).toMatchObject({ ids: [], expectsNullId: true });
    expect(expectedAnswers('{"jsonrpc": ')).toMatchObject({ expectsNullId: true });
    expect(expectedAnswers('[1, {"jsonrpc":"2.0","id":"a","method":"ping"}]')).toMatchObject({ ids: ['"a"'], expectsNullId: true });
  });
  it('notifications expect nothing; shutdown is recognised', () => {
    expect(expectedAnswers('{"jsonrpc":"2.0","method":"notifications/cancel","params":{"id":1}}')).toEqual({ ids: [], expectsNullId: false, shutdown: false });
    expect(expectedAnswers('{"jsonrpc":"2.0","id":9,"method":"shutdown"}').shutdown).toBe(true);
  });
});

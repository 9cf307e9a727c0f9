/** The console's id rewriting: its raw frames share a session with the page's RcpClient. */
import { describe, expect, it } from 'vitest';
import { withFreshIds } from '../../src/app/console-ids.ts';

describe('console ids', () => {
  it('gives numeric and string request ids fresh console ids, distinct from each other and from the client’s numbers', () => {
    const a = withFreshIds('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    const b = withFreshIds('{"jsonrpc":"2.0","id":"mine","method":"ping"}');
    const [idA] = a.ids;
    const [idB] = b.ids;
    expect(typeof idA).toBe('string');
    expect(idA).toMatch(/^console-\d+$/);
    expect(idB).toMatch(/^console-\d+$/);
    expect(idA).not.toBe(idB);
    expect(JSON.parse(a.text).id).toBe(idA);
  });

  it('rewrites every request of a batch and waits for none of its notifications', () => {
    const { text, ids } = withFreshIds('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancel","params":{"id":1}},{"jsonrpc":"2.0","id":1,"method":"info"}]');
    const sent = JSON.parse(text) as { id?: unknown }[];
    expect(ids).toHaveLength(2);
    expect(sent[0].id).toBe(ids[0]);
    expect('id' in sent[1]).toBe(false);
    expect(sent[2].id).toBe(ids[1]);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('leaves invalid ids and non-JSON alone and waits for the id-null error answer', () => {
    expect(withFreshIds('{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}')).toMatchObject({ ids: [null] });
    expect(JSON.parse(withFreshIds('{"jsonrpc":"2.0","id":true,"method":"ping"}').text).id).toBe(true);
    expect(withFreshIds('{not json')).toEqual({ text: '{not json', ids: [null] });
    expect(withFreshIds('[1]').ids).toEqual([null]);
  });
});

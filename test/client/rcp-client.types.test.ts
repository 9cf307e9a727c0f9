/** Type-level tests of the public client API (checked by `npm run typecheck`, which fails on an unused @ts-expect-error): what `RcpClient.request` accepts and returns per method. */
import { describe, expectTypeOf, it } from 'vitest';
import type { RcpClient } from '../../src/client/rcp-client.ts';
import type { EmbedResult, IndexAddResult, RerankResult, RetrieveParams, RetrieveResult } from '../../src/protocol/types.ts';

type Request = RcpClient['request'];

describe('RcpClient.request types', () => {
  it('returns the result type of the method it is given', () => {
    expectTypeOf<ReturnType<typeof retrieve>>().toEqualTypeOf<Promise<RetrieveResult>>();
    expectTypeOf<ReturnType<typeof add>>().toEqualTypeOf<Promise<IndexAddResult>>();
    expectTypeOf<ReturnType<typeof embed>>().toEqualTypeOf<Promise<EmbedResult>>();
    expectTypeOf<ReturnType<typeof rerank>>().toEqualTypeOf<Promise<RerankResult>>();
  });

  it('takes the params type of that method', () => {
    expectTypeOf<Parameters<typeof retrieve>[1]>().toEqualTypeOf<RetrieveParams>();
    expectTypeOf<RetrieveParams>().toHaveProperty('query');
  });

  it('refuses unknown methods and params of another method', () => {
    const client = {} as RcpClient;
    const never = (): void => {
      // @ts-expect-error not an RCP/1 method
      void client.request('retrieve/all', {});
      // @ts-expect-error retrieve needs a query
      void client.request('retrieve', { k: 3 });
      // @ts-expect-error index/add takes documents, not a query
      void client.request('index/add', { query: 'x' });
      // @ts-expect-error k is a number
      void client.request('retrieve', { query: 'x', k: '3' });
    };
    expectTypeOf(never).toBeFunction();
  });
});

declare const request: Request;
const retrieve = (m: 'retrieve', p: RetrieveParams) => request(m, p);
const add = (p: Parameters<typeof request<'index/add'>>[1]) => request('index/add', p);
const embed = (p: Parameters<typeof request<'embed'>>[1]) => request('embed', p);
const rerank = (p: Parameters<typeof request<'rerank'>>[1]) => request('rerank', p);

/**
 * The one serving policy (src/engine/serving.ts): what the capabilities advertise, what a request
 * without a mode is planned in, and which reranker serves — read alike by every caller.
 */
import { describe, expect, it } from 'vitest';
import { chooseReranker, modeFloor, retrieveServing } from '../../src/engine/serving.ts';
import { ErrorCode } from '../../src/protocol/codes.ts';
import { withoutDenseModel } from '../../src/server/capabilities.ts';
import { inProcessCapabilities } from '../../src/server/front-door.ts';
import { planRetrieve } from '../../src/server/retrieve-plan.ts';
import { CountReranker, HashEmbedder, makeEngine } from '../support/engine.ts';
import { rcpError } from '../support/rcp-error.ts';

describe('retrieveServing', () => {
  it('serves sparse alone without an encoder, whatever default is configured', () => {
    expect(retrieveServing({ dense: false, rerank: false, preferredMode: 'hybrid' })).toEqual({
      modes: ['sparse'], defaultMode: 'sparse', rerankBuiltin: false, scoreFloor: 0, scoreScale: 'bm25',
    });
    expect(retrieveServing({ dense: false, rerank: true }).scoreScale).toBe('unbounded');
  });

  it('with an encoder: every mode and fusion, the configured default (hybrid when none), floor −1', () => {
    const s = retrieveServing({ dense: true, rerank: false });
    expect(s).toMatchObject({ modes: ['dense', 'sparse', 'hybrid'], defaultMode: 'hybrid', fusion: ['rrf', 'weighted', 'convex'], scoreFloor: -1, scoreScale: 'unbounded' });
    expect(retrieveServing({ dense: true, rerank: false, preferredMode: 'sparse' }).defaultMode).toBe('sparse');
    expect([modeFloor('sparse'), modeFloor('dense'), modeFloor('hybrid')]).toEqual([0, -1, 0]);
  });

  it('the engine, the degraded set and the plan agree on the default mode', async () => {
    const { engine } = await makeEngine({ embedder: new HashEmbedder() });
    const caps = inProcessCapabilities(engine);
    expect(caps.retrieve?.defaultMode).toBe('hybrid');
    expect(planRetrieve({ query: 'q' }, caps, [])).toMatchObject({ mode: 'hybrid', modeDefaulted: true });
    expect(planRetrieve({ query: 'q', mode: 'dense' }, caps, [])).toMatchObject({ mode: 'dense', modeDefaulted: false });
    const degraded = withoutDenseModel(caps);
    expect(degraded.retrieve).toMatchObject({ modes: ['sparse'], defaultMode: 'sparse', scoreFloor: 0 });
    expect(planRetrieve({ query: 'q' }, degraded, [])).toMatchObject({ mode: 'sparse', modeDefaulted: true });
  });
});

describe('chooseReranker (one rule for retrieve and the rerank method)', () => {
  const ce = (identity: string) => ({ method: 'cross-encoder' as const, identity, score: async () => [] });
  const cb = { method: 'colbert' as const, identity: 'cb', score: async () => [] };
  const list = [ce('ce-1'), cb, ce('ce-2')];

  it('defaults to the first method, picks by method, then by model among that method', () => {
    expect(chooseReranker(list, undefined, undefined, 'method').identity).toBe('ce-1');
    expect(chooseReranker(list, 'colbert', undefined, 'method').identity).toBe('cb');
    expect(chooseReranker(list, 'cross-encoder', 'ce-2', 'method').identity).toBe('ce-2');
    expect(chooseReranker(list, 'cross-encoder', 'cb', 'method').identity).toBe('ce-1');
  });

  it('a method no reranker serves is -32005 naming the option, never skipped', () => {
    const e = rcpError(() => chooseReranker(list, 'llm', undefined, 'rerank.method'));
    expect(e.code).toBe(ErrorCode.OptionUnsupported);
    expect(e.data?.option).toBe('rerank.method');
    expect(rcpError(() => chooseReranker([], undefined, undefined, 'method')).code).toBe(ErrorCode.OptionUnsupported);
  });

  it('planRetrieve refuses an advertised rerank method whose reranker is missing (-32005), and plans the one served', async () => {
    const reranker = new CountReranker();
    const { engine } = await makeEngine({ reranker });
    const caps = inProcessCapabilities(engine);
    expect(planRetrieve({ query: 'q', rerank: {} }, caps, engine.rerankers).rerank?.reranker).toBe(reranker);
    const e = rcpError(() => planRetrieve({ query: 'q', rerank: {} }, caps, []));
    expect(e.code).toBe(ErrorCode.OptionUnsupported);
    expect(e.data?.option).toBe('rerank.method');
  });
});

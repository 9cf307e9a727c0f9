import { describe, expect, it } from 'vitest';
import { RcpClient } from '../../src/client/rcp-client.ts';
import { RcpError } from '../../src/protocol/errors.ts';
import { serve } from '../../src/server/rcp-session.ts';
import { createLinkedPair } from '../../src/transport/memory-transport.ts';
import { fakeBackend } from '../support/rcp-harness.ts';

/** The RcpError a call rejects with (fails the test if it resolves). */
const rejection = (p: Promise<unknown>): Promise<RcpError> =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: RcpError) => e,
  );

function pair(opts: ConstructorParameters<typeof RcpClient>[1] = {}) {
  const [c, s] = createLinkedPair();
  const backend = fakeBackend();
  serve(s, backend);
  const frames: { dir: string; frame: string }[] = [];
  const watchers = new Set<() => void>();
  const client = new RcpClient(c, {
    ...opts,
    onFrame: (dir, frame) => {
      frames.push({ dir, frame });
      for (const w of [...watchers]) w();
    },
  });
  /** Resolves with the first frame (parsed) of `dir` that satisfies `pred`, as soon as it is seen. */
  const frameWhere = (dir: 'in' | 'out', pred: (m: any) => boolean): Promise<any> =>
    new Promise((ok) => {
      const check = () => {
        const hit = frames.filter((f) => f.dir === dir).map((f) => JSON.parse(f.frame)).find(pred);
        if (hit === undefined) return;
        watchers.delete(check);
        ok(hit);
      };
      watchers.add(check);
      check();
    });
  return { client, frames, backend, frameWhere };
}

describe('RcpClient (§14.4)', () => {
  it('refuses gated calls before connect() without sending anything', async () => {
    const { client, frames } = pair();
    await expect(client.request('retrieve', { query: 'x', k: 1 })).rejects.toMatchObject({ code: -32001 });
    expect(frames).toEqual([]);
    expect((await client.request('ping', { nonce: 1 })).nonce).toBe(1); // open methods are fine
  });

  it('initializes, then fails unadvertised methods locally with -32003', async () => {
    const { client, frames } = pair();
    const init = await client.connect();
    expect(init.protocolVersion).toBe(1);
    const sent = frames.length;
    const e = await client.request('rerank', { query: 'q', passages: ['a'] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RcpError);
    expect((e as RcpError).code).toBe(-32003);
    expect((e as RcpError).message).toBe("[RCP -32003] capability missing: rerank needs 'rerank'");
    expect((e as RcpError).retryable()).toBe(false);
    expect(frames.length).toBe(sent);
  });

  it('pipelines requests and correlates out-of-order answers by id', async () => {
    const { client } = pair();
    await client.connect();
    const ctrl = new AbortController();
    const slow = client.request('retrieve', { query: 'slow', k: 1 }, { signal: ctrl.signal });
    const fast = await client.request('retrieve', { query: 'fast', k: 1 });
    expect(fast.hits[0].id).toBe('a');
    ctrl.abort();
    await expect(slow).rejects.toMatchObject({ code: -32006 });
  });

  it('an AbortSignal sends notifications/cancel for that id, and the server answers that request -32006', async () => {
    const { client, frames, frameWhere } = pair();
    await client.connect();
    const ctrl = new AbortController();
    const p = client.request('retrieve', { query: 'slow', k: 1 }, { signal: ctrl.signal });
    const req = await frameWhere('out', (m) => m.method === 'retrieve');
    ctrl.abort();
    await expect(p).rejects.toMatchObject({ code: -32006 });
    const out = frames.filter((f) => f.dir === 'out').map((f) => JSON.parse(f.frame));
    expect(out).toContainEqual(expect.objectContaining({ method: 'notifications/cancel', params: expect.objectContaining({ id: req.id }) }));
    // The server's own answer to the cancelled request (§7.14), not only the client's local rejection.
    const answer = await frameWhere('in', (m) => m.id === req.id && !('method' in m));
    expect(answer.error).toMatchObject({ code: -32006 });
    expect(answer.result).toBeUndefined();
  });

  it('progress callbacks receive frames for their own token only', async () => {
    const { client, frameWhere } = pair();
    await client.connect();
    const seen: number[] = [];
    const ctrl = new AbortController();
    const p = client.request('retrieve', { query: 'slow', k: 1 }, { signal: ctrl.signal, onProgress: (u) => seen.push(u.progress) });
    await frameWhere('in', (m) => m.method === 'notifications/progress');
    ctrl.abort();
    await p.catch(() => undefined);
    expect(seen).toEqual([0.5]);
  });

  it('a per-call timeout rejects with -32014 and a late answer is discarded', async () => {
    const { client } = pair();
    await client.connect();
    const e = await rejection(client.request('retrieve', { query: 'slow', k: 1 }, { timeoutMs: 30 }));
    expect(e.code).toBe(-32014);
    expect(e.retryable()).toBe(true);
    expect((await client.request('ping', {})).nonce).toBeUndefined(); // the session is still usable
  });

  it('server errors arrive as typed RcpErrors with code and data', async () => {
    const { client } = pair();
    await client.connect();
    const e = await rejection(client.request('retrieve', { query: 'x', k: -3 }));
    expect(e).toBeInstanceOf(RcpError);
    expect(e.code).toBe(-32602);
    expect(e.data?.field).toBe('k');
  });

  it('logs reach onLog when the client opted in', async () => {
    const logs: string[] = [];
    const { client } = pair({ capabilities: { log: {} }, onLog: (l) => logs.push(l.message) });
    await client.connect();
    await client.request('retrieve', { query: 'log', k: 1 });
    expect(logs).toEqual(['hello']);
  });
});

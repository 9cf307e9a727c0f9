/** The worker as an aggregator: federated retrieve, catalog/list, and two aggregators pointing at each other. */
import { describe, expect, it } from 'vitest';
import { RcpClient } from '../../src/client/rcp-client.ts';
import { Engine } from '../../src/engine/engine.ts';
import { withFederation } from '../../src/server/aggregator.ts';
import type { Backend } from '../../src/server/backend.ts';
import { createEngineBackend } from '../../src/server/engine-backend.ts';
import { serve } from '../../src/server/rcp-session.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { createLinkedPair } from '../../src/transport/memory-transport.ts';
import { connect } from '../support/rcp-harness.ts';
import { loadRcpSchema } from '../../tools/lib/rcp-schema.ts';

const schema = loadRcpSchema();

async function engineBackend(name: string, docs: { id: string; text: string }[]): Promise<Backend> {
  const engine = new Engine({ store: new MemoryStore() });
  await engine.open();
  await engine.add(docs);
  return createEngineBackend({ serverInfo: { name, version: '1' }, engine: Promise.resolve(engine), capabilities: engine.capabilities() });
}

/** A client whose server end is served later (so two aggregators can point at each other). */
function lateClient(): { client: RcpClient; serveWith(b: Backend): void } {
  const [c, s] = createLinkedPair();
  return { client: new RcpClient(c), serveWith: (b) => void serve(s, b) };
}

const engineOf = (h: { meta?: Record<string, unknown> }) => h.meta?.engine;

describe('aggregator (§7.13, §16)', () => {
  it('fuses its own hits with a remote engine\'s when a retrieve asks, lists the remote, and stays local otherwise', async () => {
    const remote = lateClient();
    remote.serveWith(await engineBackend('remote', [{ id: 'r1', text: 'the white whale in the remote archive' }]));
    const agg = withFederation(await engineBackend('here', [{ id: 'h1', text: 'the white whale here' }]), { identity: 'agg-a', engines: [{ id: 'archive', client: remote.client }] });
    const t = connect(agg);
    const init = await t.init();
    expect(init.result.capabilities.catalog).toEqual({ engines: 1 });
    const plain = await t.call(1, 'retrieve', { query: 'white whale' });
    expect(plain.result.hits.map((h: { id: string }) => h.id)).toEqual(['h1']);
    const fused = await t.call(2, 'retrieve', { query: 'white whale', _meta: { federate: true } });
    expect(fused.error).toBeUndefined();
    expect(schema.result('retrieve', fused.result)).toEqual([]);
    expect(fused.result.hits.map((h: { id: string }) => h.id).sort()).toEqual(['h1', 'r1']);
    expect(new Set(fused.result.hits.map(engineOf))).toEqual(new Set(['local', 'archive']));
    expect(fused.result._meta.engines.map((e: { id: string; state: string }) => [e.id, e.state])).toEqual([['local', 'ok'], ['archive', 'ok']]);
    const catalog = await t.call(3, 'catalog/list', {});
    expect(schema.result('catalog/list', catalog.result)).toEqual([]);
    expect(catalog.result.engines).toEqual([{ id: 'archive', server: { name: 'remote', version: '1' }, capabilities: expect.objectContaining({ retrieve: expect.any(Object) }) }]);
    // Invalid params fail as a direct retrieve would.
    expect((await t.call(4, 'retrieve', { query: 'x', k: 0, _meta: { federate: true } })).error).toMatchObject({ code: -32602 });
  });

  it('keeps answering locally when a remote is down', async () => {
    const dead = lateClient();
    dead.client.close();
    const agg = withFederation(await engineBackend('here', [{ id: 'h1', text: 'the white whale here' }]), { identity: 'agg', engines: [{ id: 'gone', client: dead.client }], federateByDefault: true });
    const t = connect(agg);
    await t.init();
    const r = await t.call(1, 'retrieve', { query: 'white whale' });
    expect(r.result.hits.map((h: { id: string }) => h.id)).toEqual(['h1']);
    expect(r.result.usage.notes.join(' ')).toMatch(/'gone' failed/);
    expect(r.result._meta.degraded).toEqual(['gone']);
    const catalog = await t.call(2, 'catalog/list', {});
    expect(catalog.result.engines).toEqual([]);
    expect(catalog.result._meta.unreachable[0].id).toBe('gone');
  });

  it('stops a loop between two aggregators that point at each other (§16.2 hop budget and path)', async () => {
    const toB = lateClient();
    const toA = lateClient();
    const a = withFederation(await engineBackend('A', [{ id: 'a1', text: 'white whale of A' }]), { identity: 'agg-A', engines: [{ id: 'B', client: toB.client }], federateByDefault: true });
    const b = withFederation(await engineBackend('B', [{ id: 'b1', text: 'white whale of B' }]), { identity: 'agg-B', engines: [{ id: 'A', client: toA.client }], federateByDefault: true });
    toB.serveWith(b);
    toA.serveWith(a);
    const t = connect(a);
    await t.init();
    const r = await t.call(1, 'retrieve', { query: 'white whale' });
    expect(r.error).toBeUndefined();
    // A's own hit and B's, each once, and the answer came back (no recursion until the deadline).
    expect(r.result.hits.map((h: { id: string }) => h.id).sort()).toEqual(['a1', 'b1']);
    expect(r.result.usage.notes.join(' ')).toMatch(/cycle: 'agg-A' is already in the federation path/);
  });

  it('passes progress through (§9): the caller\'s token echoed, engines named, non-decreasing to ≤ 1; members get their own token, and none without one', async () => {
    const remote = lateClient();
    const seenTokens: unknown[] = [];
    const inner = await engineBackend('remote', [{ id: 'r1', text: 'the white whale in the remote archive' }]);
    remote.serveWith({
      ...inner,
      capabilities: () => ({ ...inner.capabilities(), streaming: {} }),
      handlers: {
        ...inner.handlers,
        retrieve: async (raw: any, ctx) => {
          seenTokens.push(raw?._meta?.progressToken);
          ctx.progress({ progress: 0.5, stage: 'recall', message: 'half way' });
          return inner.handlers.retrieve!(raw, ctx);
        },
      },
    });
    const here = await engineBackend('here', [{ id: 'h1', text: 'the white whale here' }]);
    const agg = withFederation({ ...here, capabilities: () => ({ ...here.capabilities(), streaming: {} }) }, { identity: 'agg', engines: [{ id: 'archive', client: remote.client }], federateByDefault: true });
    const t = connect(agg);
    await t.init();
    const r = await t.call(1, 'retrieve', { query: 'white whale', _meta: { progressToken: 'caller-tok' } });
    expect(r.result.hits.map((h: { id: string }) => h.id).sort()).toEqual(['h1', 'r1']);
    const frames = t.received.map((f) => JSON.parse(f)).filter((m) => m.method === 'notifications/progress').map((m) => m.params);
    expect(frames.length).toBeGreaterThanOrEqual(3);
    expect(frames.every((p) => p.progressToken === 'caller-tok')).toBe(true);
    const values = frames.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(values[values.length - 1]).toBeLessThanOrEqual(1);
    expect(values[values.length - 1]).toBe(1);
    expect(frames).toContainEqual(expect.objectContaining({ stage: 'recall', message: 'archive: half way' }));
    expect(frames.map((p) => p.message)).toEqual(expect.arrayContaining(['archive: answered, 1 hit', 'local: answered, 1 hit']));
    expect(seenTokens[0]).toBeDefined();
    expect(seenTokens[0]).not.toBe('caller-tok');
    // Without a token: no progress frames, and the member is asked for none.
    const before = t.received.length;
    const plain = await t.call(2, 'retrieve', { query: 'white whale' });
    expect(plain.result.hits.map((h: { id: string }) => h.id).sort()).toEqual(['h1', 'r1']);
    expect(t.received.slice(before).some((f) => f.includes('notifications/progress'))).toBe(false);
    expect(seenTokens[1]).toBeUndefined();
  });
});

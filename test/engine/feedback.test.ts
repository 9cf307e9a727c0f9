import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import { graphCapability } from '../../src/engine/graph/plan.ts';
import { createCoordinationHub } from '../../src/engine/state/coordination.ts';
import { RcpError } from '../../src/protocol/errors.ts';
import { validateFeedback } from '../../src/protocol/validate-feedback.ts';
import { validateGraph } from '../../src/protocol/validate-graph.ts';
import { inProcessCapabilities } from '../../src/server/retrieve-plan.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { ids, makeEngine, search } from '../support/engine.ts';

/** Validation and engine, as the front door runs them (a validation error is a rejection). */
const feedback = async (engine: Engine, params: unknown) => engine.feedback(validateFeedback(params));

const DOCS = [
  { id: 'good', text: 'the white whale swims in the sea' },
  { id: 'bad', text: 'the white whale is a lie, buy our whale oil now' },
  { id: 'long', text: 'whale. '.repeat(400) + 'a long chapter about the sea and its whales' },
];

async function corpus(store = new MemoryStore()): Promise<Engine> {
  const { engine } = await makeEngine({ store });
  await engine.add(DOCS, { chunk: true });
  return engine;
}

describe('feedback', () => {
  it('counts signals per hit, accepts only hit ids that name something, and keeps them', async () => {
    const engine = await corpus();
    const hits = ids(await search(engine, { query: 'whale', k: 10 }));
    expect(hits).toContain('long#1');
    const r = await feedback(engine, {
      query: 'whale',
      signals: [
        { hitId: 'good', helpful: true, used: true, reward: 0.5 },
        { hitId: 'good', helpful: false, cited: true, reward: -0.25 },
        { hitId: 'long#1', used: true },
        { hitId: 'nothing-here', helpful: true },
        { hitId: 'long#999', helpful: true },
        { hitId: 7, helpful: true },
      ],
    });
    expect(r).toMatchObject({ accepted: 3, unknown: [3, 4, 5], quarantined: [] });
    const good = await engine.documentFeedback('good');
    expect(good?.hits.good).toMatchObject({ helpful: 1, unhelpful: 1, used: 1, cited: 1, rewardSum: 0.25, rewards: 2 });
    expect((await engine.documentFeedback('long'))?.hits['long#1']).toMatchObject({ used: 1, helpful: 0 });
    expect(await engine.documentFeedback('bad')).toBeUndefined();
    // Counting is not a write of the index: no new version, and ranking is unchanged.
    expect(ids(await search(engine, { query: 'whale', k: 10 }))).toEqual(hits);
  });

  it('refuses a malformed signal with -32602 naming it, recording none of the call', async () => {
    const engine = await corpus();
    for (const [params, field] of [
      [{ signals: [{ hitId: 'good', helpful: true }, { hitId: 'good', reward: 2 }] }, 'signals[1].reward'],
      [{ signals: [{ helpful: true }] }, 'signals[0].hitId'],
      [{ signals: [{ hitId: 'good', used: 'yes' }] }, 'signals[0].used'],
      [{ signals: 'good' }, 'signals'],
      [{}, 'signals'],
    ] as const) {
      const e = await feedback(engine, params).then(() => undefined, (x: unknown) => x);
      expect(e).toBeInstanceOf(RcpError);
      expect(e).toMatchObject({ code: -32602, data: { field } });
    }
    expect(await engine.documentFeedback('good')).toBeUndefined();
    await expect(feedback(engine, { signals: Array(1001).fill({ hitId: 'good' }) })).rejects.toMatchObject({ code: -32013 });
  });

  it('quarantines a poisoned document: later retrieves leave it out and say so, until it is released', async () => {
    const engine = await corpus();
    const before = await search(engine, { query: 'whale oil' });
    expect(ids(before)[0]).toBe('bad');
    const r = await feedback(engine, { signals: [{ hitId: 'bad', poisonSuspected: true }] });
    expect(r).toMatchObject({ accepted: 1, quarantined: ['bad'] });
    expect(Number(engine.indexVersion)).toBe(Number(before.indexVersion) + 1);
    const after = await search(engine, { query: 'whale oil' });
    expect(ids(after)).not.toContain('bad');
    expect(after.usage?.notes?.join(' ')).toMatch(/quarantined.*'bad'/);
    // Every mode and unit leaves it out.
    expect(ids(await search(engine, { query: 'whale oil', unit: 'document' }))).not.toContain('bad');
    expect(await engine.quarantine()).toEqual([{ id: 'bad', reasons: ['poisonSuspected'], at: expect.any(Number), exists: true }]);
    // A pinned earlier version is that snapshot, as it was (§7.7.1).
    expect(ids(await search(engine, { query: 'whale oil', indexVersion: before.indexVersion }))[0]).toBe('bad');
    // A second signal on it adds its reason, not a second entry.
    await feedback(engine, { signals: [{ hitId: 'bad', injectionSuspected: true }] });
    expect((await engine.quarantine())[0].reasons).toEqual(['injectionSuspected', 'poisonSuspected']);
    expect(await engine.release(['bad', 'never-held'])).toMatchObject({ released: 1 });
    expect(ids(await search(engine, { query: 'whale oil' }))[0]).toBe('bad');
    expect(await engine.quarantine()).toEqual([]);
    expect(await engine.release(['bad'])).toMatchObject({ released: 0 });
  });

  it('never changes a retrieve already running', async () => {
    const engine = await corpus();
    const running = search(engine, { query: 'whale oil' });
    const flagged = feedback(engine, { signals: [{ hitId: 'bad', poisonSuspected: true }] });
    const [r] = await Promise.all([running, flagged]);
    expect(ids(r)[0]).toBe('bad');
    expect(r.usage?.notes ?? []).toEqual([]);
  });

  it('keeps the quarantine across a reload and across engines sharing the store', async () => {
    const store = new MemoryStore();
    const hub = createCoordinationHub();
    const a = new Engine({ store, coordination: hub() });
    const b = new Engine({ store, coordination: hub() });
    await a.open();
    await b.open();
    await a.add(DOCS, { chunk: true });
    await feedback(a, { signals: [{ hitId: 'bad', injectionSuspected: true }] });
    await hub.delivered();
    expect(ids(await search(b, { query: 'whale oil' }))).not.toContain('bad');
    const reloaded = new Engine({ store });
    await reloaded.open();
    expect(ids(await search(reloaded, { query: 'whale oil' }))).not.toContain('bad');
    await b.release(['bad']);
    await hub.delivered();
    expect(ids(await search(a, { query: 'whale oil' }))[0]).toBe('bad');
    // Feedback counts from both engines add up.
    await Promise.all([feedback(a, { signals: [{ hitId: 'good', helpful: true }] }), feedback(b, { signals: [{ hitId: 'good', helpful: true }] })]);
    expect((await a.documentFeedback('good'))?.hits.good.helpful).toBe(2);
  });

  it('leaves a quarantined document out of the graph', async () => {
    const { engine } = await makeEngine();
    await engine.add([{ id: 'x', text: 'harpoon line harpoon' }, { id: 'y', text: 'harpoon rope line' }, { id: 'z', text: 'rope knots' }]);
    const caps = { ...inProcessCapabilities(engine), graph: graphCapability() };
    const g = (p: Record<string, unknown>) => engine.graph(validateGraph(p, caps));
    expect((await g({ op: 'local', query: 'harpoon' })).hits!.map((h) => h.id)).toContain('y');
    await feedback(engine, { signals: [{ hitId: 'y', poisonSuspected: true }] });
    const r = await g({ op: 'local', query: 'harpoon' });
    expect(r.hits!.map((h) => h.id)).not.toContain('y');
    expect(r.usage?.notes?.join(' ')).toMatch(/quarantined/);
    await expect(g({ op: 'neighbors', seedIds: ['y'] })).rejects.toMatchObject({ code: -32602, data: { field: 'seedIds[0]', detail: expect.stringMatching(/quarantined/) } });
  });

  it('forgets a deleted document\'s feedback; an upsert keeps it', async () => {
    const engine = await corpus();
    await feedback(engine, { signals: [{ hitId: 'good', helpful: true }, { hitId: 'bad', helpful: true }] });
    await engine.add([{ id: 'good', text: 'the white whale swims in the deep sea' }]);
    expect((await engine.documentFeedback('good'))?.hits.good.helpful).toBe(1);
    await engine.delete(['bad']);
    expect(await engine.documentFeedback('bad')).toBeUndefined();
    await engine.clear();
    expect(await engine.documentFeedback('good')).toBeUndefined();
  });

  it('travels with an index export: re-imported after a clear, counts and quarantine are back, and again changes nothing', async () => {
    const engine = await corpus();
    await feedback(engine, { signals: [{ hitId: 'good', helpful: true, reward: 1 }, { hitId: 'bad', poisonSuspected: true }] });
    const page = await engine.exportDocuments(0, 10, false);
    const bad = page.documents.find((d) => d.id === 'bad')!;
    expect(bad.quarantine).toEqual({ reasons: ['poisonSuspected'], at: expect.any(Number) });
    expect(page.documents.find((d) => d.id === 'good')!.feedback?.good).toMatchObject({ helpful: 1, rewardSum: 1 });
    const held = await engine.quarantine();
    await engine.clear();
    expect(await engine.quarantine()).toEqual([]);
    const restore = async () => {
      await engine.add(page.documents.map((d) => ({ id: d.id, text: d.text, meta: d.meta })), { chunk: true });
      await engine.restoreExtras(page.documents);
    };
    await restore();
    expect(await engine.quarantine()).toEqual(held);
    expect((await engine.documentFeedback('good'))?.hits.good.helpful).toBe(1);
    expect(ids(await search(engine, { query: 'whale oil' }))).not.toContain('bad');
    const version = engine.indexVersion;
    await engine.restoreExtras(page.documents);
    expect(engine.indexVersion).toBe(version); // the quarantine was already there: no new version
    expect((await engine.documentFeedback('good'))?.hits.good.helpful).toBe(1); // replaced, not added
  });
});

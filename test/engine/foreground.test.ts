/**
 * Background embedding lets the requests a person waits for go first: a batch does not start
 * while a retrieve or a document read runs, and a steady stream delays it by a bounded time only.
 */
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/engine/contracts.ts';
import { Engine } from '../../src/engine/engine.ts';
import { ForegroundGate } from '../../src/engine/state/foreground.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { HashEmbedder, search } from '../support/engine.ts';

describe('ForegroundGate', () => {
  it('idle() waits for tracked work, and at most maxWaitMs', async () => {
    const gate = new ForegroundGate();
    let release!: () => void;
    const work = gate.track(() => new Promise<void>((ok) => (release = ok)));
    let idle = false;
    const waiting = gate.idle(60_000).then(() => (idle = true));
    expect(gate.waiting).toBe(1);
    await Promise.resolve();
    expect(idle).toBe(false);
    release();
    await work;
    await waiting;
    expect(idle).toBe(true);
    const never = gate.track(() => new Promise<never>(() => undefined));
    void never;
    const t0 = performance.now();
    await gate.idle(30);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
  });
});

describe('background embedding and foreground reads', () => {
  it('starts no document batch while a retrieve runs', async () => {
    const hash = new HashEmbedder();
    const events: string[] = [];
    const embedder: Embedder = {
      identity: hash.identity,
      dimension: hash.dimension,
      normalized: hash.normalized,
      embed: async (texts, kind) => (kind === 'document' && events.push('batch'), hash.embed(texts)),
    };
    const store = new MemoryStore();
    const engine = new Engine({ store, embedder, embedInBackground: true });
    await engine.open();
    // A slow store read inside the retrieve: the background pass must not run a batch meanwhile.
    let releaseRead!: () => void;
    const getDocuments = store.getDocuments.bind(store);
    let slow = false;
    store.getDocuments = async (ids) => {
      // Only the retrieve's read of its 3 hits (the background pass reads all 40 at once).
      if (slow && ids.length <= 3) {
        events.push('read-start');
        await new Promise<void>((ok) => (releaseRead = ok));
        events.push('read-end');
      }
      return getDocuments(ids);
    };
    await engine.add(Array.from({ length: 40 }, (_, i) => ({ id: `d${i}`, text: `whale number ${i}` })));
    slow = true;
    const retrieving = search(engine, { query: 'whale', mode: 'sparse', includeText: true, k: 3 });
    await expect.poll(() => events.includes('read-start')).toBe(true);
    slow = false;
    // The pass has a batch to run and is held at the gate (not merely slow): it asked idle() and waits.
    await expect.poll(() => engine['s'].foreground.waiting).toBe(1);
    expect(events.slice(events.indexOf('read-start')), 'no batch ran during the retrieve').not.toContain('batch');
    releaseRead();
    await retrieving;
    await engine.whenReembedded();
    expect(engine.pendingVectors()).toBe(0);
    expect(events.lastIndexOf('batch')).toBeGreaterThan(events.indexOf('read-end'));
  });
});

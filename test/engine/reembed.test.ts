/** Re-embedding after a model identity change (§15.7). */
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/engine/contracts.ts';
import { createCoordinationHub } from '../../src/engine/state/coordination.ts';
import { Engine } from '../../src/engine/engine.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { denseTuning } from '../../src/engine/index/vectors/tuning.ts';
import type { RetrieveParams } from '../../src/protocol/types.ts';
import { ids , search } from '../support/engine.ts';

/** Hashing bag-of-words embedder; `salt` changes the vector space (a different model). */
class FakeEmbedder implements Embedder {
  readonly dimension = 32;
  readonly normalized = true;
  /** Document texts embedded, in order (queries are not counted). */
  readonly documents: string[] = [];
  documentCalls = 0;
  /** While set, document embeds wait for it (tests hold the background pass). */
  gate: Promise<void> | undefined;
  private embedded: { text: string; ok: () => void }[] = [];
  /** Resolves once a document text containing `text` has been handed to this embedder. */
  sees(text: string): Promise<void> {
    if (this.documents.some((d) => d.includes(text))) return Promise.resolve();
    return new Promise((ok) => this.embedded.push({ text, ok }));
  }

  constructor(
    readonly identity: string,
    private readonly salt: number,
  ) {}

  async embed(texts: string[], kind: 'query' | 'document'): Promise<Float32Array[]> {
    if (kind === 'document') {
      this.documentCalls++;
      this.documents.push(...texts);
      this.embedded = this.embedded.filter((w) => !(texts.some((t) => t.includes(w.text)) && (w.ok(), true)));
      await this.gate;
    }
    return texts.map((t) => {
      const v = new Float32Array(this.dimension);
      for (const w of t.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
        let h = 2166136261 ^ this.salt;
        for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
        v[(h >>> 0) % this.dimension] += 1;
      }
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  }
}

const md = (title: string, n: number): string =>
  `# ${title}\n\n` + Array.from({ length: n }, (_, i) => `## Part ${i}\n\nThe ${title.toLowerCase()} sails past island ${i} with whales and harpoons aboard.`).join('\n\n');

const CORPUS = [
  { id: 'pequod', text: md('Pequod', 12), meta: { title: 'The Pequod' } },
  { id: 'rachel', text: md('Rachel', 9), meta: { title: 'The Rachel' } },
  { id: 'short', text: 'A short note about whales.' },
  { id: 'gone', text: 'This one is deleted before the model changes.' },
];
const ADD = { chunk: true, contextual: true, chunkSize: 300, chunkOverlap: 40 };
const DENSE: RetrieveParams = { query: 'whales and harpoons near island 7', k: 20, mode: 'dense', includeVectors: true, includeText: false };

/** A store written by model v1: two segments (two adds) and a tombstoned document. */
async function writtenWithV1(): Promise<MemoryStore> {
  const store = new MemoryStore();
  const engine = new Engine({ store, embedder: new FakeEmbedder('fake/v1', 1) });
  await engine.open();
  await engine.add(CORPUS.slice(0, 2), ADD);
  await engine.add(CORPUS.slice(2), ADD);
  await engine.delete(['gone']);
  return store;
}

/** Opens an engine on `store` with model v2, whose embedding waits until `release()` is called. */
async function openWithGatedV2(store: MemoryStore): Promise<{ engine: Engine; v2: FakeEmbedder; release: () => void }> {
  const v2 = new FakeEmbedder('fake/v2', 2);
  let release!: () => void;
  v2.gate = new Promise((ok) => (release = ok));
  const engine = new Engine({ store, embedder: v2 });
  await engine.open();
  return { engine, v2, release };
}

describe('re-embedding on model identity change (§15.7)', () => {
  it('re-embeds stale segments in the background with the index-time text; a later open with the same model re-embeds nothing', async () => {
    const store = await writtenWithV1();
    const { engine, v2, release } = await openWithGatedV2(store);
    expect(engine.warnings.some((w) => w.includes("'fake/v1'") && w.includes('re-embedded'))).toBe(true);

    // Before the pass finishes: dense queries work, sparse too, and the skipped chunks are noted.
    const before = await search(engine, DENSE);
    expect(before.hits).toEqual([]);
    expect(before.usage?.notes?.some((n) => n.includes("no vectors from embedder 'fake/v2'"))).toBe(true);
    expect(ids(await search(engine, { query: 'harpoons', k: 3, mode: 'sparse' }))).toHaveLength(3);
    const pinned = before.indexVersion!;

    release();
    expect(await engine.whenReembedded()).toBe(2);
    const loaded = (await store.load())!;
    expect(loaded.segments).toHaveLength(2);
    for (const seg of loaded.segments) expect((seg.dense ?? seg.denseApart)?.identity).toBe('fake/v2');

    // The vectors are exactly those a fresh index built with v2 has: same texts, same context.
    const fresh = new Engine({ store: new MemoryStore(), embedder: new FakeEmbedder('fake/v2', 2) });
    await fresh.open();
    await fresh.add(CORPUS.slice(0, 2), ADD);
    await fresh.add(CORPUS.slice(2), ADD);
    await fresh.delete(['gone']);
    // Scores too, with the fine rescoring on: the pass writes each live chunk's fine codes with its
    // segment's vectors, as `add` does when it embeds at once.
    expect(denseTuning.refine).toBe(true);
    const after = await search(engine, DENSE);
    const expected = await search(fresh, DENSE);
    expect(after.usage?.notes).toBeUndefined();
    expect(after.hits.length).toBeGreaterThan(5);
    expect(after.hits.map((h) => [h.id, h.score, h.vector])).toEqual(expected.hits.map((h) => [h.id, h.score, h.vector]));
    expect(v2.documents.every((t) => !t.includes('deleted before'))).toBe(true); // dead chunks are not embedded
    // A re-embed is a new version; the older one stays pinnable.
    expect(Number(after.indexVersion)).toBe(Number(pinned) + 2);
    expect((await search(engine, { ...DENSE, indexVersion: pinned })).hits).toEqual([]);

    // Another open with the same identity finds nothing to do.
    const same = new FakeEmbedder('fake/v2', 2);
    const third = new Engine({ store, embedder: same });
    await third.open();
    expect(await third.whenReembedded()).toBe(0);
    expect(same.documentCalls).toBe(0);
    expect((await search(third, DENSE)).hits.map((h) => h.id)).toEqual(expected.hits.map((h) => h.id));
  });

  it('segments written without an embedder get vectors when one is configured', async () => {
    const store = new MemoryStore();
    const plain = new Engine({ store });
    await plain.open();
    await plain.add([{ id: 'a', text: 'whales in the sea' }, { id: 'b', text: 'a desert without water' }]);
    const e = new FakeEmbedder('fake/v1', 1);
    const engine = new Engine({ store, embedder: e });
    await engine.open();
    expect(await engine.whenReembedded()).toBe(1);
    expect(e.documents).toEqual(['whales in the sea', 'a desert without water']);
    expect(ids(await search(engine, { query: 'whales sea', k: 1, mode: 'dense' }))).toEqual(['a']);
  });

  it('writes during the pass are kept: an upsert of a document being re-embedded wins, nothing is lost', async () => {
    const store = await writtenWithV1();
    const { engine, v2, release } = await openWithGatedV2(store);
    const write = engine.add([{ id: 'short', text: 'rewritten: a note about submarines' }]); // embeds too, waits on the gate
    await v2.sees('submarines');
    release();
    await write;
    await engine.whenReembedded();
    const loaded = (await store.load())!;
    for (const seg of loaded.segments) expect((seg.dense ?? seg.denseApart)?.identity).toBe('fake/v2');
    const top = (await search(engine, { query: 'rewritten: a note about submarines', k: 1, mode: 'dense' })).hits[0];
    expect([top.id, top.score]).toEqual(['short', expect.closeTo(1, 5)]);
    const texts = (await search(engine, { query: 'note', k: 50, mode: 'sparse', includeText: true })).hits.map((h) => h.text);
    expect(texts).not.toContain('A short note about whales.');
    expect((await engine.documents()).total).toBe(3);
    const cold = new Engine({ store, embedder: new FakeEmbedder('fake/v2', 2) });
    await cold.open();
    expect(await cold.whenReembedded()).toBe(0);
    expect(cold.stats()).toEqual(engine.stats());
  });

  it('two engines opening with the new model over one store: only one re-embeds', async () => {
    const store = await writtenWithV1();
    const member = createCoordinationHub();
    const [e1, e2] = [new FakeEmbedder('fake/v2', 2), new FakeEmbedder('fake/v2', 2)];
    const engines = [e1, e2].map((embedder) => new Engine({ store, embedder, coordination: member() }));
    await Promise.all(engines.map((e) => e.open()));
    const counts = await Promise.all(engines.map((e) => e.whenReembedded()));
    expect(counts.sort()).toEqual([0, 2]);
    const live = (await search(engines[0], { query: 'whales harpoons note sails', k: 1000, mode: 'sparse' })).hits.length;
    expect(e1.documents.length + e2.documents.length).toBe(live);
    for (const e of engines) expect((await search(e, DENSE)).usage?.notes).toBeUndefined();
  });

  it('a failing embedder stops the pass with a warning; queries keep working', async () => {
    const store = await writtenWithV1();
    const broken: Embedder = {
      identity: 'fake/broken',
      dimension: 32,
      normalized: true,
      embed: async (texts, kind) => {
        if (kind === 'document') throw new Error('model failed to load');
        return texts.map(() => new Float32Array(32));
      },
    };
    const engine = new Engine({ store, embedder: broken });
    await engine.open();
    await expect(engine.whenReembedded()).rejects.toThrow('model failed to load');
    expect(engine.warnings.at(-1)).toContain('re-embedding stopped: model failed to load');
    expect(ids(await search(engine, { query: 'harpoons', k: 2, mode: 'sparse' }))).toHaveLength(2);
  });

  it('a pass that stopped is tried again by a write after a back-off, so no segment stays invisible to dense search', async () => {
    const store = await writtenWithV1();
    let failing = true;
    let clock = 1_000_000;
    const flaky = new FakeEmbedder('fake/v2', 2);
    const embedder: Embedder = {
      identity: flaky.identity,
      dimension: flaky.dimension,
      normalized: true,
      embed: async (texts, kind) => {
        if (kind === 'document' && failing) throw new Error('transient failure');
        return flaky.embed(texts, kind);
      },
    };
    const engine = new Engine({ store, embedder, now: () => clock });
    await engine.open();
    await expect(engine.whenReembedded()).rejects.toThrow('transient failure');
    expect(ids(await search(engine, DENSE))).toEqual([]);
    failing = false;
    const documentCalls = () => flaky.documents.length;
    await engine.add([{ id: 'new', text: 'A new note about harpoons.' }]);
    expect(await engine.whenReembedded()).toBe(0); // backing off: this write does not retry
    const before = documentCalls();
    clock += 1000;
    await engine.add([{ id: 'newer', text: 'Another note about harpoons.' }]);
    expect(await engine.whenReembedded()).toBe(2);
    expect(documentCalls()).toBeGreaterThan(before + 1);
    const docs = new Set(ids(await search(engine, { ...DENSE, k: 100 })).map((id) => id.split('#')[0]));
    expect([...docs].sort()).toEqual(['new', 'newer', 'pequod', 'rachel', 'short']);
  });

  it('a segment the model keeps failing on is not re-embedded on every write', async () => {
    const store = await writtenWithV1();
    let calls = 0;
    const broken: Embedder = {
      identity: 'fake/broken',
      dimension: 32,
      normalized: true,
      embed: async (texts, kind) => {
        if (kind === 'document' && texts.some((t) => t.includes('island'))) {
          calls++;
          throw new Error('cannot embed this text');
        }
        return texts.map(() => new Float32Array(32).fill(1 / Math.sqrt(32)));
      },
    };
    const engine = new Engine({ store, embedder: broken, now: () => 5_000 });
    await engine.open();
    await expect(engine.whenReembedded()).rejects.toThrow('cannot embed');
    for (let i = 0; i < 10; i++) await engine.add([{ id: `n${i}`, text: 'a plain note' }]);
    expect(calls).toBe(1);
    expect(engine.warnings.filter((w) => w.startsWith('re-embedding stopped'))).toHaveLength(1);
  });
});

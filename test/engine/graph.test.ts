import { describe, expect, it } from 'vitest';
import { graphCapability } from '../../src/engine/graph/plan.ts';
import { validateGraph } from '../../src/protocol/validate-graph.ts';
import { inProcessCapabilities } from '../../src/server/retrieve-plan.ts';
import type { Capabilities, GraphResult } from '../../src/protocol/types.ts';
import type { Engine } from '../../src/engine/engine.ts';
import { HashEmbedder, makeEngine } from '../support/engine.ts';
import { RcpError } from '../../src/protocol/errors.ts';

async function expectRcpError(p: Promise<unknown>, code: number, data: Record<string, unknown>): Promise<void> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(RcpError);
  expect(e).toMatchObject({ code, data });
}

const caps: Capabilities = { graph: graphCapability() };
/** As a session would: the engine's advertised capabilities (its default mode seeds the walks) plus `graph`. */
const graph = async (engine: Engine, params: Record<string, unknown>): Promise<GraphResult> =>
  engine.graph(validateGraph(params, { ...inProcessCapabilities(engine), graph: graphCapability() }));

/** Two topics, each over several multi-passage documents, plus a bridge document mentioning both. */
const WHALES = ['whale harpoon ship sea voyage', 'harpoon whale boat crew sea', 'ship sea whale oil voyage', 'crew boat harpoon whale captain'];
const LAWS = ['congress law union tax bill', 'senate congress vote law bill', 'tax union congress budget vote', 'law senate bill budget union'];

async function corpus(): Promise<Engine> {
  const { engine } = await makeEngine({ embedder: new HashEmbedder() });
  const docs = [
    ...WHALES.map((t, i) => ({ id: `whale${i}`, text: `${t}. ${t} quahog. ${t}.` })),
    ...LAWS.map((t, i) => ({ id: `law${i}`, text: `${t}. ${t} filibuster. ${t}.` })),
  ];
  // chunkSize small so every document is several passages (adjacency edges).
  await engine.add(docs, { chunk: true, chunkSize: 40, chunkOverlap: 0 });
  return engine;
}

describe('graph neighbors', () => {
  it('returns weighted edges from a passage to its dense neighbours, adjacent passages and rare-term sharers', async () => {
    const engine = await corpus();
    const r = await graph(engine, { op: 'neighbors', seedIds: ['whale0#0'], k: 20 });
    expect(r.nodes![0]).toMatchObject({ id: 'whale0#0', score: 1, 'x-inpage-seed': true });
    const ids = r.nodes!.map((n) => n.id);
    expect(ids).toContain('whale0#1'); // adjacent passage of the same document
    const kinds = new Set(r.edges!.flatMap((e) => e['x-inpage-kinds'] as string[]));
    expect(kinds).toContain('adjacent');
    expect(kinds).toContain('dense');
    for (const e of r.edges!) {
      expect(e.weight).toBeGreaterThan(0);
      expect(ids).toContain(e.src);
      expect(ids).toContain(e.dst);
    }
    // Dense neighbours of a whale passage are whale passages, not congress ones.
    const dense = r.edges!.filter((e) => (e['x-inpage-kinds'] as string[]).includes('dense')).map((e) => (e.src === 'whale0#0' ? e.dst : e.src));
    expect(dense.length).toBeGreaterThan(0);
    expect(dense.every((id) => id.startsWith('whale'))).toBe(true);
    expect(r.indexVersion).toBe(engine.indexVersion);
  });

  it('expands hops and caps neighbours per node with k', async () => {
    // No embedder, words never shared: the only edges join consecutive passages (a chain).
    const { engine } = await makeEngine();
    const text = ['alpha bravo charlie', 'delta echo foxtrot', 'golf hotel india', 'juliet kilo lima', 'mike november oscar'].join('. ');
    await engine.add([{ id: 'chain', text }], { chunk: true, chunkSize: 20, chunkOverlap: 0 });
    const at = async (hops: number, k = 5) => (await graph(engine, { op: 'neighbors', seedIds: ['chain#0'], hops, k })).nodes!.map((n) => n.id);
    expect(await at(1)).toEqual(['chain#0', 'chain#1']);
    expect(await at(2)).toEqual(['chain#0', 'chain#1', 'chain#2']);
    expect(await at(3)).toEqual(['chain#0', 'chain#1', 'chain#2', 'chain#3']);
    const mid = await graph(engine, { op: 'neighbors', seedIds: ['chain#2'], hops: 1, k: 1 });
    expect(mid.nodes!.length).toBe(2); // k = 1 neighbour per node
    const r = await graph(engine, { op: 'neighbors', seedIds: ['chain#0'], hops: 3, k: 5 });
    expect(r.nodes!.map((n) => n.score)).toEqual([1, 0.5, 0.25, 0.125]); // products of the adjacency weight
    expect(r.edges!.map((e) => [e.src, e.dst])).toEqual([['chain#0', 'chain#1'], ['chain#1', 'chain#2'], ['chain#2', 'chain#3']]);
  });

  it('takes a document id as a seed standing for all its passages', async () => {
    const engine = await corpus();
    const r = await graph(engine, { op: 'neighbors', seedIds: ['whale2'], k: 1 });
    expect(r.nodes![0]).toMatchObject({ id: 'whale2', 'x-inpage-kind': 'document' });
    expect(r.edges!.filter((e) => e.src === 'whale2').map((e) => e.dst)).toEqual(['whale2#0', 'whale2#1', 'whale2#2']);
  });

  it('names an unknown seed id in a -32602', async () => {
    const engine = await corpus();
    await expectRcpError(graph(engine, { op: 'neighbors', seedIds: ['whale0#0', 'nope#7'] }), -32602, { field: 'seedIds[1]' });
  });

  it('never lists a deleted or rewritten passage', async () => {
    const engine = await corpus();
    await graph(engine, { op: 'neighbors', seedIds: ['whale0#0'] });
    await engine.delete(['whale1']);
    await engine.add([{ id: 'whale2', text: 'congress senate filibuster vote' }]);
    const r = await graph(engine, { op: 'neighbors', seedIds: ['whale0#0', 'whale3#0'], k: 50, hops: 3 });
    const ids = r.nodes!.map((n) => n.id);
    expect(ids.some((id) => id.startsWith('whale1'))).toBe(false);
    expect(ids.some((id) => id.startsWith('whale2#'))).toBe(false); // its old passages are gone (it is one passage now)
    await expectRcpError(graph(engine, { op: 'neighbors', seedIds: ['whale1#0'] }), -32602, { field: 'seedIds[0]' });
  });
});

describe('graph local', () => {
  it('walks from the query hits and gives each hit its path from a seed', async () => {
    const engine = await corpus();
    const r = await graph(engine, { op: 'local', query: 'harpoon captain', k: 6 });
    expect(r.hits!.length).toBe(6);
    const scores = r.hits!.map((h) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(r.hits!.every((h) => String(h.id).startsWith('whale'))).toBe(true);
    for (const h of r.hits!) {
      const path = h.provenance!.path!;
      expect(path[path.length - 1]).toBe(h.id);
      expect(h.provenance!.edges!.length).toBe(path.length - 1);
      expect(typeof h.text).toBe('string');
      expect(h.trust?.level).toBe('untrusted');
    }
  });

  it('a write that commits while a walk reads its texts is not an error: the walk runs again on the new version', async () => {
    const { engine, store } = await makeEngine({ embedder: new HashEmbedder() });
    await engine.add(WHALES.map((t, i) => ({ id: `whale${i}`, text: `${t}. ${t} quahog. ${t}.` })), { chunk: true, chunkSize: 40, chunkOverlap: 0 });
    const before = engine.indexVersion;
    // The first text read of the walk finds every whale document rewritten since its snapshot.
    const read = store.getDocuments.bind(store);
    let rewrites = 0;
    store.getDocuments = async (ids) => {
      if (rewrites++ === 0) await engine.add(WHALES.map((t, i) => ({ id: `whale${i}`, text: `${t} rewritten. ${t} quahog.` })), { chunk: true, chunkSize: 40, chunkOverlap: 0 });
      return read(ids);
    };
    const r = await graph(engine, { op: 'local', query: 'harpoon captain', k: 3 });
    expect(rewrites).toBeGreaterThan(1);
    expect(r.indexVersion).not.toBe(before);
    expect(r.indexVersion).toBe(engine.indexVersion);
    expect(r.hits!.length).toBeGreaterThan(0);
  });

  it('answers with no hits and a note when nothing seeds the walk', async () => {
    const { engine } = await makeEngine(); // sparse only: a word in no passage matches nothing
    await engine.add([{ id: 'a', text: 'whale harpoon' }, { id: 'b', text: 'congress law' }]);
    const r = await graph(engine, { op: 'local', query: 'zzzqqq' });
    expect(r.hits).toEqual([]);
    expect(r.usage?.notes?.join(' ')).toMatch(/no seed/);
  });
});

describe('graph communities and global', () => {
  it('separates the two topics and summarises each extractively', async () => {
    const engine = await corpus();
    const r = await graph(engine, { op: 'communities' });
    const cs = r.communities!;
    expect(cs.length).toBeGreaterThanOrEqual(2);
    for (const c of cs) {
      expect(c.level).toBe(0);
      expect(c.summary).toMatch(/^Extractive summary \(no language model\)/);
      const members = c['x-inpage-members'] as string[];
      // No community mixes the topics.
      expect(new Set(members.map((m) => m.replace(/\d.*$/, ''))).size).toBe(1);
    }
    const whale = cs.find((c) => (c['x-inpage-members'] as string[])[0].startsWith('whale'))!;
    expect(whale['x-inpage-terms']).toEqual(expect.arrayContaining(['whale']));
    expect(r._meta?.levels).toBeGreaterThanOrEqual(1);
    // Deterministic for one index version.
    expect(await graph(engine, { op: 'communities' })).toMatchObject({ communities: cs });
  });

  it('ranks the communities a query falls in', async () => {
    const engine = await corpus();
    const r = await graph(engine, { op: 'global', query: 'senate budget vote' });
    expect(r.summary).toMatch(/^Extractive/);
    expect((r.communities![0]['x-inpage-members'] as string[])[0]).toMatch(/^law/);
    const scores = r.communities!.map((c) => c.score!);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });
});

describe('graph for a viewer (the playground)', () => {
  it('places every passage node in its document, so a viewer opens it there', async () => {
    const engine = await corpus();
    const r = await graph(engine, { op: 'neighbors', seedIds: ['whale1#1'], k: 5, _meta: { 'x-inpage-text': true } });
    expect(r.nodes!.length).toBeGreaterThan(1);
    for (const n of r.nodes!) {
      const whole = (await engine.document(n['x-inpage-doc'] as string))!.text;
      expect(whole.slice(n['x-inpage-start'] as number, n['x-inpage-end'] as number)).toBe(n['x-inpage-text']);
    }
  });

  it('answers one community by id, with its members\' passages, and refuses an id this version lacks', async () => {
    const engine = await corpus();
    const all = (await graph(engine, { op: 'communities' })).communities!;
    const second = all[1];
    const one = await graph(engine, { op: 'communities', _meta: { 'x-inpage-community': second.id, 'x-inpage-text': true } });
    expect(one.communities!.map((c) => c.id)).toEqual([second.id]);
    const [c] = one.communities!;
    // The same community as listed (labels and summary), now with its passages in member order.
    expect(c['x-inpage-terms']).toEqual(second['x-inpage-terms']);
    expect(c.summary).toBe(second.summary);
    const passages = c['x-inpage-passages'] as { id: string; doc: string; start: number; end: number; text: string }[];
    expect(passages.map((p) => p.id)).toEqual(c['x-inpage-members']);
    for (const p of passages) expect((await engine.document(p.doc))!.text.slice(p.start, p.end)).toBe(p.text);
    // Without the text flag, no passages travel.
    expect(all[0]['x-inpage-passages']).toBeUndefined();
    await expectRcpError(graph(engine, { op: 'communities', _meta: { 'x-inpage-community': 'c0.999' } }), -32602, { field: '_meta.x-inpage-community' });
    await expectRcpError(graph(engine, { op: 'communities', _meta: { 'x-inpage-community': 'nonsense' } }), -32602, { field: '_meta.x-inpage-community' });
    expect(() => validateGraph({ op: 'neighbors', seedIds: ['a'], _meta: { 'x-inpage-community': 'c0.0' } }, caps)).toThrow(/communities/);
    expect(() => validateGraph({ op: 'communities', _meta: { 'x-inpage-community': 7 } }, caps)).toThrow(/x-inpage-community/);
  });

  it('tags the map points with their community at a level, as the communities op lists them', async () => {
    const engine = await corpus();
    const m = await engine.corpusMap({ limit: 100, communityLevel: 0 });
    expect(m.points.length).toBeGreaterThan(0);
    expect(m.indexVersion).toBe(engine.indexVersion);
    const cs = (await graph(engine, { op: 'communities', k: 200 })).communities!;
    const known = new Set(cs.map((c) => c.id));
    for (const p of m.points) expect(known.has(p.community!)).toBe(true);
    // Each listed member is tagged with its own community.
    for (const c of cs) for (const id of c['x-inpage-members'] as string[]) {
      const p = m.points.find((x) => x.id === id);
      if (p) expect(p.community).toBe(c.id);
    }
    expect((await engine.corpusMap({ limit: 100 })).points.every((p) => p.community === undefined)).toBe(true);
    await expectRcpError(engine.corpusMap({ limit: 100, communityLevel: 99 }), -32602, { field: 'communityLevel' });
  });
});

describe('graph params', () => {
  it('refuses an op not served with -32005 naming op, and bounds k and hops', () => {
    for (const op of ['drift', 'teleport']) {
      try {
        validateGraph({ op, query: 'x' }, caps);
        throw new Error('accepted');
      } catch (e) {
        expect(e).toMatchObject({ code: -32005, data: { option: 'op' } });
      }
    }
    const v = validateGraph({ op: 'neighbors', seedIds: ['a'], k: 10_000, hops: 9 }, caps);
    expect(v.k).toBe(graphCapability().maxK);
    expect(v.hops).toBe(graphCapability().maxHops);
    expect(v.notes.length).toBe(2);
    expect(() => validateGraph({ op: 'neighbors' }, caps)).toThrow(/seedIds/);
    expect(() => validateGraph({ op: 'global' }, caps)).toThrow(/query/);
    expect(() => validateGraph({ op: 'neighbors', seedIds: Array(51).fill('a') }, caps)).toThrow(/at most 50/);
    expect(() => validateGraph({ op: 'neighbors', seedIds: [3] }, caps)).toThrow(/seedIds\[0\]/);
  });
});

/**
 * The IndexStore contract (src/engine/contracts.ts), as plain async cases with no test framework,
 * so the same cases run under vitest (memory store, fake-indexeddb: test/storage/store-contract.test.ts)
 * and in real Chromium (e2e/store-contract.spec.ts). Each case gets a fresh, empty store.
 */
import type { Change, IndexStore, Manifest, SegmentRecord } from '../../src/engine/contracts.ts';

export interface ContractCase {
  name: string;
  run(fresh: () => Promise<IndexStore>): Promise<void>;
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`IndexStore contract: ${what}`);
}
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

const manifest = (version: number, segmentIds: number[], extra: Partial<Manifest> = {}): Manifest => ({
  version, nextChunkKey: 10, nextSegmentId: 10, segmentIds, tombstones: [], ...extra,
});
const segment = (id: number, keys: number[], withVectors = false): SegmentRecord => ({
  id,
  chunkKeys: Uint32Array.from(keys),
  lexical: { terms: ['whale'], postings: new Float32Array([1, 2]) },
  ...(withVectors ? { dense: { identity: 'm', dimension: 2, vectors: new Float32Array(keys.length * 2).fill(0.5) } } : {}),
});
const change = (m: Manifest, parts: Partial<Change> = {}): Change => ({
  putDocuments: [], deleteDocumentIds: [], putChunks: [], deleteChunkKeys: [], putSegments: [], deleteSegmentIds: [], manifest: m, ...parts,
});
const first = (): Change =>
  change(manifest(1, [1]), {
    putDocuments: [
      { id: 'a', text: 'alpha whale', meta: { year: 1851 }, chunkKeys: [0], version: 1 },
      { id: 'b', text: 'beta', meta: {}, chunkKeys: [1], version: 1 },
    ],
    putChunks: [
      { key: 0, docId: 'a', index: 0, start: 0, end: 11 },
      { key: 1, docId: 'b', index: 0, start: 0, end: 4, context: 'B' },
    ],
    putSegments: [segment(1, [0, 1], true)],
    idempotency: { key: 'req-1', result: { ids: ['a', 'b'] } },
  });

/** A loaded segment's vectors: inline, or (`denseApart`) read with `loadVectors`. */
async function vectorsOf(s: IndexStore, seg: SegmentRecord): Promise<SegmentRecord['dense']> {
  if (seg.dense) return seg.dense;
  if (!seg.denseApart) return undefined;
  check(typeof s.loadVectors === 'function', 'a store that leaves vectors out of load() implements loadVectors');
  return (await s.loadVectors!([seg.id])).get(seg.id);
}

export const STORE_CONTRACT: readonly ContractCase[] = [
  {
    name: 'an empty store loads nothing',
    async run(fresh) {
      const s = await fresh();
      check((await s.load()) === undefined, 'load() of an empty store is undefined');
      check((await s.readManifest()) === undefined, 'readManifest() of an empty store is undefined');
      check(same(await s.getDocuments(['x']), [undefined]) || (await s.getDocuments(['x']))[0] === undefined, 'a missing document is undefined');
      check((await s.getIdempotent('k')) === undefined, 'a missing idempotency key is undefined');
    },
  },
  {
    name: 'a commit is read back: manifest, segments with typed arrays, document meta without text, documents, chunks',
    async run(fresh) {
      const s = await fresh();
      await s.commit(first());
      const loaded = await s.load();
      check(loaded !== undefined && loaded.manifest.version === 1, 'load() returns the committed manifest');
      check(same((await s.readManifest())?.segmentIds, [1]), 'readManifest() returns the committed manifest');
      const seg = loaded!.segments[0];
      const dense = await vectorsOf(s, seg);
      check(loaded!.segments.length === 1 && seg.chunkKeys instanceof Uint32Array && (dense && 'vectors' in dense ? dense.vectors : undefined) instanceof Float32Array, 'segments keep their typed arrays');
      check(same(Array.from(seg.chunkKeys), [0, 1]), 'segment chunk keys round-trip');
      const docs = [...loaded!.documents!].sort((x, y) => (x.id < y.id ? -1 : 1));
      check(same(docs, [
        { id: 'a', meta: { year: 1851 }, chunkKeys: [0], version: 1 },
        { id: 'b', meta: {}, chunkKeys: [1], version: 1 },
      ]), 'load() lists document meta, chunk keys and version');
      check(docs.every((d) => !('text' in d)), 'load() reads no document text');
      const [b, missing, a] = await s.getDocuments(['b', 'zz', 'a']);
      check(a?.text === 'alpha whale' && b?.text === 'beta' && missing === undefined, 'getDocuments() answers in the order asked, undefined when absent');
      const chunks = await s.getChunks([1, 0, 99]);
      check(chunks[0]?.context === 'B' && chunks[1]?.end === 11 && chunks[2] === undefined, 'getChunks() answers in the order asked');
      check(same(await s.getIdempotent('req-1'), { ids: ['a', 'b'] }), 'the idempotency result is kept');
    },
  },
  {
    name: 'load() returns exactly the segments the manifest lists',
    async run(fresh) {
      const s = await fresh();
      await s.commit(first());
      await s.commit(change(manifest(2, [2]), { putSegments: [segment(2, [0]), segment(3, [1])], deleteSegmentIds: [1] }));
      const ids = (await s.load())!.segments.map((x) => x.id).sort();
      check(same(ids, [2]), `segments ${JSON.stringify(ids)} instead of [2] (only the listed ones)`);
    },
  },
  {
    name: 'deletes and upserts apply with the commit',
    async run(fresh) {
      const s = await fresh();
      await s.commit(first());
      await s.commit(change(manifest(2, [1], { tombstones: [1] }), {
        deleteDocumentIds: ['b'], deleteChunkKeys: [1],
        putDocuments: [{ id: 'a', text: 'alpha rewritten', meta: { year: 1900 }, chunkKeys: [0], version: 2 }],
      }));
      const loaded = await s.load();
      check(same(loaded!.documents!.map((d) => d.id), ['a']) && loaded!.documents![0].version === 2, 'the deleted document is gone, the upsert is current');
      check((await s.getDocuments(['a']))[0]?.text === 'alpha rewritten', 'the upserted text is read');
      check((await s.getChunks([1]))[0] === undefined, 'a deleted chunk is gone');
      check(same(loaded!.manifest.tombstones, [1]), 'tombstones round-trip');
    },
  },
  {
    name: 'returned values are copies: mutating them changes nothing stored',
    async run(fresh) {
      const s = await fresh();
      const c = first();
      await s.commit(c);
      c.putDocuments[0].meta.year = 0; // the caller's object after commit
      const [doc] = await s.getDocuments(['a']);
      doc!.text = 'changed';
      (await s.load())!.manifest.segmentIds.push(99);
      check((await s.getDocuments(['a']))[0]?.text === 'alpha whale', 'a returned document is a copy');
      check(same((await s.load())!.documents!.find((d) => d.id === 'a')!.meta, { year: 1851 }), 'a committed change is a copy');
      check(same((await s.readManifest())!.segmentIds, [1]), 'a returned manifest is a copy');
    },
  },
  {
    name: 'segment vectors follow their segment: read back, replaced, deleted and cleared with it',
    async run(fresh) {
      const s = await fresh();
      await s.commit(first());
      const vec = async (id: number) => {
        const seg = (await s.load())!.segments.find((x) => x.id === id);
        return seg && (await vectorsOf(s, seg));
      };
      const v1 = await vec(1);
      check(v1 !== undefined && 'vectors' in v1 && same(Array.from(v1.vectors), [0.5, 0.5, 0.5, 0.5]), 'the vectors of a segment are read back');
      // A merge: segment 1 replaced by segment 2 with other vectors, and segment 3 without any.
      const s2 = segment(2, [0, 1], true);
      (s2.dense as { vectors: Float32Array }).vectors.fill(0.25);
      await s.commit(change(manifest(2, [2, 3]), { putSegments: [s2, segment(3, [5])], deleteSegmentIds: [1] }));
      const v2 = await vec(2);
      check(v2 !== undefined && 'vectors' in v2 && v2.vectors[0] === 0.25, 'the new segment has its own vectors');
      check((await vec(3)) === undefined, 'a segment written without vectors has none');
      if (s.loadVectors) check((await s.loadVectors([1])).size === 0, 'the vectors of the deleted segment are gone');
      await s.clear(manifest(3, []));
      if (s.loadVectors) check((await s.loadVectors([2])).size === 0, 'clear() removes the vectors');
    },
  },
  {
    name: 'clear(next) removes everything and installs the next manifest in one step',
    async run(fresh) {
      const s = await fresh();
      await s.commit(first());
      await s.clear(manifest(5, [], { clearedAt: 5 }));
      const loaded = await s.load();
      check(loaded?.manifest.version === 5 && loaded.manifest.clearedAt === 5, 'the next manifest is current');
      check(loaded!.segments.length === 0 && loaded!.documents!.length === 0, 'no segment or document survives');
      check((await s.getDocuments(['a']))[0] === undefined && (await s.getChunks([0]))[0] === undefined, 'texts and chunks are gone');
      check((await s.getIdempotent('req-1')) === undefined, 'idempotency results are gone');
      await s.clear();
      check((await s.load()) === undefined, 'clear() without a manifest leaves an empty store');
    },
  },
  {
    name: 'feedback: read-modify-write per document, deleted with its document, cleared with the store',
    async run(fresh) {
      const s = await fresh();
      if (!s.updateFeedback || !s.getFeedback) return; // a store without feedback serves no `feedback`
      await s.commit(first());
      const hit = (helpful: number) => ({ helpful, unhelpful: 0, used: 0, cited: 0, rewardSum: 0, rewards: 0, poisonSuspected: 0, injectionSuspected: 0, last: 1 });
      const bump = (docId: string) => ({ docId, apply: (old?: { docId: string; hits: Record<string, ReturnType<typeof hit>> }) => ({ docId, hits: { [docId]: hit((old?.hits[docId]?.helpful ?? 0) + 1) } }) });
      await Promise.all([s.updateFeedback([bump('a'), bump('b')]), s.updateFeedback([bump('a')])]);
      const [a, b, none] = await s.getFeedback(['a', 'b', 'zz']);
      check(a?.hits.a.helpful === 2 && b?.hits.b.helpful === 1 && none === undefined, 'concurrent updates both count');
      let threw = false;
      await s.updateFeedback([bump('b'), { docId: 'a', apply: () => { throw new Error('boom'); } }]).catch(() => void (threw = true));
      check(threw && (await s.getFeedback(['b']))[0]?.hits.b.helpful === 1, 'an update that throws changes nothing');
      await s.commit(change(manifest(2, [1]), { deleteDocumentIds: ['b'] }));
      check((await s.getFeedback(['b']))[0] === undefined && (await s.getFeedback(['a']))[0] !== undefined, 'a deleted document takes its feedback along');
      await s.updateFeedback([{ docId: 'a', apply: () => undefined }]);
      check((await s.getFeedback(['a']))[0] === undefined, 'an update returning undefined deletes the record');
      await s.updateFeedback([bump('a')]);
      await s.clear();
      check((await s.getFeedback(['a']))[0] === undefined, 'clear() removes feedback');
    },
  },
];

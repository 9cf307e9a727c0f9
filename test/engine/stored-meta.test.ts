/**
 * Issue 10 (found by the fuzzer): a stored document whose `meta` is null (written by an older
 * build into a profile that is still around) made `x-inpage/documents`, `x-inpage/document`,
 * facets and every filtered `retrieve` fail with -32603 "Cannot read properties of null". Meta
 * read from the store is normalised to an object; new writes can never store null.
 *
 * Root cause (reproduced on the build the fuzzer first ran against): a `meta` nested ~1,700
 * levels deep passed the boundary, and Chromium's `structuredClone` in the write path returned
 * null for it instead of throwing (its deserializer ran out of stack), so null was stored. The
 * server's depth limit (128, limits.ts) now refuses such params with -32602; the engine checks the
 * same limit for in-process callers and refuses a clone that is not an object.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import type { SegmentRecord, StoredDocument } from '../../src/engine/contracts.ts';
import { validateIndexAdd } from '../../src/protocol/validate.ts';
import type { MemoryStore } from '../../src/storage/memory-store.ts';
import { ids, makeEngine, search } from '../support/engine.ts';

/** What an old profile holds: the same documents, with `meta: null` on disk (and segments without document tables). */
function nullMetaOnDisk(store: MemoryStore, id: string): void {
  const inside = store as unknown as { documents: Map<string, StoredDocument>; segments: Map<number, SegmentRecord> };
  (inside.documents.get(id) as { meta: unknown }).meta = null;
  for (const seg of inside.segments.values()) delete seg.docTable;
}

describe('stored meta that is null (old profiles)', () => {
  it('is read as {}: listing, detail, facets and filtered retrieve all answer', async () => {
    const { engine, store } = await makeEngine();
    await engine.add([
      { id: 'old', text: 'the white whale', meta: { year: 1851 } },
      { id: 'new', text: 'a white ship', meta: { year: 1900 } },
    ]);
    nullMetaOnDisk(store, 'old');
    const cold = new Engine({ store });
    await cold.open();
    const page = await cold.documents(0, 10);
    expect(page.documents.find((d) => d.id === 'old')?.meta).toEqual({});
    expect((await cold.document('old'))?.meta).toEqual({});
    expect((await cold.facets('year', 10)).values.map((v) => v.value)).toEqual([1900]);
    expect(ids(await search(cold, { query: 'white', k: 5, filter: { field: 'year', op: 'gte', value: 1800 } }))).toEqual(['new']);
    const all = await search(cold, { query: 'white', k: 5 });
    expect(all.hits.find((h) => h.id === 'old')?.meta).toBeUndefined();
  });
});

describe('index/add never stores meta null', () => {
  it('treats meta: null as absent (§4.6) and stores {}', async () => {
    const params = validateIndexAdd({ documents: [{ id: 'n', text: 'no meta here', meta: null }] }, {});
    expect(params.documents[0].meta).toBeUndefined();
    const { engine } = await makeEngine();
    await engine.add(params.documents);
    expect((await engine.documents(0, 10)).documents[0].meta).toEqual({});
    expect((await engine.document('n'))?.meta).toEqual({});
  });

  it('refuses a meta that is not an object with -32602 at documents[i].meta', () => {
    for (const meta of [[], 'x', 5, true]) {
      expect(() => validateIndexAdd({ documents: [{ id: 'n', text: 't', meta }] }, {})).toThrow(expect.objectContaining({ code: -32602, data: expect.objectContaining({ field: 'documents[0].meta' }) }));
    }
  });
});

describe('a meta the write path cannot copy is refused, never stored as null', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('in-process callers get the boundary depth limit: -32602 at documents[i].meta', async () => {
    const { engine } = await makeEngine();
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 1700; i++) deep = { a: deep };
    await expect(engine.add([{ id: 'ok', text: 'fine' }, { id: 'deep', text: 'x', meta: deep }])).rejects.toMatchObject({ code: -32602, data: { field: 'documents[1].meta' } });
    expect((await engine.documents(0, 10)).total).toBe(0); // nothing of the batch was written
  });

  it("a clone that comes back as null (Chromium's structuredClone on a too-deep value) is -32602, not a stored null", async () => {
    const { engine } = await makeEngine();
    vi.stubGlobal('structuredClone', () => null);
    await expect(engine.add([{ id: 'm', text: 'x', meta: { year: 1 } }])).rejects.toMatchObject({ code: -32602, data: { field: 'documents', detail: expect.stringContaining("'m'") } });
    vi.unstubAllGlobals();
    expect((await engine.documents(0, 10)).total).toBe(0);
  });
});

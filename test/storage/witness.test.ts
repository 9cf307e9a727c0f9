import { describe, expect, it } from 'vitest';
import type { IndexSummary } from '../../src/protocol/control.ts';
import { describeLoss, findLoss, memoryWitnessFile, parseWitness, Witness, type WitnessRecord } from '../../src/storage/witness.ts';

const held: IndexSummary = { storeId: 'aaa', indexVersion: 40, documents: 9300, chunks: 9300, model: 'minilm@sha256:1' };
const record = (s: IndexSummary, extra: Partial<WitnessRecord> = {}): WitnessRecord => ({ format: 1, ...s, writtenAt: '2026-12-01T00:00:00.000Z', ...extra });
const found = (s: Partial<IndexSummary>): IndexSummary => ({ ...held, ...s });
const stored = { storedId: true, missing: [] };

describe('findLoss: the store at open against the record', () => {
  it('a discarded database (no manifest) is a loss, with the counts that were there', () => {
    const loss = findLoss(record(held), { storeId: 'fresh', indexVersion: 0, documents: 0, chunks: 0 }, { storedId: false, missing: [] });
    expect(loss?.expected).toMatchObject({ documents: 9300, chunks: 9300, indexVersion: 40 });
    expect(loss?.reason).toMatch(/empty/);
    expect(describeLoss(loss!)).toMatch(/index lost: it held 9,300 documents \(9,300 passages\) at version 40, it now holds 0 documents/);
  });

  it('a recreated database (another storeId) is a loss even when it has grown past the recorded version', () => {
    const loss = findLoss(record(held), found({ storeId: 'bbb', indexVersion: 55, documents: 4500, chunks: 4500 }), stored);
    expect(loss?.reason).toMatch(/recreated/);
  });

  it('a database that went back to an older version is a loss', () => {
    expect(findLoss(record(held), found({ indexVersion: 39 }), stored)?.reason).toMatch(/went back from version 40 to 39/);
  });

  it('at the recorded version, fewer passages or documents is a loss; more versions since is normal', () => {
    expect(findLoss(record(held), found({ chunks: 9000 }), stored)?.reason).toMatch(/fewer/);
    expect(findLoss(record(held), found({ documents: 9299 }), stored)?.reason).toMatch(/fewer/);
    expect(findLoss(record(held), found({}), stored)).toBeUndefined();
    // Deletes after the record was written: a later version may hold less.
    expect(findLoss(record(held), found({ indexVersion: 41, documents: 10, chunks: 10 }), stored)).toBeUndefined();
  });

  it('an unsaved storeId (a manifest from before ids existed) is not compared', () => {
    expect(findLoss(record(held), found({ storeId: 'other' }), { storedId: false, missing: [] })).toBeUndefined();
  });

  it('segments the manifest lists but the store lacks are a loss without any record', () => {
    const loss = findLoss(undefined, found({}), { storedId: true, missing: ['segment 7 listed in the manifest is missing from the store'] });
    expect(loss?.reason).toMatch(/segment 7/);
  });

  it("the browser's own data-loss report counts when there is no record, or alongside another reason", () => {
    const empty = { storeId: 'x', indexVersion: 0, documents: 0, chunks: 0 };
    expect(findLoss(undefined, empty, { storedId: false, missing: [], browserDataLoss: 'total: corrupt' })?.browser).toBe('total: corrupt');
    expect(findLoss(record(held), empty, { storedId: false, missing: [], browserDataLoss: 'total: corrupt' })?.reason).toMatch(/empty.*browser reported data loss/);
  });

  it('nothing recorded as held means nothing can be lost', () => {
    expect(findLoss(record({ ...held, documents: 0, chunks: 0 }), { storeId: 'x', indexVersion: 0, documents: 0, chunks: 0 }, { storedId: false, missing: [] })).toBeUndefined();
    expect(findLoss(undefined, { storeId: 'x', indexVersion: 0, documents: 0, chunks: 0 }, { storedId: false, missing: [] })).toBeUndefined();
  });
});

describe('parseWitness', () => {
  it('reads its own records and calls a truncated or foreign file unreadable, never guessing', () => {
    const text = JSON.stringify(record(held));
    expect(parseWitness(text).record?.documents).toBe(9300);
    expect(parseWitness(text.slice(0, 30)).unreadable).toMatch(/not JSON/);
    expect(parseWitness('{"format":2}').unreadable).toMatch(/format 1/);
    expect(parseWitness(JSON.stringify({ ...record(held), documents: -1 })).unreadable).toBeDefined();
    expect(parseWitness(undefined)).toEqual({});
  });
});

describe('Witness', () => {
  it('reads the record before any note can replace it, so a commit right after open cannot hide a loss', async () => {
    const file = memoryWitnessFile(JSON.stringify(record(held)));
    const w = new Witness(file);
    const empty = { storeId: 'new', indexVersion: 0, documents: 0, chunks: 0 };
    w.note({ ...empty, indexVersion: 1, documents: 150, chunks: 150 }); // a commit raced the check
    const loss = await w.check(empty, { storedId: false, missing: [] });
    expect(loss?.expected.documents).toBe(9300);
    await w.flushed();
    // The loss stays in the record (reported at every open) until dismissed.
    const after = parseWitness(file.text).record!;
    expect(after.lost?.expected.documents).toBe(9300);
    const again = new Witness(file);
    expect(await again.check({ storeId: 'new', indexVersion: 1, documents: 150, chunks: 150 }, stored)).toEqual(loss);
    again.dismiss({ storeId: 'new', indexVersion: 1, documents: 150, chunks: 150 });
    await again.flushed();
    expect(parseWitness(file.text).record?.lost).toBeUndefined();
    expect(parseWitness(file.text).record?.documents).toBe(150);
  });

  it('coalesces notes: one write in flight, the newest record wins', async () => {
    const file = memoryWitnessFile();
    const w = new Witness(file);
    for (let v = 1; v <= 50; v++) w.note({ ...held, indexVersion: v });
    await w.flushed();
    expect(parseWitness(file.text).record?.indexVersion).toBe(50);
    expect(file.writes).toBeLessThanOrEqual(2);
  });

  it('a failed write is counted and the next note tries again; a failed read is unreadable, not a loss', async () => {
    let fail = true;
    const file = memoryWitnessFile();
    const flaky = { read: file.read, write: async (t: string) => (fail ? Promise.reject(new DOMException('full', 'QuotaExceededError')) : file.write(t)) };
    const w = new Witness(flaky);
    w.note(held);
    await w.flushed();
    expect(w.failures).toBe(1);
    fail = false;
    w.note(held);
    await w.flushed();
    expect(parseWitness(file.text).record?.documents).toBe(9300);
    const broken = new Witness({ read: () => Promise.reject(new Error('io')), write: async () => undefined });
    expect((await broken.read()).unreadable).toMatch(/io/);
    expect(await broken.check(found({}), stored)).toBeUndefined();
  });

  it('gives the first record to an index that had none, and tells listeners of a loss', async () => {
    const file = memoryWitnessFile();
    const w = new Witness(file);
    expect(await w.check(held, stored)).toBeUndefined();
    await w.flushed();
    expect(parseWitness(file.text).record?.storeId).toBe('aaa');
    const heard: string[] = [];
    const w2 = new Witness(file);
    w2.onLoss((l) => heard.push(l.reason));
    await w2.check({ storeId: 'z', indexVersion: 0, documents: 0, chunks: 0 }, { storedId: false, missing: [] });
    expect(heard).toHaveLength(1);
  });

  it('an unreadable record is no loss but a warning: said once checked, kept over an empty index until a record is written, gone when dismissed', async () => {
    const torn = memoryWitnessFile('{"format":1,"storeId":"tru');
    const w = new Witness(torn);
    const heard: string[] = [];
    w.onWarning((m) => heard.push(m));
    const empty = { storeId: 'z', indexVersion: 0, documents: 0, chunks: 0 };
    expect(await w.check(empty, { storedId: false, missing: [] })).toBeUndefined();
    expect(heard).toEqual([expect.stringMatching(/^index record unreadable: .* is not JSON \(26 bytes\), so whether documents were lost before this open cannot be told; the index holds 0 documents/)]);
    expect(w.warning).toBe(heard[0]);
    await w.flushed();
    expect(torn.text).toBe('{"format":1,"storeId":"tru'); // nothing rewritten over an empty index: the next open says it again
    w.dismiss(empty);
    expect(w.warning).toBeUndefined();
    await w.flushed();
    expect(parseWitness(torn.text).record).toMatchObject({ documents: 0 });
    // A non-empty index gets a good record at once (the next open compares again) and the warning for this open.
    const foreign = memoryWitnessFile('{"format":2}');
    const w2 = new Witness(foreign);
    expect(await w2.check(held, stored)).toBeUndefined();
    expect(w2.warning).toMatch(/is not a witness record of format 1, .* the index holds 9,300 documents \(9,300 passages\)/);
    await w2.flushed();
    expect(parseWitness(foreign.text).record?.documents).toBe(9300);
    // A readable record gives no warning.
    const good = new Witness(memoryWitnessFile(JSON.stringify(record(held))));
    await good.check(held, stored);
    expect(good.warning).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import type { Change, IndexStore } from '../../src/engine/contracts.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { frame, readFrames } from '../../src/storage/recovery/frames.ts';
import { MemoryLogFolder } from '../../src/storage/recovery/log-files.ts';
import { withRecoveryLog, type LoggedStore } from '../../src/storage/recovery/logged-store.ts';
import { encodeValue } from '../../src/bundle/codec.ts';
import { ids, search, HashEmbedder } from '../support/engine.ts';

const DB = 'rcp-test';
const docs = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `d${from + i}`, text: `document ${from + i} about whales number${from + i} and the open sea`, meta: { n: from + i } }));

/** An engine over `inner` with the recovery log in `folder` (a fresh worker start). */
async function start(inner: IndexStore, folder: MemoryLogFolder, compactAfterBytes?: number): Promise<{ engine: Engine; store: LoggedStore }> {
  const store = withRecoveryLog(inner, { folder, database: DB, ...(compactAfterBytes ? { compactAfterBytes } : {}) });
  const engine = new Engine({ store, embedder: new HashEmbedder() });
  await engine.open();
  return { engine, store };
}

/** Mirrors commits into `copy` while `mirroring` (a database the browser later rolls back to). */
function mirrored(inner: MemoryStore, copy: MemoryStore): MemoryStore & { mirroring: boolean } {
  const m = inner as MemoryStore & { mirroring: boolean };
  m.mirroring = true;
  const commit = inner.commit.bind(inner);
  m.commit = async (c: Change) => {
    await commit(c);
    if (m.mirroring) await copy.commit(structuredClone(c));
  };
  return m;
}

describe('recovery log', () => {
  it('rebuilds a discarded database from the log at the next open: documents, passages, vectors and feedback', async () => {
    const folder = new MemoryLogFolder();
    const first = await start(new MemoryStore(), folder);
    await first.engine.add(docs(0, 30), {});
    await first.engine.add(docs(30, 30), {});
    await first.engine.delete(['d3']);
    await first.engine.feedback({ query: 'whales', signals: [{ hitId: 'd7', helpful: true, used: true }] } as never);
    const before = await search(first.engine, { query: 'number42 whales', k: 5, mode: 'hybrid' });
    await first.store.flushed();

    // The browser discarded the database: the next start finds it empty.
    const second = await start(new MemoryStore(), folder);
    const outcome = await second.store.recovery;
    expect(outcome.restored).toMatchObject({ action: 'restore', documents: 59 });
    expect(second.engine.stats().documents).toBe(59);
    const after = await search(second.engine, { query: 'number42 whales', k: 5, mode: 'hybrid' });
    expect(ids(after)).toEqual(ids(before));
    expect(after.hits.map((h) => h.score)).toEqual(before.hits.map((h) => h.score));
    expect((await second.engine.documentFeedback('d7'))?.hits.d7).toMatchObject({ helpful: 1, used: 1 });
    expect(await second.engine.documentFeedback('d3')).toBeUndefined();
    // And it writes on from there.
    await second.engine.add(docs(60, 5), {});
    const third = await start(new MemoryStore(), folder);
    expect((await third.store.recovery).restored?.documents).toBe(64);
  });

  it('catches a rolled-back database up with the entries it lacks, without rebuilding it', async () => {
    const folder = new MemoryLogFolder();
    const copy = new MemoryStore();
    const inner = mirrored(new MemoryStore(), copy);
    const first = await start(inner, folder);
    await first.engine.add(docs(0, 20), {});
    inner.mirroring = false; // the database's later commits are torn off its log
    await first.engine.add(docs(20, 20), {});
    await first.engine.delete(['d1']);
    const second = await start(copy, folder);
    expect((await second.store.recovery).restored).toMatchObject({ action: 'catch-up', documents: 39 });
    expect(copy.commits).toBe(1 + 2); // the mirrored commit and the two it lacked, no rebuild
    expect(second.engine.stats().documents).toBe(39);
  });

  it('hands the database records whose typed arrays own their buffers, not views of the log file (a catch-up and a rebuild)', async () => {
    // Structured clone copies a view's whole buffer: a view into the log file made each put clone
    // the file (1,500 passages × 38 MB, a catch-up that never finished in Chromium).
    const views: string[] = [];
    const check = (v: unknown, path: string): void => {
      if (ArrayBuffer.isView(v)) {
        if (v.byteLength !== v.buffer.byteLength) views.push(`${path}: ${v.byteLength} of ${v.buffer.byteLength} bytes`);
      } else if (Array.isArray(v)) v.forEach((x, i) => check(x, `${path}[${i}]`));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) check(x, `${path}.${k}`);
    };
    const watched = (store: MemoryStore): MemoryStore => {
      const commit = store.commit.bind(store);
      store.commit = async (c: Change) => {
        check(c, 'change');
        await commit(c);
      };
      return store;
    };
    const folder = new MemoryLogFolder();
    const copy = new MemoryStore();
    const inner = mirrored(new MemoryStore(), copy);
    const first = await start(inner, folder);
    await first.engine.add(docs(0, 20), {});
    inner.mirroring = false;
    await first.engine.add(docs(20, 20), {});
    await first.store.flushed();
    const caughtUp = await start(watched(copy), folder);
    expect((await caughtUp.store.recovery).restored?.action).toBe('catch-up');
    const rebuilt = await start(watched(new MemoryStore()), folder);
    expect((await rebuilt.store.recovery).restored?.action).toBe('restore');
    let arrays = 0;
    const count = (v: unknown): void => void (ArrayBuffer.isView(v) ? arrays++ : v && typeof v === 'object' && Object.values(v).forEach(count));
    count((await rebuilt.store.load({ documents: 'always' }))?.segments);
    expect(arrays).toBeGreaterThan(0); // the records did carry typed arrays
    expect(views).toEqual([]);
  });

  it('drops a log torn at any byte back to its last whole entry, and restores exactly that', async () => {
    const folder = new MemoryLogFolder();
    const first = await start(new MemoryStore(), folder);
    for (let i = 0; i < 4; i++) await first.engine.add(docs(i * 3, 3), {});
    await first.store.flushed();
    const [name] = await folder.list();
    const whole = folder.files.get(name)!;
    const ends = [0];
    for (const p of readFrames(whole).payloads) ends.push(ends[ends.length - 1] + p.length + 12);
    // Every cut reads back as the whole frames before it, never more and never a damaged one
    // (every byte near a frame boundary, every 97th elsewhere).
    const near = (c: number) => ends.some((e) => Math.abs(e - c) <= 24);
    for (let cut = 0; cut <= whole.length; cut++) {
      if (!near(cut) && cut % 97 !== 0) continue;
      const read = readFrames(whole.subarray(0, cut));
      expect(read.end).toBe(Math.max(...ends.filter((e) => e <= cut)));
      expect(read.dropped === undefined).toBe(ends.includes(cut));
    }
    // And an engine restores exactly those: cuts at, just before and just after each boundary, and between.
    const cuts = new Set<number>(ends.flatMap((e) => [e - 1, e, e + 1, e + 13]).filter((c) => c >= 0 && c <= whole.length));
    for (let i = 1; i < ends.length; i++) cuts.add(Math.floor((ends[i - 1] + ends[i]) / 2));
    for (const cut of cuts) {
      const torn = new MemoryLogFolder();
      torn.files.set(name, whole.slice(0, cut));
      const next = await start(new MemoryStore(), torn);
      const frames = ends.filter((e) => e > 0 && e <= cut).length; // the base, then one add per entry
      expect(next.engine.stats().documents, `cut at byte ${cut}`).toBe(frames <= 1 ? 0 : (frames - 1) * 3);
    }
  }, 120_000);

  it('refuses a write with QuotaExceededError when the log cannot take it, storing nothing of the batch', async () => {
    const folder = new MemoryLogFolder();
    const inner = new MemoryStore();
    const { engine, store } = await start(inner, folder);
    await engine.add(docs(0, 5), {});
    await store.flushed();
    folder.quota = [...folder.files.values()].reduce((n, f) => n + f.length, 0) + 100;
    const commits = inner.commits;
    await expect(engine.add(docs(5, 50), {})).rejects.toMatchObject({ name: 'QuotaExceededError' });
    expect(inner.commits).toBe(commits);
    expect(engine.stats().documents).toBe(5);
    folder.quota = Infinity;
    const again = await start(new MemoryStore(), folder);
    expect(again.engine.stats().documents).toBe(5); // the refused batch left no trace in the log either
  });

  it('takes an entry back out of the log when the database refuses its change', async () => {
    const folder = new MemoryLogFolder();
    const inner = new MemoryStore();
    const { engine } = await start(inner, folder);
    await engine.add(docs(0, 4), {});
    inner.failNextCommit = new DOMException('disk error', 'UnknownError');
    await expect(engine.add(docs(4, 4), {})).rejects.toThrow();
    const again = await start(new MemoryStore(), folder);
    expect(again.engine.stats().documents).toBe(4);
  });

  it('leaves a log of a newer format alone and says so, starting its own beside it', async () => {
    const folder = new MemoryLogFolder();
    const newer = frame(encodeValue({ kind: 'base', format: 99, generation: 5, snapshot: {} }));
    folder.files.set(`rcp-log-${DB}.5.bin`, newer);
    const { engine, store } = await start(new MemoryStore(), folder);
    expect((await store.recovery).notes.join(' ')).toMatch(/format 99, newer than this engine's 1/);
    await engine.add(docs(0, 2), {});
    await store.flushed();
    expect(folder.files.get(`rcp-log-${DB}.5.bin`)).toEqual(newer);
    const again = await start(new MemoryStore(), folder);
    expect(again.engine.stats().documents).toBe(2);
  });

  it('does not restore a log of another index over a database that holds data, and starts the log again', async () => {
    const folder = new MemoryLogFolder();
    const a = await start(new MemoryStore(), folder);
    await a.engine.add(docs(0, 3), {});
    await a.store.flushed();
    const otherInner = new MemoryStore();
    const b0 = new Engine({ store: otherInner });
    await b0.open();
    await b0.add(docs(100, 7), {});
    const b = await start(otherInner, folder);
    const outcome = await b.store.recovery;
    expect(outcome.restored).toBeUndefined();
    expect(outcome.notes.join(' ')).toMatch(/another index/);
    expect(b.engine.stats().documents).toBe(7);
    await b.store.flushed();
    const again = await start(new MemoryStore(), folder);
    expect(again.engine.stats().documents).toBe(7); // the log now covers the index it sits beside
  });

  it('compacts into a new generation that restores the same index, and a clear empties it', async () => {
    const folder = new MemoryLogFolder();
    const { engine, store } = await start(new MemoryStore(), folder, 1);
    for (let i = 0; i < 6; i++) await engine.add(docs(i * 5, 5), {});
    await engine.delete(['d0', 'd1']);
    await store.flushed();
    const names = await folder.list();
    expect(names).toHaveLength(1);
    expect(Number(/\.(\d+)\.bin$/.exec(names[0])![1])).toBeGreaterThan(2);
    const again = await start(new MemoryStore(), folder);
    expect(again.engine.stats().documents).toBe(28);
    await again.engine.clear();
    await again.store.flushed();
    const cleared = await start(new MemoryStore(), folder);
    expect(cleared.engine.stats().documents).toBe(0);
    expect((await cleared.store.recovery).restored).toBeUndefined();
  });

  it('compact() folds every entry into one base now, smaller than base and entries, and it restores the same index', async () => {
    const folder = new MemoryLogFolder();
    const { engine, store } = await start(new MemoryStore(), folder);
    for (let i = 0; i < 4; i++) await engine.add(docs(i * 10, 10), {});
    await engine.add(docs(0, 10), {}); // upserts: the log holds those documents twice until folded
    await store.flushed();
    const [before] = [...folder.files.values()];
    expect(readFrames(before).payloads.length).toBeGreaterThan(2); // a base and the entries after it
    await store.compact();
    const files = [...folder.files.values()];
    expect(files).toHaveLength(1);
    expect(readFrames(files[0]).payloads).toHaveLength(1); // the base alone
    expect(files[0].length).toBeLessThan(before.length);
    const again = await start(new MemoryStore(), folder);
    expect((await again.store.recovery).restored?.documents).toBe(40);
  });
});

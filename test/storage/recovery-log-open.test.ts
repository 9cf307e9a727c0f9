/** The recovery log's cost on the paths people wait on: the open before the first answer, and compaction during an ingest. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../src/engine/engine.ts';
import type { IndexStore } from '../../src/engine/contracts.ts';
import { encodeValue } from '../../src/bundle/codec.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { frame, readFrames } from '../../src/storage/recovery/frames.ts';
import { readHead as readHeadAt } from '../../src/storage/recovery/log-head.ts';
import { MemoryLogFolder } from '../../src/storage/recovery/log-files.ts';
import { withRecoveryLog, worthCompacting, type LoggedStore } from '../../src/storage/recovery/logged-store.ts';
import { RecoveryLog } from '../../src/storage/recovery/recovery-log.ts';
import { HashEmbedder } from '../support/engine.ts';

const DB = 'rcp-test';
const docs = (from: number, n: number, tag = '') =>
  Array.from({ length: n }, (_, i) => ({ id: `d${from + i}`, text: `document ${from + i} ${tag} about whales number${from + i} and the open sea`, meta: { n: from + i } }));

async function start(inner: IndexStore, folder: MemoryLogFolder, compactAfterBytes?: number): Promise<{ engine: Engine; store: LoggedStore }> {
  const store = withRecoveryLog(inner, { folder, database: DB, ...(compactAfterBytes ? { compactAfterBytes } : {}) });
  const engine = new Engine({ store, embedder: new HashEmbedder() });
  await engine.open();
  return { engine, store };
}

const only = (folder: MemoryLogFolder): Uint8Array => {
  const files = [...folder.files.values()];
  expect(files).toHaveLength(1);
  return files[0];
};

const readHead = (b: Uint8Array) => readHeadAt(b.length, async (at, n) => b.slice(at, at + n));

afterEach(() => vi.restoreAllMocks());

describe('recovery log head (the open without a fold)', () => {
  it('reads the manifest a fold reaches: after changes, after a feedback entry, and from a base alone', async () => {
    const folder = new MemoryLogFolder();
    const inner = new MemoryStore();
    const { engine, store } = await start(inner, folder);
    await engine.add(docs(0, 10), {});
    await engine.add(docs(10, 10), {});
    await store.flushed();
    expect((await readHead(only(folder)))?.manifest).toEqual(await inner.readManifest());
    await engine.feedback({ query: 'whales', signals: [{ hitId: 'd7', helpful: true, used: true }] } as never);
    await store.flushed();
    const withFeedback = only(folder);
    expect(readFrames(withFeedback).payloads.length).toBe(4); // base, two changes, the feedback
    expect((await readHead(withFeedback))?.manifest).toEqual(await inner.readManifest());
    await store.compact();
    const base = only(folder);
    expect(readFrames(base).payloads).toHaveLength(1);
    expect(await readHead(base)).toMatchObject({ manifest: await inner.readManifest(), baseBytes: base.length, end: base.length });
  });

  it('gives no head for a last frame torn at any byte, a damaged one, or another format (the open folds those)', async () => {
    const folder = new MemoryLogFolder();
    const { engine, store } = await start(new MemoryStore(), folder);
    await engine.add(docs(0, 4), {});
    await engine.add(docs(4, 4), {});
    await store.flushed();
    const whole = only(folder);
    const { payloads } = readFrames(whole);
    const lastStart = whole.length - payloads[payloads.length - 1].length - 12;
    for (let cut = lastStart + 1; cut < whole.length; cut++) expect(await readHead(whole.subarray(0, cut)), `cut at ${cut}`).toBeUndefined();
    expect((await readHead(whole.subarray(0, lastStart)))?.manifest?.version).toBeLessThan((await readHead(whole))!.manifest!.version); // a whole shorter log
    const damaged = whole.slice();
    damaged[whole.length - 3] ^= 0xff;
    expect(await readHead(damaged)).toBeUndefined();
    const newer = frame(encodeValue({ kind: 'base', format: 99, generation: 1, snapshot: { documents: [], chunks: [], segments: [], feedback: [] } }));
    expect(await readHead(newer)).toBeUndefined();
  });

  it('opens a store that is where its log is without folding the log; one that is behind still gets caught up', async () => {
    const folder = new MemoryLogFolder();
    const inner = new MemoryStore();
    const first = await start(inner, folder);
    await first.engine.add(docs(0, 20), {});
    await first.store.flushed();
    const fold = vi.spyOn(RecoveryLog.prototype, 'read');
    const again = await start(inner, folder);
    expect((await again.store.recovery).restored).toBeUndefined();
    expect(fold).not.toHaveBeenCalled();
    expect(again.engine.stats().documents).toBe(20);
    // And it writes on from the head it read: the next open finds every entry.
    await again.engine.add(docs(20, 5), {});
    await again.store.flushed();
    const discarded = await start(new MemoryStore(), folder);
    expect((await discarded.store.recovery).restored).toMatchObject({ action: 'restore', documents: 25 });
    expect(fold).toHaveBeenCalled();
  });
});

/** A folder whose appends wait for `release()` (and say when one began). */
class GatedFolder extends MemoryLogFolder {
  began = 0;
  private gate: Promise<void> | undefined;
  release: () => void = () => undefined;
  roomLeft: number | undefined = Number.MAX_SAFE_INTEGER;
  hold(): void {
    this.gate = new Promise((ok) => (this.release = ok));
  }
  override async room(): Promise<number | undefined> {
    return this.roomLeft;
  }
  override async append(name: string, from: number, bytes: Uint8Array, keep: (since: Uint8Array) => number): Promise<number | undefined> {
    this.began++;
    await this.gate;
    return super.append(name, from, bytes, keep);
  }
}

/** A store that counts the commits begun. */
function counting(inner: MemoryStore): MemoryStore & { begun: number } {
  const s = inner as MemoryStore & { begun: number };
  s.begun = 0;
  const commit = inner.commit.bind(inner);
  s.commit = async (c) => {
    s.begun++;
    return commit(c);
  };
  return s;
}

describe('recovery log beside the commit', () => {
  it('with room to spare, commits while the entry is written, and answers only once both are done', async () => {
    const folder = new GatedFolder();
    const inner = counting(new MemoryStore());
    const { engine, store } = await start(inner, folder);
    await engine.add(docs(0, 5), {});
    folder.hold();
    let answered = false;
    const adding = engine.add(docs(5, 5), {}).then(() => (answered = true));
    await expect.poll(() => inner.begun).toBe(2); // the commit began while the entry waits
    await new Promise((ok) => setTimeout(ok, 20));
    expect(answered).toBe(false); // committed, but not answered before the log has the entry
    folder.release();
    await adding;
    await store.flushed();
    const again = await start(new MemoryStore(), folder);
    expect((await again.store.recovery).restored?.documents).toBe(10);
  });

  it('near a full disk, writes the entry before the commit begins', async () => {
    const folder = new GatedFolder();
    folder.roomLeft = 10 * 2 ** 20;
    const inner = counting(new MemoryStore());
    const { engine } = await start(inner, folder);
    folder.hold();
    const adding = engine.add(docs(0, 5), {});
    await expect.poll(() => folder.began).toBe(1);
    await new Promise((ok) => setTimeout(ok, 20));
    expect(inner.begun).toBe(0);
    folder.release();
    await adding;
    expect(inner.begun).toBe(1);
  });

  it('when the room is gone between the check and the write, the store keeps the acknowledged write and the log stops, saying so', async () => {
    const folder = new MemoryLogFolder();
    const inner = new MemoryStore();
    const { engine, store } = await start(inner, folder);
    await engine.add(docs(0, 3), {});
    await store.flushed();
    folder.room = async () => Number.MAX_SAFE_INTEGER;
    folder.quota = 0; // the next append fails with QuotaExceededError
    await engine.add(docs(3, 3), {});
    expect(engine.stats().documents).toBe(6);
    expect((await inner.readManifest())?.documents).toBe(6);
    expect((await store.recovery).notes.join(' ')).toMatch(/recovery log stopped \(QuotaExceededError/);
  });
});

describe('recovery log compaction', () => {
  it('folds on what later entries superseded, not on length: an ingest that only adds is not rewritten, deletes and upserts are', async () => {
    const folder = new MemoryLogFolder();
    const { engine, store } = await start(new MemoryStore(), folder, 1);
    await engine.add(docs(0, 40), {});
    await store.compact();
    const generation = () => Number(/\.(\d+)\.bin$/.exec([...folder.files.keys()][0])![1]);
    const first = generation();
    for (let i = 1; i <= 3; i++) await engine.add(docs(i * 40, 40), {}); // entries ≈ 3× the base: under the length bound
    await store.flushed();
    expect(generation()).toBe(first);
    expect(store.backlog.deadBytes).toBeLessThan(store.backlog.entryBytes / 10);
    await engine.add(docs(0, 80, 'again'), {}); // upserts: half the index superseded
    await engine.delete(docs(80, 40).map((d) => d.id));
    await store.flushed();
    expect(generation()).toBeGreaterThan(first);
    const again = await start(new MemoryStore(), folder);
    expect((await again.store.recovery).restored?.documents).toBe(120);
  });

  it('worthCompacting: superseded bytes past the minimum and half the live bytes, or entries past 8× the minimum and 4× the base', () => {
    const MiB = 2 ** 20;
    expect(worthCompacting({ baseBytes: 0, entryBytes: 60 * MiB, deadBytes: 0 }, 8 * MiB)).toBe(false);
    expect(worthCompacting({ baseBytes: 0, entryBytes: 64 * MiB, deadBytes: 0 }, 8 * MiB)).toBe(true);
    expect(worthCompacting({ baseBytes: 40 * MiB, entryBytes: 150 * MiB, deadBytes: 10 * MiB }, 8 * MiB)).toBe(false);
    expect(worthCompacting({ baseBytes: 40 * MiB, entryBytes: 20 * MiB, deadBytes: 21 * MiB }, 8 * MiB)).toBe(true);
    expect(worthCompacting({ baseBytes: 4 * MiB, entryBytes: 2 * MiB, deadBytes: 3 * MiB }, 8 * MiB)).toBe(false);
  });
});

/**
 * An IndexStore that keeps a recovery log beside another store (IndexedDB), outside it, so that
 * a database the browser discards or rolls back comes back by itself at the next open.
 *
 * Guarantees:
 * - A change is in the log, flushed, before the store commits it; a change the store refuses is
 *   taken back out of the log. So every acknowledged write is in the log ("acknowledged" covers it).
 * - A log write that fails for lack of space refuses the write (the QuotaExceededError goes up:
 *   -32013) with nothing committed. Any other log failure stops the log (said in `notes`) and the
 *   store goes on alone, as it did before the log existed.
 * - At open, before the first read is answered, the store is compared with the log
 *   (recovery-plan.ts) and rebuilt or caught up from it if it lost data.
 * - Log files are touched one operation at a time, under a lock shared by every tab of the origin.
 */
import type { Change, FeedbackRecord, FeedbackUpdate, IndexStore, Manifest } from '../../engine/contracts.ts';
import type { Coordination } from '../../engine/state/coordination.ts';
import { SerialQueue } from '../../util/serial-queue.ts';
import { timeStep } from '../../util/heartbeat.ts';
import type { LogFolder } from './log-files.ts';
import { EMPTY_SNAPSHOT, LogState, type LogEntry, type Snapshot } from './log-state.ts';
import { RecoveryLog } from './recovery-log.ts';
import { planRecovery } from './recovery-plan.ts';

/** What the open did with the log. */
export interface RecoveryOutcome {
  /** Set when the store was rebuilt ('restore') or brought forward ('catch-up') from the log. */
  restored?: { action: 'restore' | 'catch-up'; documents: number; chunks: number; version: number; why: string };
  /** Sentences for people: parts of the log dropped or passed over, or the log stopped. */
  notes: string[];
}

export interface RecoveryLogOptions {
  folder: LogFolder;
  database: string;
  coordination?: Coordination;
  /**
   * Superseded bytes after which the log is folded into a new base (also only once they exceed
   * half of what it holds live); and, whatever they are, entries past 8× this and 4× the base
   * (what the estimate of superseded bytes misses). Default 8 MiB.
   */
  compactAfterBytes?: number;
  /** Documents per commit while rebuilding the store. */
  restoreBatch?: number;
}

export type LoggedStore = IndexStore & {
  /** Settles (never rejects) once the open compared the store with the log. */
  readonly recovery: Promise<RecoveryOutcome>;
  /** Settles once every log operation queued so far (a compaction included) has finished. */
  flushed(): Promise<void>;
  /** Folds the log into a new base now, as the log does by itself past its threshold (the bench measures what that leaves). */
  compact(): Promise<void>;
  /** Bytes of the current log file: its base snapshot, the entries after it, and what a fold would drop of them (estimated). */
  readonly backlog: { baseBytes: number; entryBytes: number; deadBytes: number };
};

const LOG_LOCK = 'recovery-log';
const DEFAULT_COMPACT_BYTES = 8 * 2 ** 20;
/** Free bytes, beyond 4× the largest entry, under which an append runs before the commit (a full disk then refuses the write). */
const ROOM_MIN = 256 * 2 ** 20;
const STAGING: Manifest = Object.freeze({ version: 0, nextChunkKey: 0, nextSegmentId: 0, segmentIds: [], tombstones: [] }) as Manifest;
const isQuota = (e: unknown) => (e as { name?: string } | null)?.name === 'QuotaExceededError';
const emptyChange = (manifest: Manifest): Change => ({ putDocuments: [], deleteDocumentIds: [], putChunks: [], deleteChunkKeys: [], putSegments: [], deleteSegmentIds: [], manifest });
const setFeedback = (records: { docId: string; record: FeedbackRecord | null }[]): FeedbackUpdate[] => records.map(({ docId, record }) => ({ docId, apply: () => record ?? undefined }));

/** Whether folding the log now pays: it drops enough (see `compactAfterBytes`), or the entries outgrew the base. */
export function worthCompacting(b: { baseBytes: number; entryBytes: number; deadBytes: number }, min: number): boolean {
  const live = b.baseBytes + b.entryBytes - b.deadBytes;
  return b.deadBytes >= Math.max(min, live / 2) || b.entryBytes >= Math.max(8 * min, 4 * b.baseBytes);
}

export function withRecoveryLog(inner: IndexStore, o: RecoveryLogOptions): LoggedStore {
  const log = new RecoveryLog(o.folder, o.database);
  const queue = new SerialQueue();
  const locked = <T>(fn: () => Promise<T>): Promise<T> => queue.run(() => (o.coordination ? o.coordination.withLock(LOG_LOCK, fn) : fn()));
  const notes: string[] = [];
  /** Set once the log failed for a reason other than space: the store goes on without it. */
  let stopped = false;
  let compacting = false;
  let version = 0;

  const stop = (e: unknown): void => {
    stopped = true;
    notes.push(`recovery log stopped (${(e as Error)?.name ?? 'Error'}: ${(e as Error)?.message ?? e}): a discarded database will be reported, not restored`);
    // The start-up line said the log is kept (its APIs exist); this one says where using them failed (a private window's OPFS).
    console.info(`[rcp] ${notes[notes.length - 1]}`);
  };

  /** The store's whole content, for a base (the store must not change meanwhile: the log lock is held). */
  async function storeSnapshot(): Promise<Snapshot> {
    const loaded = await inner.load({ documents: 'always' });
    if (!loaded) return EMPTY_SNAPSHOT;
    const apart = loaded.segments.filter((s) => s.denseApart).map((s) => s.id);
    const vectors = apart.length && inner.loadVectors ? await inner.loadVectors(apart) : new Map();
    const segments = loaded.segments.map(({ denseApart, ...s }) => (denseApart && vectors.has(s.id) ? { ...s, dense: vectors.get(s.id) } : s));
    const ids = (loaded.documents ?? []).map((d) => d.id);
    const documents = (await inner.getDocuments(ids)).filter((d) => d !== undefined);
    const chunks = (await inner.getChunks(documents.flatMap((d) => d.chunkKeys))).filter((c) => c !== undefined);
    const feedback = inner.getFeedback ? (await inner.getFeedback(ids)).filter((f) => f !== undefined) : [];
    return { manifest: loaded.manifest, documents, chunks, segments, feedback };
  }

  /** Gives the log a base when it has none current (a first write, or after a rebase was planned). */
  async function ensureBase(): Promise<void> {
    if (log.active || stopped) return;
    const generation = await log.startGeneration(await storeSnapshot());
    await log.dropOlder(generation);
  }

  async function rebuild(state: LogState): Promise<void> {
    const batch = o.restoreBatch ?? 500;
    const docs = [...state.documents.values()];
    const chunks = [...state.chunks.values()];
    const per = Math.ceil(chunks.length / Math.max(1, Math.ceil(docs.length / batch)));
    await inner.clear();
    for (let i = 0, c = 0; i < docs.length || c < chunks.length; i += batch, c += per) {
      await inner.commit({ ...emptyChange(STAGING), putDocuments: docs.slice(i, i + batch), putChunks: chunks.slice(c, c + per) });
    }
    await inner.commit({ ...emptyChange(state.manifest!), putSegments: [...state.segments.values()] });
    if (state.feedback.size && inner.updateFeedback) await inner.updateFeedback(setFeedback([...state.feedback.values()].map((record) => ({ docId: record.docId, record }))));
  }

  async function applyEntries(entries: LogEntry[]): Promise<void> {
    for (const e of entries) {
      if (e.kind === 'change') await inner.commit(e.change);
      else if (inner.updateFeedback) await inner.updateFeedback(setFeedback(e.records));
    }
  }

  const recovery: Promise<RecoveryOutcome> = locked(async () => {
    const [stored, head] = await Promise.all([inner.readManifest(), log.head()]);
    // The usual open: the store is where the log is. Known from the log's last manifest alone, so
    // the first answer does not wait for the whole log to be decoded.
    if (head && planRecovery(stored, head.manifest, [head.manifest?.version ?? 0], true).action === 'none') {
      version = head.manifest?.version ?? 0;
      return { notes };
    }
    const read = await log.read();
    notes.push(...read.notes);
    version = read.state.manifest?.version ?? 0;
    const plan = planRecovery(stored, read.state.manifest, read.versions, read.generation !== undefined);
    const counts = { documents: read.state.documents.size, chunks: read.state.chunks.size, version };
    if (plan.action === 'restore') await rebuild(read.state);
    if (plan.action === 'catch-up') await applyEntries(read.entries.slice(plan.from));
    if (plan.action === 'rebase') {
      notes.push(`recovery log started again from the database: ${plan.why}`);
      await log.removeAll(); // its content is not this index's: a new base follows
    }
    return plan.action === 'restore' || plan.action === 'catch-up' ? { restored: { action: plan.action, ...counts, why: plan.why }, notes } : { notes };
  }).catch((e: unknown) => {
    stop(e);
    return { notes };
  });
  // A base soon after the open, so an index that is only read is covered too.
  void recovery.then(() => locked(ensureBase)).catch(stop);

  const compact = (): Promise<void> =>
    locked(async () => {
      if (stopped) return;
      const read = await log.read();
      const generation = await log.startGeneration(timeStep('recovery log: taking a snapshot', () => read.state.snapshot()));
      await log.dropOlder(generation);
    }).catch((e: unknown) => void (isQuota(e) ? undefined : stop(e))); // a full disk keeps the longer log; the next commit tries again

  function maybeCompact(): void {
    if (compacting || stopped || !worthCompacting(log.backlog, o.compactAfterBytes ?? DEFAULT_COMPACT_BYTES)) return;
    compacting = true;
    void compact().finally(() => (compacting = false));
  }

  const fileEnd = (): number => log.backlog.baseBytes + log.backlog.entryBytes;
  /** Largest entry appended so far: the free space that lets an append run beside the store's commit is counted in it. */
  let largest = 0;
  /** Whether OPFS has so much room that the next append cannot run out of it (then it runs beside the commit). */
  async function spacious(): Promise<boolean> {
    const room = await o.folder.room?.().catch(() => undefined);
    return room !== undefined && room >= ROOM_MIN + 4 * largest;
  }

  /**
   * Logs `entry` and runs `write` on the store, and resolves once both are done (so an answer
   * covers the entry); takes the entry back if the store refuses. With room to spare, the two run
   * at once: the entry's encoding and its file write fill the worker's waits on IndexedDB. Near
   * a full disk, the entry first and then the store, so a log that runs out of space refuses the
   * write with nothing stored.
   */
  async function logged(entry: LogEntry, write: () => Promise<void>): Promise<void> {
    await recovery;
    await locked(async () => {
      let mark: { generation: number; at: number } | undefined;
      let together = false;
      if (!stopped) {
        try {
          await ensureBase();
          together = await spacious();
          if (!together) {
            mark = await log.append(entry);
            largest = Math.max(largest, fileEnd() - mark.at);
          }
        } catch (e) {
          if (isQuota(e)) throw e;
          stop(e);
        }
      }
      if (together) return beside(entry, write);
      try {
        await write();
      } catch (e) {
        if (mark) await log.undo(mark).catch(stop);
        throw e;
      }
    });
    maybeCompact();
  }

  /** The append and the commit at once (see `logged`); settles once both have. */
  async function beside(entry: LogEntry, write: () => Promise<void>): Promise<void> {
    const committing = (async () => write())(); // first: its puts are issued before the entry is encoded
    const [appended, committed] = await Promise.allSettled([log.append(entry), committing]);
    if (committed.status === 'rejected') {
      if (appended.status === 'fulfilled') await log.undo(appended.value).catch(stop);
      throw committed.reason;
    }
    if (appended.status === 'rejected') {
      // The store has it (acknowledged); the log does not: it stops, as on any failure but a full
      // disk seen before the commit (here the room was gone between the check and the write).
      stop(appended.reason);
      return;
    }
    largest = Math.max(largest, fileEnd() - appended.value.at);
  }

  return {
    ...inner,
    recovery,
    flushed: () => queue.idle(),
    compact: async () => (await recovery, compact()),
    get backlog() {
      return log.backlog;
    },
    load: async (options) => (await recovery, inner.load(options)),
    readManifest: async () => (await recovery, inner.readManifest()),
    loadVectors: inner.loadVectors && (async (ids) => (await recovery, inner.loadVectors!(ids))),
    getDocuments: async (ids) => (await recovery, inner.getDocuments(ids)),
    getChunks: async (keys) => (await recovery, inner.getChunks(keys)),
    getIdempotent: async (key) => (await recovery, inner.getIdempotent(key)),
    getFeedback: inner.getFeedback && (async (ids) => (await recovery, inner.getFeedback!(ids))),
    async commit(change) {
      await logged({ kind: 'change', change }, () => inner.commit(change));
      version = change.manifest.version;
    },
    updateFeedback:
      inner.updateFeedback &&
      (async (updates) => {
        await recovery;
        // The store merges each record under its own lock; the log keeps the records it wrote.
        const records: { docId: string; record: FeedbackRecord | null }[] = [];
        const seen = updates.map((u) => ({ docId: u.docId, apply: (old: FeedbackRecord | undefined) => { const r = u.apply(old); records.push({ docId: u.docId, record: r ?? null }); return r; } }));
        await inner.updateFeedback!(seen);
        await locked(async () => {
          if (stopped) return;
          await ensureBase();
          await log.append({ kind: 'feedback', version, records });
        }).catch((e: unknown) => void (isQuota(e) ? undefined : stop(e)));
      }),
    async clear(next) {
      await recovery;
      await locked(async () => {
        let generation: number | undefined;
        if (!stopped) {
          try {
            generation = await log.startGeneration(next ? { ...EMPTY_SNAPSHOT, manifest: next } : EMPTY_SNAPSHOT);
          } catch (e) {
            if (isQuota(e)) throw e;
            stop(e);
          }
        }
        try {
          await inner.clear(next);
        } catch (e) {
          if (generation !== undefined) await log.abandon(generation).catch(stop);
          throw e;
        }
        if (generation !== undefined) await log.dropOlder(generation).catch(stop);
      });
      version = next?.version ?? 0;
    },
    close: () => inner.close(),
  };
}


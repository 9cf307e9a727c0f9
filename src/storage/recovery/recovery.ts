/**
 * The worker's side of the recovery log: kept where this context can keep it (a dedicated worker
 * with OPFS sync access handles; the choice is logged once), and what it did at the open, in the
 * words every way in shows (initialize's usage.notes, a notifications/log warning, the playground).
 * Where it cannot be kept, the witness alone says what a discarded database lost.
 */
import type { IndexStore } from '../../engine/contracts.ts';
import type { Coordination } from '../../engine/state/coordination.ts';
import type { IndexRestored } from '../../protocol/control.ts';
import { logSupport, opfsLogFolder, type LogFolder, type LogSupport } from './log-files.ts';
import { withRecoveryLog } from './logged-store.ts';

export interface Recovery {
  readonly support: LogSupport;
  /** Settles (never rejects) once the open compared the database with the log: what it restored, if anything (until dismissed). */
  restored(): Promise<IndexRestored | undefined>;
  /** Sentences for `usage.notes`: the restore (until dismissed), and anything of the log dropped or passed over. */
  notes(): string[];
  /** Forgets the restore (the person has seen it). */
  dismiss(): void;
}

/** One line for people: what was restored and why. */
export function describeRestore(r: IndexRestored): string {
  const n = (x: number) => x.toLocaleString('en');
  return r.action === 'restore'
    ? `index restored: ${r.reason}; its ${n(r.documents)} documents (${n(r.chunks)} passages, version ${r.indexVersion}) were rebuilt from the recovery log kept outside it`
    : `index restored: ${r.reason}; the changes it lacked were applied again from the recovery log kept outside it (${n(r.documents)} documents, ${n(r.chunks)} passages, version ${r.indexVersion})`;
}

/** `opening`'s store with the recovery log beside it, where this context supports one (`folder` overrides OPFS in tests). */
export function keepRecoveryLog(opening: Promise<IndexStore>, o: { database: string; coordination?: Coordination; folder?: LogFolder; now?: () => Date }): { store: Promise<IndexStore>; recovery: Recovery } {
  const support: LogSupport = o.folder ? { kind: 'opfs-sync' } : logSupport();
  console.info(
    support.kind === 'opfs-sync'
      ? '[rcp] recovery log: kept in the origin private file system (sync access handles); a discarded database is restored at the next open'
      : `[rcp] recovery log: off (${support.why}); a discarded database is reported as lost, not restored`,
  );
  if (support.kind !== 'opfs-sync') {
    return { store: opening, recovery: { support, restored: async () => undefined, notes: () => [], dismiss: () => undefined } };
  }
  const logged = opening.then((inner) => withRecoveryLog(inner, { folder: o.folder ?? opfsLogFolder(), database: o.database, coordination: o.coordination }));
  const outcome = logged.then((s) => s.recovery).catch(() => ({ notes: [] as string[], restored: undefined }));
  let dismissed = false;
  let shown: IndexRestored | undefined;
  let logNotes: string[] = [];
  const restored = outcome.then((out) => {
    logNotes = out.notes;
    const r = out.restored;
    shown = r && { action: r.action, documents: r.documents, chunks: r.chunks, indexVersion: r.version, reason: r.why, detectedAt: (o.now?.() ?? new Date()).toISOString() };
    return shown;
  });
  return {
    store: logged,
    recovery: {
      support,
      restored: () => restored.then((r) => (dismissed ? undefined : r)),
      notes: () => [...(shown && !dismissed ? [describeRestore(shown)] : []), ...logNotes],
      dismiss: () => void (dismissed = true),
    },
  };
}

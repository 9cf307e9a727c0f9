/**
 * What to do at open, given the store's manifest and what the recovery log holds: one decision,
 * read top to bottom.
 */
import type { Manifest } from '../../engine/contracts.ts';

export type RecoveryPlan =
  /** The store is where the log is. */
  | { action: 'none' }
  /** The store is ahead of the log, or the log is of another index: start the log again from the store. */
  | { action: 'rebase'; why: string }
  /** The store is an earlier version of the logged index: apply the entries from `from` on. */
  | { action: 'catch-up'; from: number; why: string }
  /** The store lost what the log holds: rebuild it from the log. */
  | { action: 'restore'; why: string };

const holdsNothing = (m: Manifest | undefined): boolean => !m || m.version === 0 || (m.segmentIds.length === 0 && !m.chunkless && !m.documents);

/**
 * `logged` is the log's last manifest (undefined: the log holds an empty index or there is none),
 * `versions` the index version after each of its records (the base's first).
 */
export function planRecovery(store: Manifest | undefined, logged: Manifest | undefined, versions: readonly number[], hasLog: boolean): RecoveryPlan {
  if (!hasLog) return holdsNothing(store) ? { action: 'none' } : { action: 'rebase', why: 'no recovery log yet' };
  if (!logged || holdsNothing(logged)) return holdsNothing(store) ? { action: 'none' } : { action: 'rebase', why: 'the log holds an empty index' };
  if (holdsNothing(store)) return { action: 'restore', why: store ? 'the database is empty: the browser discarded or deleted it' : 'the database is missing: the browser discarded or deleted it' };
  const s = store!;
  if (s.storeId && logged.storeId && s.storeId !== logged.storeId) return { action: 'rebase', why: 'the log is of another index (another store id)' };
  if (s.version === logged.version) return { action: 'none' };
  if (s.version > logged.version) return { action: 'rebase', why: `the database (version ${s.version}) is ahead of the log (version ${logged.version})` };
  // The first record at that version: feedback logged at it may be what the store lost (re-applying a record is harmless).
  const at = versions.indexOf(s.version);
  // Behind by its last changes: a write cut off when the page closed (not yet acknowledged) looks
  // exactly like an acknowledged one the browser rolled back, so the words name both.
  return at >= 0
    ? { action: 'catch-up', from: at, why: `the database is at version ${s.version} and its recovery log at ${logged.version}: a write cut off when the page closed, or rolled back by the browser` }
    : { action: 'restore', why: `the database went back from version ${logged.version} to ${s.version}` };
}

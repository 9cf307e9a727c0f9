import { openDB, type IDBPDatabase } from 'idb';
import { StorageUnavailableError } from './errors.ts';
import { SCHEMA_VERSION, upgrade, type RcpDB } from './schema.ts';

/**
 * How long an open may take before we give up. It covers both ways another tab can stall us:
 * our upgrade `blocked` by its old connection, and our open queued behind its own blocked
 * upgrade (which fires no event at all on our request).
 */
export const DEFAULT_OPEN_TIMEOUT_MS = 5_000;

export interface OpenCallbacks {
  /** Another connection wants a newer version or to delete the database: we must close. */
  onVersionChange(): void;
  /** The browser closed the connection abnormally (storage cleared, disk error). */
  onTerminated(): void;
  /**
   * The open created or upgraded the database: `oldVersion` 0 means it did not exist. `dataLoss`
   * is Chromium's word that it discarded the old database (found corrupt) before this open, with
   * its message (the non-standard `dataLoss`/`dataLossMessage` of the upgrade event).
   */
  onUpgrade?(info: { oldVersion: number; dataLoss?: string }): void;
}

/** Chromium's non-standard report on the upgrade event that it discarded a corrupt database. */
function browserDataLoss(event: Event): string | undefined {
  const e = event as Event & { dataLoss?: string; dataLossMessage?: string };
  return e.dataLoss && e.dataLoss !== 'none' ? `${e.dataLoss}${e.dataLossMessage ? `: ${e.dataLossMessage}` : ''}` : undefined;
}

/**
 * Opens (and creates or upgrades) the database. Rejects with {@link StorageUnavailableError} when
 * IndexedDB is missing, or when the open has not completed after `timeoutMs` (typically blocked
 * by another tab); otherwise with the browser's own DOMException. A connection that arrives after
 * the timeout is closed at once.
 */
export function openDatabase(name: string, timeoutMs: number, callbacks: OpenCallbacks): Promise<IDBPDatabase<RcpDB>> {
  if (typeof indexedDB === 'undefined' || indexedDB === null) {
    return Promise.reject(new StorageUnavailableError('unsupported', 'IndexedDB is not available in this context'));
  }
  return new Promise((resolve, reject) => {
    let blockedBy: number | undefined;
    let gaveUp = false;
    const timer = setTimeout(() => {
      gaveUp = true;
      const why =
        blockedBy === undefined
          ? 'waiting on another connection (another tab upgrading or deleting it?)'
          : `blocked by an open connection at v${blockedBy} (another tab?)`;
      reject(new StorageUnavailableError('blocked', `open of "${name}" v${SCHEMA_VERSION} timed out after ${timeoutMs} ms, ${why}`));
    }, timeoutMs);
    openDB<RcpDB>(name, SCHEMA_VERSION, {
      upgrade(db, oldVersion, newVersion, tx, event) {
        upgrade(db, oldVersion, newVersion, tx);
        const dataLoss = browserDataLoss(event);
        callbacks.onUpgrade?.(dataLoss ? { oldVersion, dataLoss } : { oldVersion });
      },
      blocked(currentVersion) {
        blockedBy = currentVersion;
      },
      blocking: () => callbacks.onVersionChange(),
      terminated: () => callbacks.onTerminated(),
    }).then(
      (db) => {
        clearTimeout(timer);
        if (gaveUp) db.close();
        else resolve(db);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

import { ENGINE_LOAD, type IndexStore, type LoadedIndex } from '../engine/contracts.ts';
import type { Coordination } from '../engine/state/coordination.ts';

/** An IndexStore whose first `load()` is already under way. */
export interface ReadAheadStore extends IndexStore {
  /** Settles (never rejects) when the read started ahead of time has finished. */
  readonly firstRead: Promise<void>;
}

/**
 * Starts reading the index at once, so a cold start reads IndexedDB while the models' folder is
 * still being resolved; the engine's first `load()` takes that read. With other engines sharing
 * the store, the read is discarded (and `load()` reads again) when one of them announced a commit
 * after it started; later calls always read the store.
 */
export function readAhead(store: IndexStore, coordination?: Coordination): ReadAheadStore {
  // What the engine's open asks for (documents only when some segment has no table).
  let ahead: Promise<LoadedIndex | undefined> | undefined = store.load(ENGINE_LOAD);
  const unsubscribe = coordination?.subscribe(() => {
    ahead = undefined;
  });
  const firstRead = ahead.then(() => undefined, () => undefined);
  return {
    ...store,
    loadVectors: store.loadVectors && ((ids) => store.loadVectors!(ids)),
    firstRead,
    load(options) {
      const taken = options?.documents === ENGINE_LOAD.documents ? ahead : undefined;
      ahead = undefined;
      unsubscribe?.();
      return taken ?? store.load(options);
    },
  };
}

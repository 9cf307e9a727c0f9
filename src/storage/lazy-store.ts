import type { IndexStore, PartialSource } from '../engine/contracts.ts';

/**
 * An IndexStore usable before its database has opened: every call waits for `opening`, so the
 * worker can build the engine (and advertise capabilities) synchronously at start-up. If opening
 * fails, every call rejects with that error (the server maps it to -32010). A store read on demand
 * (a bundle) passes its `partial` source here: the engine must know at construction that it reads
 * through one.
 */
export function lazyStore(opening: Promise<IndexStore>, partial?: PartialSource): IndexStore {
  opening.catch(() => undefined); // surfaced per call, not as an unhandled rejection
  return {
    ...(partial ? { partial } : {}),
    load: (options) => opening.then((s) => s.load(options)),
    loadVectors: (ids) => opening.then((s) => (s.loadVectors ? s.loadVectors(ids) : new Map())),
    readManifest: () => opening.then((s) => s.readManifest()),
    commit: (change) => opening.then((s) => s.commit(change)),
    getDocuments: (ids) => opening.then((s) => s.getDocuments(ids)),
    getChunks: (keys) => opening.then((s) => s.getChunks(keys)),
    getIdempotent: (key) => opening.then((s) => s.getIdempotent(key)),
    getFeedback: (ids) => opening.then((s) => (s.getFeedback ? s.getFeedback(ids) : ids.map(() => undefined))),
    updateFeedback: (updates) =>
      opening.then((s) => {
        if (!s.updateFeedback) throw new Error('this store keeps no feedback');
        return s.updateFeedback(updates);
      }),
    clear: (next) => opening.then((s) => s.clear(next)),
    close: () => void opening.then((s) => s.close(), () => undefined),
  };
}

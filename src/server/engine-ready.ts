import { openFailure } from './errors.ts';

/**
 * Waits for the engine; if its storage could not be opened, every call fails with that failure's
 * RCP error (src/server/errors.ts: -32010 unless a rule says otherwise), the capability staying
 * advertised (§13.2).
 */
export function engineReady<E>(engine: Promise<E>): () => Promise<E> {
  return async () => {
    try {
      return await engine;
    } catch (e) {
      throw openFailure(e);
    }
  };
}

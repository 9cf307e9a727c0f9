import { describeLoss } from '../src/storage/witness.ts';
import type { BrowserHost } from './browser-host.ts';
import { SQLITE_FEATURE } from './profile-storage.ts';

/**
 * Says on stderr, as soon as the engine knows, that the profile's index is smaller than the record
 * kept outside its database (src/storage/witness.ts): a bridge must never start silently empty.
 * Clients that asked for logs also get it as `notifications/log` at `error` (the worker sends it).
 * A record it could not read is said too (a `warning`): then a loss cannot be told.
 */
export function reportIndexLoss(host: BrowserHost, diag: (line: string) => void): void {
  if (host.backend === 'leveldb') {
    diag("this profile keeps its index in Chromium's LevelDB store, which a kill during a write can make the browser discard; new profiles use SQLite (README, \"Durability\")");
  }
  host.indexLoss().then(
    (loss) => {
      // Measured, not assumed: a Chromium without the SQLite feature ignores the flag and writes LevelDB.
      if (host.backend === 'sqlite' && host.storedBackend() === 'leveldb') diag(`the SQLite IndexedDB backend was asked for (--enable-features=${SQLITE_FEATURE}) but this Chromium stored the index in LevelDB: the flag had no effect, and a kill during a write can make the browser discard the index`);
      if (loss) diag(`${describeLoss(loss)} (detected ${loss.detectedAt}${loss.browser ? `; the browser said: ${loss.browser}` : ''})`);
    },
    () => undefined, // the page went away (the bridge is closing): nothing to say
  );
  host.indexWarning().then(
    (warning) => warning && diag(warning),
    () => undefined,
  );
}

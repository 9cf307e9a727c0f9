import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Which IndexedDB backend Chromium keeps a bridge profile's index in.
 *
 * `leveldb` is Chromium's default, and it loses whole databases to kills: a SIGKILL in the middle
 * of a commit's log write leaves a torn record at the end of LevelDB's log; the next start
 * recovers up to it and then REUSES the log, appending after the torn bytes; the start after
 * that finds them mid-log ("Corruption: checksum mismatch"), and Chromium deletes the database
 * and recreates it empty ("IndexedDB recovering from a corrupted (and deleted) database"),
 * acknowledged commits included (issue 21; docs/durability.md). `sqlite` is the SQLite backend
 * Chromium 156 has behind the `IdbSqliteBackingStore` feature (a rollback journal, so a kill
 * costs at most the commit in flight). It migrates nothing from LevelDB, so a profile keeps the
 * backend it was created with: new profiles get `sqlite`; a profile that already holds a LevelDB
 * index keeps `leveldb` (switching would hide that index).
 */
export type IdbBackend = 'sqlite' | 'leveldb';

/** Where a profile remembers its backend. */
export const BACKEND_FILE = 'rcp-idb-backend';

/** The Chromium feature that selects the SQLite backend. */
export const SQLITE_FEATURE = 'IdbSqliteBackingStore';

/**
 * Which backend the profile's IndexedDB folder shows, once a database was opened: `leveldb` where a
 * LevelDB store (`*.indexeddb.leveldb`) exists, `sqlite` where the folder holds anything else,
 * undefined where it is empty or absent. This is how the bridges see whether Chromium honoured the
 * SQLite flag (a Chromium without the feature ignores it and writes LevelDB).
 */
export function storedBackend(profile: string): IdbBackend | undefined {
  const dir = join(profile, 'Default', 'IndexedDB');
  const entries = existsSync(dir) ? readdirSync(dir) : [];
  if (entries.some((f) => f.endsWith('.indexeddb.leveldb'))) return 'leveldb';
  return entries.length > 0 ? 'sqlite' : undefined;
}

/** True when the profile already holds a LevelDB IndexedDB store (any origin). */
function hasLevelDbIndex(profile: string): boolean {
  const dir = join(profile, 'Default', 'IndexedDB');
  return existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.indexeddb.leveldb'));
}

/**
 * The backend of this profile: the one it remembers, else `leveldb` when it already holds a
 * LevelDB index, else `wanted` (default `sqlite`); remembered from now on. Throws when the
 * profile's backend is not `wanted`, or on a file it cannot read, rather than guess (a wrong
 * guess hides the index).
 */
export function profileBackend(profile: string, wanted?: IdbBackend): IdbBackend {
  const file = join(profile, BACKEND_FILE);
  if (existsSync(file)) {
    const b = readFileSync(file, 'utf8').trim();
    if (b !== 'sqlite' && b !== 'leveldb') throw new Error(`${file} names "${b.slice(0, 40)}", not sqlite or leveldb; refusing to start rather than hide the index`);
    if (wanted && wanted !== b) throw new Error(`this profile keeps its index in ${b}, not ${wanted} (${file}); a profile never changes backend`);
    return b;
  }
  const chosen: IdbBackend = hasLevelDbIndex(profile) ? 'leveldb' : (wanted ?? 'sqlite');
  if (wanted && wanted !== chosen) throw new Error(`this profile already holds a ${chosen} index; refusing to start it on ${wanted}, which would hide it`);
  try {
    writeFileSync(file, `${chosen}\n`, { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return profileBackend(profile, wanted);
    throw e;
  }
  return chosen;
}

/**
 * Chromium flags for `backend`. Playwright passes its own `--enable-features` list before ours
 * and Chromium keeps the last one, so this list replaces Playwright's (two features for
 * screenshots and sign-in that the bridges never use).
 */
export const backendArgs = (backend: IdbBackend): string[] => (backend === 'sqlite' ? [`--enable-features=${SQLITE_FEATURE}`] : []);

/** `--idb sqlite|leveldb`: the backend a NEW profile gets (an existing profile keeps its own; a mismatch is an error). */
export function idbChoice(value: string | undefined): IdbBackend | undefined {
  if (value === undefined) return undefined;
  if (value !== 'sqlite' && value !== 'leveldb') throw new Error(`--idb takes sqlite or leveldb, not "${value.slice(0, 40)}"`);
  return value;
}

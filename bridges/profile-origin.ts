import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The origin the app is served at for a new profile. Served through request interception, so no
 * port is ever opened and nothing else listening on localhost can take it away.
 */
export const DEFAULT_ORIGIN = 'http://localhost';

/** Where a profile remembers its origin (the IndexedDB index belongs to that origin). */
export const ORIGIN_FILE = 'rcp-origin';
/** Where profiles written by earlier bridges remembered the port of `http://localhost:<port>`. */
export const LEGACY_PORT_FILE = 'rcp-origin-port';

/** Loopback http origins only: WebGPU and other secure-context APIs need one. */
const LOOPBACK_ORIGIN = /^http:\/\/(localhost|[a-z0-9-]+\.localhost)(:\d{1,5})?$/;

/**
 * The origin whose storage holds this profile's index. A profile keeps the origin it was first
 * given, forever: it is read, never rewritten (a new origin would show an empty index while the
 * data sits under the old one). A fresh profile is given DEFAULT_ORIGIN. Throws with a clear
 * message when the remembered origin cannot be read, rather than guessing a new one.
 */
export function profileOrigin(profile: string): string {
  const file = join(profile, ORIGIN_FILE);
  if (existsSync(file)) {
    const origin = readFileSync(file, 'utf8').trim();
    if (!LOOPBACK_ORIGIN.test(origin)) throw new Error(`${file} names "${origin.slice(0, 80)}", not a loopback http origin; refusing to start rather than hide the index stored under it`);
    return origin;
  }
  const legacy = join(profile, LEGACY_PORT_FILE);
  if (existsSync(legacy)) {
    const port = Number(readFileSync(legacy, 'utf8').trim());
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${legacy} holds no port; refusing to start rather than hide the index stored under it`);
    return `http://localhost:${port}`; // served by interception too: the port need not be free
  }
  try {
    writeFileSync(file, `${DEFAULT_ORIGIN}\n`, { flag: 'wx' }); // wx: never overwrite another writer's choice
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return profileOrigin(profile);
    throw e;
  }
  return DEFAULT_ORIGIN;
}

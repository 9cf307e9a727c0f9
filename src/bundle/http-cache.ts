/**
 * Offline second visits for any site, with or without a service worker of its own: the bundle's
 * files go through the Cache API of the worker that reads them. Content files are named by their
 * hash, so they are served from the cache once fetched (cache first); the manifest is the one file
 * that changes in place, so it is fetched first and the cached copy serves only when the network
 * fails. When a new manifest arrives, cached files it no longer lists are deleted, so the cache
 * holds one build of the bundle.
 */
import type { FetchLike } from './bundle-files.ts';

/** Fetch-free time after which the copies of fetched files are stored. */
const STORE_QUIET_MS = 300;
/** The longest a fetched file waits for its copy to be stored while fetches keep coming. */
const STORE_AT_MOST_MS = 2000;

/** The Cache API's name for the bundle at `base`. */
export const bundleCacheName = (base: string): string => `rcp-bundle:${base}`;

/**
 * `fetchFn` with the Cache API in front (see the file comment), or `fetchFn` itself where there is
 * no Cache API (Node, an opaque origin).
 */
export function cachingFetch(fetchFn: FetchLike, base: string, manifestUrl: string): FetchLike {
  const storage = (globalThis as { caches?: CacheStorage }).caches;
  if (!storage) return fetchFn;
  const opened = storage.open(bundleCacheName(base)).catch(() => undefined);
  // What the cache holds, listed once: a file it does not hold (every file on a first visit) goes
  // to the network at once instead of after a `match` round trip to the browser process each.
  const held = opened.then(async (cache) => new Set((await cache?.keys())?.map((r) => r.url))).catch(() => new Set<string>());
  // Copies are stored once the fetching pauses (each `put` is this thread's work, and the answer
  // that fetched these files should not wait behind it), or after STORE_AT_MOST_MS of steady fetching.
  let pending: { url: string; copy: Response }[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let since = 0;
  const flush = (cache: Cache): void => {
    timer = undefined;
    const batch = pending;
    pending = [];
    for (const { url, copy } of batch) void cache.put(url, copy).then(() => held.then((h) => h.add(url))).catch(() => undefined);
  };
  const keep = (cache: Cache, url: string, res: Response): void => {
    if (pending.length === 0) since = Date.now();
    pending.push({ url, copy: res.clone() });
    clearTimeout(timer);
    timer = setTimeout(flush, Date.now() - since >= STORE_AT_MOST_MS ? 0 : STORE_QUIET_MS, cache);
  };
  return async (url, init) => {
    const cache = await opened;
    if (!cache) return fetchFn(url, init);
    if (url === manifestUrl) {
      try {
        const res = await fetchFn(url, init);
        if (res.ok) keep(cache, url, res);
        return res;
      } catch (e) {
        const hit = await cache.match(url);
        if (hit) return hit;
        throw e;
      }
    }
    const hit = (await held).has(url) ? await cache.match(url) : undefined;
    if (hit) return hit;
    const res = await fetchFn(url, init);
    if (res.status === 200) keep(cache, url, res);
    return res;
  };
}

/** Deletes cached files of the bundle at `base` that `keep` (absolute URLs) does not list. */
export async function pruneBundleCache(base: string, keep: ReadonlySet<string>): Promise<void> {
  const storage = (globalThis as { caches?: CacheStorage }).caches;
  const cache = await storage?.open(bundleCacheName(base)).catch(() => undefined);
  if (!cache) return;
  for (const req of await cache.keys()) if (!keep.has(req.url)) await cache.delete(req);
}

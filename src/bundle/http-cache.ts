/**
 * Offline second visits for any site, with or without a service worker of its own: the bundle's
 * files go through the Cache API of the worker that reads them. Content files are named by their
 * hash, so they are served from the cache once fetched (cache first); the manifest is the one file
 * that changes in place, so it is fetched first and the cached copy serves only when the network
 * fails. When a new manifest arrives, cached files it no longer lists are deleted, so the cache
 * holds one build of the bundle.
 */
import type { FetchLike } from './bundle-store.ts';

/** The Cache API's name for the bundle at `base`. */
export const bundleCacheName = (base: string): string => `rcp-bundle:${base}`;

/**
 * `fetchFn` with the Cache API in front (see the file comment), or `fetchFn` itself where there is
 * no Cache API (Node, an opaque origin).
 */
export function cachingFetch(fetchFn: FetchLike, base: string, manifestUrl: string): FetchLike {
  const storage = (globalThis as { caches?: CacheStorage }).caches;
  if (!storage) return fetchFn;
  // Opened once; a copy is stored in the background, never on the way to the first answer.
  const opened = storage.open(bundleCacheName(base)).catch(() => undefined);
  const keep = (cache: Cache, url: string, res: Response): void => void cache.put(url, res.clone()).catch(() => undefined);
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
    const hit = await cache.match(url);
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

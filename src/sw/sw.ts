/**
 * The playground's service worker: offline after the first visit, nothing fetched from elsewhere.
 *
 * - One cache per build, named with the build hash; `activate` deletes every older one.
 * - Precaches the app shell, the ORT runtime (/ort/), the model files (/models/) and the sample
 *   corpus. `PRECACHE` and `BUILD_HASH` are injected at build time (tools/vite/sw.ts).
 * - HTML and index bundle manifests: network first, cache as fallback (a new deploy is seen at once when online).
 * - Hashed assets, models, runtime, sample: cache first (their names or the cache version pin them).
 * - Safe update: a new worker installs and waits; the page offers "reload", which posts
 *   `skip-waiting`. Only then does it take over.
 */
export {};
declare const self: ServiceWorkerGlobalScope;
declare const __PRECACHE__: string[];
declare const __BUILD_HASH__: string;

const PREFIX = 'rcp-playground-';
const CACHE = `${PREFIX}${__BUILD_HASH__}`;
const PRECACHE: string[] = __PRECACHE__;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      await self.clients.claim(); // the first install controls the open page at once; updates only come here after skip-waiting
    })(),
  );
});

self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'skip-waiting') void self.skipWaiting();
});

/**
 * Network first: pages, and index bundles' manifests (`rcp-in-page index`), the one bundle file
 * whose name does not change when the site is rebuilt. A bundle's other files are named by their
 * content hash, so cache first keeps them right, and a visited site's search works offline.
 */
const isNetworkFirst = (req: Request, url: URL) => req.mode === 'navigate' || url.pathname.endsWith('.html') || url.pathname === '/' || url.pathname.endsWith('/rcp-bundle.json');

async function networkFirst(req: Request, url: URL): Promise<Response> {
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(req);
    if (res.ok) await cache.put(req, res.clone());
    return res;
  } catch (e) {
    const hit = (await cache.match(req, { ignoreSearch: true, ignoreVary: true })) ?? (url.pathname === '/' ? await cache.match('/index.html') : undefined);
    if (hit) return hit;
    throw e;
  }
}

async function cacheFirst(req: Request): Promise<Response> {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(req, { ignoreSearch: true, ignoreVary: true });
  if (hit) return hit;
  const res = await fetch(req);
  if (res.ok && res.status === 200) await cache.put(req, res.clone());
  return res;
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin || req.headers.has('range')) return;
  if (url.pathname === '/sw.js') return;
  event.respondWith(isNetworkFirst(req, url) ? networkFirst(req, url) : cacheFirst(req));
});

/**
 * The bundle's Cache API front (src/bundle/http-cache.ts), over an in-memory CacheStorage: a first
 * visit goes to the network without asking the cache file by file, the copies are stored once the
 * fetching pauses (not on the way to the first answer), and the next visit is served from them.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cachingFetch } from '../../src/bundle/http-cache.ts';

class MemoryCache {
  readonly entries = new Map<string, Response>();
  matches = 0;
  async keys(): Promise<Request[]> {
    return [...this.entries.keys()].map((u) => new Request(u));
  }
  async match(url: string): Promise<Response | undefined> {
    this.matches++;
    return this.entries.get(url)?.clone();
  }
  async put(url: string, res: Response): Promise<void> {
    this.entries.set(url, new Response(await res.arrayBuffer(), { status: res.status }));
  }
  async delete(req: Request): Promise<boolean> {
    return this.entries.delete(req.url);
  }
}

const BASE = 'https://site.test/search/';
const MANIFEST = `${BASE}rcp-bundle.json`;
const SHARD = `${BASE}terms/1-abc.bin`;

describe('cachingFetch', () => {
  let cache: MemoryCache;
  beforeEach(() => {
    cache = new MemoryCache();
    vi.stubGlobal('caches', { open: async () => cache });
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('fetches a file the cache does not hold without a match, and stores its copy once fetching pauses', async () => {
    const network = vi.fn(async (url: string) => new Response(`bytes of ${url}`));
    const fetchFn = cachingFetch(network, BASE, MANIFEST);
    expect(await (await fetchFn(SHARD)).text()).toBe(`bytes of ${SHARD}`);
    expect(cache.matches).toBe(0);
    expect(cache.entries.has(SHARD)).toBe(false); // not stored on the way to the answer
    await vi.advanceTimersByTimeAsync(100);
    await fetchFn(`${BASE}texts/2-def.bin`); // another fetch within the quiet window postpones the store
    await vi.advanceTimersByTimeAsync(250);
    expect(cache.entries.size).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    expect([...cache.entries.keys()].sort()).toEqual([SHARD, `${BASE}texts/2-def.bin`]);
  });

  it('stores copies after two seconds of steady fetching at the latest', async () => {
    const fetchFn = cachingFetch(async () => new Response('x'), BASE, MANIFEST);
    for (let i = 0; i < 12; i++) {
      await fetchFn(`${BASE}texts/${i}.bin`);
      await vi.advanceTimersByTimeAsync(200);
    }
    expect(cache.entries.size).toBeGreaterThan(0);
  });

  it('serves the next visit from the stored copies, with the network gone', async () => {
    const first = cachingFetch(async () => new Response('shard'), BASE, MANIFEST);
    await first(SHARD);
    await vi.advanceTimersByTimeAsync(1000);
    const offline = vi.fn(async (): Promise<Response> => {
      throw new TypeError('Failed to fetch');
    });
    const next = cachingFetch(offline, BASE, MANIFEST);
    expect(await (await next(SHARD)).text()).toBe('shard');
    expect(offline).not.toHaveBeenCalled();
    await expect(next(`${BASE}texts/9.bin`)).rejects.toThrow('Failed to fetch');
  });
});

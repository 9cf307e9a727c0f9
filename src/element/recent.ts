/**
 * Recent searches of `<rcp-search>`, kept in the browser (localStorage) per bundle URL, newest
 * first, at most `max`. Storage may be missing, full or refused (private modes, sandboxed frames,
 * a site's policy): the list is then empty and nothing is thrown — it is a convenience, not state.
 */

/** The part of the Web Storage API used here (so tests can pass a Map-backed one). */
export type RecentStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** Longest query kept, in characters. */
const MAX_QUERY = 200;

export interface RecentSearches {
  list(): string[];
  /** Puts `query` first (whitespace collapsed; an equal one, ignoring case, moves up). */
  add(query: string): void;
  clear(): void;
}

export const recentKey = (bundleUrl: string): string => `rcp-search:recent:${bundleUrl}`;

export function recentSearches(storage: RecentStorage | undefined, bundleUrl: string, max: number): RecentSearches {
  const key = recentKey(bundleUrl);
  const read = (): string[] => {
    try {
      const v: unknown = JSON.parse(storage?.getItem(key) ?? '[]');
      return Array.isArray(v) ? v.filter((q): q is string => typeof q === 'string' && q.length > 0).slice(0, max) : [];
    } catch {
      return [];
    }
  };
  const write = (qs: string[]): void => {
    try {
      if (qs.length) storage?.setItem(key, JSON.stringify(qs));
      else storage?.removeItem(key);
    } catch {
      // Full or refused: the list is not kept.
    }
  };
  return {
    list: () => (max > 0 ? read() : []),
    add(query) {
      const q = query.replace(/\s+/g, ' ').trim().slice(0, MAX_QUERY);
      if (!q || max <= 0) return;
      write([q, ...read().filter((r) => r.toLowerCase() !== q.toLowerCase())].slice(0, max));
    },
    clear: () => write([]),
  };
}

/** The page's localStorage, or undefined where reading it throws (opaque origins, blocked storage). */
export function pageStorage(): RecentStorage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

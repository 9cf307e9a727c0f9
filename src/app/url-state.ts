/**
 * The search as a shareable address: query, mode, fusion, k, rerank, MMR and filters in the page's
 * query string (`?q=white+whale&mode=hybrid&k=5&filter={…}`). Written with history.replaceState as
 * the person types (no history entry per keystroke); read once when the page opens. Pure (no DOM).
 */
import type { FilterNode } from '../protocol/types.ts';

export interface SearchState {
  q?: string;
  mode?: string;
  fusion?: string;
  k?: string;
  rerank?: boolean;
  /** MMR λ, when diversifying. */
  mmr?: string;
  filter?: FilterNode;
}

const KEYS = ['q', 'mode', 'fusion', 'k', 'rerank', 'mmr', 'filter'] as const;

/** The state in a query string; unknown parameters and an unreadable filter are ignored. */
export function readSearchState(search: string): SearchState {
  const p = new URLSearchParams(search);
  const out: SearchState = {};
  for (const key of ['q', 'mode', 'fusion', 'k', 'mmr'] as const) {
    const v = p.get(key);
    if (v !== null && v !== '') out[key] = v;
  }
  if (p.get('rerank') === '1') out.rerank = true;
  const f = p.get('filter');
  if (f) {
    try {
      const parsed = JSON.parse(f) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) out.filter = parsed as FilterNode;
    } catch {
      /* a mangled link keeps the rest */
    }
  }
  return out;
}

/** `search` (an existing query string) with the state's keys replaced; other parameters are kept. */
export function writeSearchState(search: string, s: SearchState): string {
  const p = new URLSearchParams(search);
  for (const key of KEYS) p.delete(key);
  if (s.q) p.set('q', s.q);
  if (s.mode) p.set('mode', s.mode);
  if (s.fusion) p.set('fusion', s.fusion);
  if (s.k) p.set('k', s.k);
  if (s.rerank) p.set('rerank', '1');
  if (s.mmr) p.set('mmr', s.mmr);
  if (s.filter) p.set('filter', JSON.stringify(s.filter));
  const qs = p.toString();
  return qs ? `?${qs}` : '';
}

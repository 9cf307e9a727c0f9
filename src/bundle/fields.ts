/**
 * The filterable fields of a bundle, read off its documents' metadata: what `<rcp-search>` offers
 * as filters and what the worker serving the bundle advertises (`filter.fields`). A field gets the
 * one type every value of it fits (int, float, bool, date, else keyword; lists of strings are
 * keywords; titles and descriptions are text); a field whose values disagree is a keyword if they
 * are all strings, and left out otherwise (a filter on it could not be typed).
 */
import { parseRfc3339 } from '../protocol/dates.ts';
import type { FilterFieldType } from '../protocol/types.ts';

/** Per-document layout data, never worth filtering on. */
const LAYOUT = new Set(['pageStarts', 'pages', 'path', 'url']);
const TEXT = new Set(['title', 'description', 'summary']);

function typeOf(v: unknown): FilterFieldType | 'string' | undefined {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : Number.isFinite(v) ? 'float' : undefined;
  if (typeof v === 'string') return /^\d{4}-\d{2}-\d{2}/.test(v) && parseRfc3339(v) !== undefined ? 'date' : 'string';
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return 'string';
  return undefined;
}

/** Field → filter type over `metas` (see the file comment). */
export function inferFields(metas: Iterable<Record<string, unknown>>): Record<string, FilterFieldType> {
  const seen = new Map<string, Set<FilterFieldType | 'string' | undefined>>();
  for (const meta of metas) {
    for (const [k, v] of Object.entries(meta)) {
      if (LAYOUT.has(k) || v === null || v === undefined) continue;
      let s = seen.get(k);
      if (!s) seen.set(k, (s = new Set()));
      s.add(typeOf(v));
    }
  }
  const out: Record<string, FilterFieldType> = {};
  for (const [k, types] of [...seen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (types.has(undefined)) continue;
    if (types.size === 1) {
      const t = [...types][0]!;
      out[k] = t === 'string' ? (TEXT.has(k) ? 'text' : 'keyword') : t;
    } else if ([...types].every((t) => t === 'int' || t === 'float')) out[k] = 'float';
    else if ([...types].every((t) => t === 'string' || t === 'date')) out[k] = TEXT.has(k) ? 'text' : 'keyword';
  }
  return out;
}

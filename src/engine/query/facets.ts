/**
 * Facet values of a metadata field over the live documents (the `x-inpage/facets` vendor method):
 * each distinct value with the number of documents holding it, most frequent first. Array values
 * count each element. From in-memory document meta only; no text is read.
 */
import type { DocEntry } from '../index/view.ts';

export interface FacetValue {
  value: string | number | boolean;
  count: number;
}

export function facetValues(docs: Iterable<DocEntry>, field: string, limit: number): { values: FacetValue[]; distinct: number } {
  const counts = new Map<string | number | boolean, number>();
  for (const d of docs) {
    const v = d.meta[field];
    for (const x of Array.isArray(v) ? v : [v]) {
      if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') counts.set(x, (counts.get(x) ?? 0) + 1);
    }
  }
  const values = [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)));
  return { values: values.slice(0, limit), distinct: values.length };
}

/**
 * Which query terms a hit's text matched, and where: the engine's own analysis of both sides, so a
 * viewer marks exactly what the index matched (stopwords the query dropped are never marked, stems
 * mark only words with that stem, CJK bigrams mark their characters). Served as the vendor hit field
 * `x-inpage-matches` when a retrieve asks for it with `_meta: { "x-inpage-matches": true }` (§4.4: `_meta` passes
 * validation untouched, and a server without the extension ignores it).
 */
import type { Hit, RetrieveParams } from '../../protocol/types.ts';
import type { Analyzer } from '../analysis/analyzer.ts';

/** The request flag and the hit field (vendor extension names, §6.2). */
export const MATCHES_FIELD = 'x-inpage-matches';

/** What a hit's text matched: the analysed query terms found, and `[start, end, term]` spans (term = index into `terms`). */
export interface HitMatches {
  terms: string[];
  spans: [number, number, number][];
}

/**
 * Matches of `queryTerms` (already analysed) in `text`. Overlapping spans (a CJK unigram inside a
 * matched bigram) are merged into the longer one; spans are sorted by start.
 */
export function findMatches(analyzer: Analyzer, queryTerms: readonly string[], text: string): HitMatches {
  const wanted = new Map<string, number>();
  for (const t of queryTerms) if (!wanted.has(t)) wanted.set(t, wanted.size);
  const found = new Map<string, number>();
  const raw: [number, number, string][] = [];
  for (const s of analyzer.termSpans(text)) if (wanted.has(s.term)) raw.push([s.start, s.end, s.term]);
  raw.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const spans: [number, number, number][] = [];
  for (const [start, end, term] of raw) {
    const last = spans[spans.length - 1];
    if (last && start < last[1]) {
      last[1] = Math.max(last[1], end); // overlapping: one mark
      continue;
    }
    if (!found.has(term)) found.set(term, found.size);
    spans.push([start, end, found.get(term)!]);
  }
  return { terms: [...found.keys()], spans };
}

/** The text of a retrieve query when it has one (a string, or an object's `text`). */
export function queryText(query: unknown): string | undefined {
  if (typeof query === 'string') return query;
  if (query && typeof query === 'object' && typeof (query as { text?: unknown }).text === 'string') return (query as { text: string }).text;
  return undefined;
}

/**
 * Sets `x-inpage-matches` on every hit with text, when the request asks for it (its `_meta` flag):
 * matches of `searched` when the query was rewritten (a corrected typo marks the word it found).
 */
export function addMatches(analyzer: Analyzer, params: Readonly<RetrieveParams>, hits: readonly Hit[], searched?: string): void {
  const text = params._meta?.[MATCHES_FIELD] === true ? (searched ?? queryText(params.query)) : undefined;
  if (text === undefined) return;
  const terms = analyzer.queryTerms(text);
  for (const h of hits) if (typeof h.text === 'string') (h as Hit & Record<string, unknown>)[MATCHES_FIELD] = findMatches(analyzer, terms, h.text);
}
